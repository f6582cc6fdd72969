// hiprtc as a dlopen table: libhiprtc.so.{7,6,5} (ROCm 6+ ships it apart from HIP), else the
// hiprtc* symbols inside libamdhip64 itself (ROCm 5.x, Debian's 5.2 included, bundles it there).
// The API has not changed since ROCm 4.2 (detection.md 5.2).
#pragma once
#include <cstddef>
#include <string>

#include "vendor/dl_library.h"

namespace gs::vendor {

using hiprtcResult = int;
using hiprtcProgram = void*;
constexpr hiprtcResult HIPRTC_SUCCESS = 0;

struct hiprtc_api {
  dl_library lib;
  hiprtcResult (*hiprtcCreateProgram)(hiprtcProgram*, const char*, const char*, int, const char* const*,
                                      const char* const*) = nullptr;
  hiprtcResult (*hiprtcCompileProgram)(hiprtcProgram, int, const char* const*) = nullptr;
  hiprtcResult (*hiprtcGetProgramLogSize)(hiprtcProgram, size_t*) = nullptr;
  hiprtcResult (*hiprtcGetProgramLog)(hiprtcProgram, char*) = nullptr;
  hiprtcResult (*hiprtcGetCodeSize)(hiprtcProgram, size_t*) = nullptr;
  hiprtcResult (*hiprtcGetCode)(hiprtcProgram, char*) = nullptr;
  hiprtcResult (*hiprtcDestroyProgram)(hiprtcProgram*) = nullptr;
  const char* (*hiprtcGetErrorString)(hiprtcResult) = nullptr;
  hiprtcResult (*hiprtcVersion)(int*, int*) = nullptr;  ///< OPTIONAL; ROCm 5.2 answers 0.0

  /// $GPUSTACK_HIPRTC_LIBRARY, else libhiprtc.so.{7,6,5} (loader path, then `hip_dir`, then the
  /// ROCm dirs), else the symbols of `hip_handle` (may be null). `hip_version` ("5.2.21153") is
  /// used in the version string when hiprtcVersion cannot tell.
  runtime_status load(void* hip_handle, const std::string& hip_path, const std::string& hip_version);
  std::string version;  ///< "hiprtc 7.2" or "hiprtc (HIP 5.2.21153)"
  std::string describe(hiprtcResult code) const;
};

}  // namespace gs::vendor
