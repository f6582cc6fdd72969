// hiprtc symbol table: separate library first, the copy inside ROCm 5's libamdhip64 second.
#include "vendor/hiprtc_api.h"

#include <cstdlib>

#include "vendor/hip_api.h"

namespace gs::vendor {

runtime_status hiprtc_api::load(void* hip_handle, const std::string& hip_path, const std::string& hip_version) {
  std::vector<std::string> dirs;
  if (std::string d = library_dir(hip_path); !d.empty()) dirs.push_back(d);
  for (std::string& d : rocm_lib_dirs()) dirs.push_back(std::move(d));
  runtime_status st =
      lib.open(library_candidates("GPUSTACK_HIPRTC_LIBRARY", {"libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so.5"}, dirs));
  const char* forced = std::getenv("GPUSTACK_HIPRTC_LIBRARY");
  if (!st.ok) {
    if (forced && *forced) return st;
    if (!hip_handle || !handle_has_symbol(hip_handle, "hiprtcCompileProgram")) {
      st.message = "libhiprtc " + st.message + "; the HIP library has no hiprtc symbols either";
      return st;
    }
    lib.borrow(hip_handle, hip_path);
  }
  st = lib.resolve({
      dl_req("hiprtcCreateProgram", hiprtcCreateProgram),
      dl_req("hiprtcCompileProgram", hiprtcCompileProgram),
      dl_req("hiprtcGetProgramLogSize", hiprtcGetProgramLogSize),
      dl_req("hiprtcGetProgramLog", hiprtcGetProgramLog),
      dl_req("hiprtcGetCodeSize", hiprtcGetCodeSize),
      dl_req("hiprtcGetCode", hiprtcGetCode),
      dl_req("hiprtcDestroyProgram", hiprtcDestroyProgram),
      dl_req("hiprtcGetErrorString", hiprtcGetErrorString),
      dl_opt("hiprtcVersion", hiprtcVersion),
  });
  if (!st.ok) return st;
  int major = 0, minor = 0;
  if (hiprtcVersion && hiprtcVersion(&major, &minor) == HIPRTC_SUCCESS && (major || minor))
    version = "hiprtc " + std::to_string(major) + "." + std::to_string(minor);
  else
    version = "hiprtc (HIP " + (hip_version.empty() ? std::string("unknown") : hip_version) + ")";
  return st;
}

std::string hiprtc_api::describe(hiprtcResult code) const {
  const char* s = hiprtcGetErrorString ? hiprtcGetErrorString(code) : nullptr;
  return s ? s : "hiprtcResult " + std::to_string(code);
}

}  // namespace gs::vendor
