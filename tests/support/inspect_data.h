// Real device code built during the test run: nvcc objects (sm_80 + sm_90 SASS + compute_90
// PTX, also with every entry compressed, and sm_90a), comgr code objects for gfx90a and
// gfx1030 wrapped by clang-offload-bundler (or, when Debian's bundler is absent, by the
// documented container written here) plain and compressed (CCOB v1/v2/v3, zlib and zstd),
// and host ELF objects carrying them in .hip_fatbin. Built once per test process, in a temp dir.
// Tools are test oracles and builders only: gpustack itself never runs them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "support/files.h"
#include "support/shell.h"

namespace gs::test {

/// A fresh directory under $TMPDIR, removed at process exit.
const std::string& scratch_dir();

struct nvcc_objects {
  std::string multi;       ///< -gencode sm_80, sm_90, compute_90 (CUDA 13 compresses the PTX)
  std::string compressed;  ///< the same with -Xfatbin -compress-all
  std::string sm90a;       ///< sm_90a only
};
/// nullopt (with `why`) when nvcc is not installed or fails.
const std::optional<nvcc_objects>& nvcc_built(std::string* why = nullptr);

struct amd_objects {
  std::string gfx90a, gfx1030;   ///< code objects (ELF, EM_AMDGPU) from comgr
  std::string bundle;            ///< plain bundle: host + gfx90a + gfx1030
  bool bundler_used = false;     ///< made by clang-offload-bundler (else written here)
};
const std::optional<amd_objects>& amd_built(std::string* why = nullptr);

/// A host object compiled by Debian's clang-14 as HIP for gfx90a and gfx1030 (no ROCm headers
/// or device libraries needed for a kernel that calls nothing): the real toolchain's .hip_fatbin.
std::optional<std::string> clang_hip_object(std::string* why = nullptr);

/// The documented CCOB container around `bundle`: version 1, 2 or 3; method 0 zlib, 1 zstd.
std::string make_ccob(const std::string& bundle, int version, int method);
/// A host ELF object (from the system C++ compiler) with `section` holding `bytes`, via objcopy.
std::optional<std::string> host_object_with_section(const std::string& section, const std::string& bytes,
                                                    const std::string& name);

}  // namespace gs::test
