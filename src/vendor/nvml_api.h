// NVML (libnvidia-ml.so.1) as a dlopen table, OPTIONAL for the runtime: it only adds the kernel
// driver's version ("580.95.05") beside the driver API's "13.0". Versioned names (nvmlInit_v2)
// are used because nvml.h maps the plain ones to them (detection.md 7.2).
#pragma once
#include <string>

#include "vendor/dl_library.h"

namespace gs::vendor {

using nvmlReturn_t = int;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
constexpr nvmlReturn_t NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18;  ///< user space != kernel module
constexpr unsigned NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;

struct nvml_api {
  dl_library lib;
  nvmlReturn_t (*nvmlInit_v2)() = nullptr;
  nvmlReturn_t (*nvmlShutdown)() = nullptr;
  const char* (*nvmlErrorString)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*nvmlSystemGetDriverVersion)(char*, unsigned) = nullptr;

  runtime_status load();
  /// nvmlInit_v2 + nvmlSystemGetDriverVersion + nvmlShutdown: "580.95.05", or the status.
  runtime_status driver_version(std::string& out);
};

}  // namespace gs::vendor
