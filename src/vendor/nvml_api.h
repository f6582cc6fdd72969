// NVML (libnvidia-ml.so.1) as a dlopen table, OPTIONAL everywhere: the runtime reads the kernel
// driver's version ("580.95.05") beside the driver API's "13.0"; `check` and the probe sampler read
// the card's state (card/nvml_card.cpp). Versioned names (nvmlInit_v2, ..._v2, ..._v3) are used
// because nvml.h maps the plain ones to them (detection.md 7.2); the layouts below are nvml.h's
// (NVML_API_VERSION 13, CUDA 13). Only init, shutdown and the error string are required: every
// device query is optional, so a driver older than a symbol costs that one figure.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "vendor/dl_library.h"

namespace gs::vendor {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
constexpr nvmlReturn_t NVML_ERROR_NO_PERMISSION = 4;
constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
constexpr nvmlReturn_t NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18;  ///< user space != kernel module
constexpr unsigned NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
constexpr unsigned NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
constexpr unsigned NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE = 32;

// nvmlClockType_t
constexpr int NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2;
// nvmlTemperatureSensors_t
constexpr int NVML_TEMPERATURE_GPU = 0;
// nvmlMemoryErrorType_t, nvmlEccCounterType_t
constexpr int NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1;
constexpr int NVML_VOLATILE_ECC = 0;
// nvmlEnableState_t
constexpr int NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1;
/// nvmlPstates_t: 0 (P0, the fastest) .. 15; 32 = unknown.
constexpr int NVML_PSTATE_UNKNOWN = 32;

struct nvmlMemory_t {  ///< nvmlMemory_st (v1): bytes
  unsigned long long total, free, used;
};
struct nvmlUtilization_t {  ///< nvmlUtilization_st: percent over the driver's last sample period
  unsigned int gpu, memory;
};
/// nvmlProcessInfo_st as nvmlDeviceGetComputeRunningProcesses_v3 fills it (24 bytes).
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;  ///< NVML_VALUE_NOT_AVAILABLE (~0ull) when hidden
  unsigned int gpuInstanceId, computeInstanceId;
};
static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvml.h layout");
constexpr unsigned long long NVML_VALUE_NOT_AVAILABLE = ~0ull;

struct nvml_api {
  dl_library lib;
  nvmlReturn_t (*nvmlInit_v2)() = nullptr;
  nvmlReturn_t (*nvmlShutdown)() = nullptr;
  const char* (*nvmlErrorString)(nvmlReturn_t) = nullptr;
  // Optional from here on.
  nvmlReturn_t (*nvmlSystemGetDriverVersion)(char*, unsigned) = nullptr;
  nvmlReturn_t (*nvmlSystemGetProcessName)(unsigned, char*, unsigned) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetCount_v2)(unsigned*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetHandleByPciBusId_v2)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetName)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetVbiosVersion)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetClockInfo)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetMaxClockInfo)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetPowerUsage)(nvmlDevice_t, unsigned*) = nullptr;                    ///< mW
  nvmlReturn_t (*nvmlDeviceGetPowerManagementLimit)(nvmlDevice_t, unsigned*) = nullptr;          ///< mW
  nvmlReturn_t (*nvmlDeviceGetPowerManagementDefaultLimit)(nvmlDevice_t, unsigned*) = nullptr;   ///< mW
  nvmlReturn_t (*nvmlDeviceGetTemperature)(nvmlDevice_t, int, unsigned*) = nullptr;              ///< deg C
  nvmlReturn_t (*nvmlDeviceGetPerformanceState)(nvmlDevice_t, int*) = nullptr;
  /// CUDA 12.2+ name; older drivers export only the ...ThrottleReasons one (same bits).
  nvmlReturn_t (*nvmlDeviceGetCurrentClocksEventReasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetCurrentClocksThrottleReasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetCurrPcieLinkGeneration)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetMaxPcieLinkGeneration)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetCurrPcieLinkWidth)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetMaxPcieLinkWidth)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetComputeRunningProcesses_v3)(nvmlDevice_t, unsigned*, nvmlProcessInfo_t*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetEccMode)(nvmlDevice_t, int*, int*) = nullptr;  ///< current, pending
  nvmlReturn_t (*nvmlDeviceGetTotalEccErrors)(nvmlDevice_t, int, int, unsigned long long*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetMigMode)(nvmlDevice_t, unsigned*, unsigned*) = nullptr;  ///< current, pending
  /// nvmlComputeMode_t: 0 DEFAULT, 1 EXCLUSIVE_THREAD (gone since CUDA 8), 2 PROHIBITED, 3 EXCLUSIVE_PROCESS
  nvmlReturn_t (*nvmlDeviceGetComputeMode)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetPersistenceMode)(nvmlDevice_t, int*) = nullptr;  ///< nvmlEnableState_t

  runtime_status load();
  /// nvmlInit_v2 + nvmlSystemGetDriverVersion + nvmlShutdown: "580.95.05", or the status.
  runtime_status driver_version(std::string& out);
  /// NVML's text for a return code ("Not Supported"), "NVML error N" when it has none.
  std::string error_text(nvmlReturn_t rc) const;
  /// The reason bitmask of the current clocks: the event-reasons entry point, else the throttle
  /// one; NVML_ERROR_NOT_FOUND-like failure when neither is exported.
  nvmlReturn_t clock_reasons(nvmlDevice_t dev, unsigned long long* bits) const;
};

/// nvmlClocksEventReason* bits to names, lowest bit first ("gpu_idle", "sw_power_cap", ...);
/// unknown bits become "bit_<n>" so a newer driver's reason is shown, not dropped.
std::vector<std::string> nvml_clock_reason_names(unsigned long long bits);

}  // namespace gs::vendor
