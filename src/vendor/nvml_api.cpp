// NVML symbol table: just enough for the kernel driver's version string.
#include "vendor/nvml_api.h"

namespace gs::vendor {

runtime_status nvml_api::load() {
  runtime_status st = lib.open(library_candidates("GPUSTACK_NVML_LIBRARY", {"libnvidia-ml.so.1"}));
  if (!st.ok) {
    st.message = "libnvidia-ml.so.1 " + st.message;
    return st;
  }
  return lib.resolve({
      dl_req("nvmlInit_v2", nvmlInit_v2),
      dl_req("nvmlShutdown", nvmlShutdown),
      dl_req("nvmlErrorString", nvmlErrorString),
      dl_req("nvmlSystemGetDriverVersion", nvmlSystemGetDriverVersion),
  });
}

runtime_status nvml_api::driver_version(std::string& out) {
  if (!nvmlInit_v2) return runtime_status::failure("nvmlInit_v2", 0, "NVML not loaded");
  nvmlReturn_t rc = nvmlInit_v2();
  if (rc != NVML_SUCCESS) {
    const char* e = nvmlErrorString(rc);
    return runtime_status::failure("nvmlInit_v2", rc, e ? e : "nvmlInit_v2 failed");
  }
  char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  rc = nvmlSystemGetDriverVersion(buf, sizeof buf);
  nvmlShutdown();
  if (rc != NVML_SUCCESS) {
    const char* e = nvmlErrorString(rc);
    return runtime_status::failure("nvmlSystemGetDriverVersion", rc, e ? e : "failed");
  }
  buf[sizeof buf - 1] = '\0';
  out = buf;
  return runtime_status::success();
}

}  // namespace gs::vendor
