// The hip backend: libamdhip64 through dlopen, entry points with a stable C ABI only, the gfx
// target from HSA/KFD (hip_arch.h), the wave size from hipDeviceGetAttribute, kernels compiled
// with hiprtc or amd_comgr (hip_compiler.h) and cached on disk.
#pragma once
#include <memory>
#include <string>

#include "runtime/hip_compiler.h"
#include "runtime/runtime.h"

namespace gs {

struct hip_options {
  std::string hip_library;           ///< explicit libamdhip64 path; "" = $GPUSTACK_HIP_LIBRARY or the search
  hip_compiler_options compiler;
  std::string cache_dir = "env";     ///< "env": jit_cache::from_environment(); "": no cache; else a dir
  bool use_kfd = true;               ///< read KFD sysfs for the arch (tests of a double turn it off)
};

/// Open HIP device `ordinal`. Null with `why` set when the library is missing, has no device
/// (call "hipGetDeviceCount", code 100, "hipErrorNoDevice ...") or the ordinal does not exist.
/// A missing compiler does not fail the open: compile() reports it and props().compiler is "".
std::unique_ptr<runtime> open_hip_runtime(int ordinal, runtime_status& why, const hip_options& opts = {});

/// Notes gathered while opening (which source gave the arch, disagreements), for reports.
const std::vector<std::string>& hip_runtime_notes(const runtime& rt);

}  // namespace gs
