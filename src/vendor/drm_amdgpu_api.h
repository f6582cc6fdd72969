// libdrm_amdgpu (libdrm_amdgpu.so.1) and libdrm (libdrm.so.2) as dlopen tables: the loaded
// firmware of each IP block and the VBIOS, which the kernel answers through the DRM_AMDGPU_INFO
// ioctl on a render node (research/detection.md). libdrm_amdgpu wraps firmware queries
// (amdgpu_query_firmware_version) and plain ones (amdgpu_query_info), but not the VBIOS
// sub-query, so that one goes through libdrm's drmCommandWrite with the ioctl's own struct.
// Layouts are amdgpu_drm.h's (uapi, stable by kernel rule).
#pragma once
#include <cstdint>
#include <string>

#include "vendor/dl_library.h"

namespace gs::vendor {

using amdgpu_device_handle = struct amdgpu_device*;

constexpr unsigned DRM_AMDGPU_INFO = 0x05;
constexpr unsigned AMDGPU_INFO_FW_VERSION = 0x0e;
constexpr unsigned AMDGPU_INFO_VRAM_USAGE = 0x10;
constexpr unsigned AMDGPU_INFO_VBIOS = 0x1B;
constexpr unsigned AMDGPU_INFO_VBIOS_INFO = 0x3;

/// struct drm_amdgpu_info: 8 + 4 + 4 + a 16-byte union (vbios_info = {type, offset}).
struct drm_amdgpu_info_request {
  uint64_t return_pointer;
  uint32_t return_size;
  uint32_t query;
  uint32_t u[4];
};
static_assert(sizeof(drm_amdgpu_info_request) == 32, "amdgpu_drm.h layout");

/// struct drm_amdgpu_info_vbios (kernel 5.19+).
struct drm_amdgpu_info_vbios {
  uint8_t name[64];
  uint8_t vbios_pn[64];
  uint32_t version;
  uint32_t pad;
  uint8_t vbios_ver_str[32];
  uint8_t date[32];
};
static_assert(sizeof(drm_amdgpu_info_vbios) == 200, "amdgpu_drm.h layout");

struct drm_amdgpu_api {
  dl_library lib;      ///< libdrm_amdgpu
  dl_library drm_lib;  ///< libdrm (optional: only the VBIOS query needs it)
  int (*amdgpu_device_initialize)(int fd, uint32_t* major, uint32_t* minor, amdgpu_device_handle* dev) = nullptr;
  int (*amdgpu_device_deinitialize)(amdgpu_device_handle dev) = nullptr;
  int (*amdgpu_query_firmware_version)(amdgpu_device_handle dev, unsigned fw_type, unsigned ip_instance,
                                       unsigned index, uint32_t* version, uint32_t* feature) = nullptr;
  int (*amdgpu_query_info)(amdgpu_device_handle dev, unsigned info_id, unsigned size, void* value) = nullptr;
  int (*drmCommandWrite)(int fd, unsigned long index, void* data, unsigned long size) = nullptr;

  /// libdrm_amdgpu (GPUSTACK_DRM_AMDGPU_LIBRARY overrides), then libdrm for drmCommandWrite
  /// (GPUSTACK_DRM_LIBRARY); a missing libdrm costs only the VBIOS.
  runtime_status load();
};

}  // namespace gs::vendor
