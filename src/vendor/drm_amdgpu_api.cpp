// libdrm_amdgpu / libdrm symbol tables (drm_amdgpu_api.h).
#include "vendor/drm_amdgpu_api.h"

namespace gs::vendor {

runtime_status drm_amdgpu_api::load() {
  runtime_status st = lib.open(library_candidates("GPUSTACK_DRM_AMDGPU_LIBRARY", {"libdrm_amdgpu.so.1"}), false);
  if (!st.ok) {
    st.message = "libdrm_amdgpu.so.1 " + st.message;
    return st;
  }
  st = lib.resolve({
      dl_req("amdgpu_device_initialize", amdgpu_device_initialize),
      dl_req("amdgpu_device_deinitialize", amdgpu_device_deinitialize),
      dl_req("amdgpu_query_firmware_version", amdgpu_query_firmware_version),
      dl_req("amdgpu_query_info", amdgpu_query_info),
  });
  if (!st.ok) return st;
  if (drm_lib.open(library_candidates("GPUSTACK_DRM_LIBRARY", {"libdrm.so.2"}), false).ok)
    drm_lib.resolve({dl_opt("drmCommandWrite", drmCommandWrite)});
  return runtime_status::success();
}

}  // namespace gs::vendor
