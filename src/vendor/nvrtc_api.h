// NVRTC (libnvrtc.so.<CUDA major>) as a dlopen table, found in the loader path, the CUDA
// toolkit, or a pip wheel's nvidia/cuda_nvrtc/lib (detection.md 7.4). NVRTC itself dlopens
// libnvrtc-builtins.so.<major>.<minor> at compile time, so load() checks that it is loadable
// too: a missing builtins library otherwise surfaces as an opaque compile failure.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "vendor/dl_library.h"

namespace gs::vendor {

using nvrtcResult = int;
using nvrtcProgram = void*;
constexpr nvrtcResult NVRTC_SUCCESS = 0;

struct nvrtc_api {
  dl_library lib;
  nvrtcResult (*nvrtcVersion)(int*, int*) = nullptr;
  const char* (*nvrtcGetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                    const char* const*) = nullptr;
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram*) = nullptr;
  // OPTIONAL: CUBIN output arrived in NVRTC 11.1, the supported-arch list in 11.2.
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*nvrtcGetNumSupportedArchs)(int*) = nullptr;
  nvrtcResult (*nvrtcGetSupportedArchs)(int*) = nullptr;

  int major = 0, minor = 0;        ///< from nvrtcVersion
  std::string builtins;            ///< the builtins library that was found loadable

  /// Load and resolve; `extra_dirs` are searched after the loader path (site-packages dirs).
  runtime_status load(const std::vector<std::string>& extra_dirs = {});
  /// "13.0"
  std::string version() const { return std::to_string(major) + "." + std::to_string(minor); }
  /// Supported real architectures (75, 80, ... 120); empty when this NVRTC cannot say.
  std::vector<int> supported_archs() const;
  runtime_status status(int code, const char* statement, const std::string& where) const;
};

/// Where NVRTC may live besides the loader path: $CUDA_HOME/lib64, $CUDA_PATH/lib64,
/// /usr/local/cuda/lib64, and the nvidia wheels under $VIRTUAL_ENV / $CONDA_PREFIX site-packages.
std::vector<std::string> nvrtc_search_dirs();

}  // namespace gs::vendor
