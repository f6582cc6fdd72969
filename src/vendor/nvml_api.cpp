// NVML symbol table: the driver version for the runtime, the device queries for the card's state.
#include "vendor/nvml_api.h"

#include <vector>

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
      dl_opt("nvmlSystemGetDriverVersion", nvmlSystemGetDriverVersion),
      dl_opt("nvmlSystemGetProcessName", nvmlSystemGetProcessName),
      dl_opt("nvmlDeviceGetCount_v2", nvmlDeviceGetCount_v2),
      dl_opt("nvmlDeviceGetHandleByIndex_v2", nvmlDeviceGetHandleByIndex_v2),
      dl_opt("nvmlDeviceGetHandleByPciBusId_v2", nvmlDeviceGetHandleByPciBusId_v2),
      dl_opt("nvmlDeviceGetName", nvmlDeviceGetName),
      dl_opt("nvmlDeviceGetVbiosVersion", nvmlDeviceGetVbiosVersion),
      dl_opt("nvmlDeviceGetClockInfo", nvmlDeviceGetClockInfo),
      dl_opt("nvmlDeviceGetMaxClockInfo", nvmlDeviceGetMaxClockInfo),
      dl_opt("nvmlDeviceGetPowerUsage", nvmlDeviceGetPowerUsage),
      dl_opt("nvmlDeviceGetPowerManagementLimit", nvmlDeviceGetPowerManagementLimit),
      dl_opt("nvmlDeviceGetPowerManagementDefaultLimit", nvmlDeviceGetPowerManagementDefaultLimit),
      dl_opt("nvmlDeviceGetTemperature", nvmlDeviceGetTemperature),
      dl_opt("nvmlDeviceGetPerformanceState", nvmlDeviceGetPerformanceState),
      dl_opt("nvmlDeviceGetCurrentClocksEventReasons", nvmlDeviceGetCurrentClocksEventReasons),
      dl_opt("nvmlDeviceGetCurrentClocksThrottleReasons", nvmlDeviceGetCurrentClocksThrottleReasons),
      dl_opt("nvmlDeviceGetCurrPcieLinkGeneration", nvmlDeviceGetCurrPcieLinkGeneration),
      dl_opt("nvmlDeviceGetMaxPcieLinkGeneration", nvmlDeviceGetMaxPcieLinkGeneration),
      dl_opt("nvmlDeviceGetCurrPcieLinkWidth", nvmlDeviceGetCurrPcieLinkWidth),
      dl_opt("nvmlDeviceGetMaxPcieLinkWidth", nvmlDeviceGetMaxPcieLinkWidth),
      dl_opt("nvmlDeviceGetMemoryInfo", nvmlDeviceGetMemoryInfo),
      dl_opt("nvmlDeviceGetUtilizationRates", nvmlDeviceGetUtilizationRates),
      dl_opt("nvmlDeviceGetComputeRunningProcesses_v3", nvmlDeviceGetComputeRunningProcesses_v3),
      dl_opt("nvmlDeviceGetEccMode", nvmlDeviceGetEccMode),
      dl_opt("nvmlDeviceGetTotalEccErrors", nvmlDeviceGetTotalEccErrors),
      dl_opt("nvmlDeviceGetMigMode", nvmlDeviceGetMigMode),
      dl_opt("nvmlDeviceGetComputeMode", nvmlDeviceGetComputeMode),
      dl_opt("nvmlDeviceGetPersistenceMode", nvmlDeviceGetPersistenceMode),
  });
}

std::string nvml_api::error_text(nvmlReturn_t rc) const {
  const char* e = nvmlErrorString ? nvmlErrorString(rc) : nullptr;
  return e && *e ? std::string(e) : "NVML error " + std::to_string(rc);
}

runtime_status nvml_api::driver_version(std::string& out) {
  if (!nvmlInit_v2) return runtime_status::failure("nvmlInit_v2", 0, "NVML not loaded");
  if (!nvmlSystemGetDriverVersion)
    return runtime_status::failure("nvmlSystemGetDriverVersion", 0, "not exported by " + lib.path());
  nvmlReturn_t rc = nvmlInit_v2();
  if (rc != NVML_SUCCESS) return runtime_status::failure("nvmlInit_v2", rc, error_text(rc));
  char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  rc = nvmlSystemGetDriverVersion(buf, sizeof buf);
  std::string why = rc == NVML_SUCCESS ? "" : error_text(rc);  // before shutdown: the text is NVML's
  nvmlShutdown();
  if (rc != NVML_SUCCESS) return runtime_status::failure("nvmlSystemGetDriverVersion", rc, why);
  buf[sizeof buf - 1] = '\0';
  out = buf;
  return runtime_status::success();
}

nvmlReturn_t nvml_api::clock_reasons(nvmlDevice_t dev, unsigned long long* bits) const {
  if (nvmlDeviceGetCurrentClocksEventReasons) return nvmlDeviceGetCurrentClocksEventReasons(dev, bits);
  if (nvmlDeviceGetCurrentClocksThrottleReasons) return nvmlDeviceGetCurrentClocksThrottleReasons(dev, bits);
  return NVML_ERROR_NOT_SUPPORTED;
}

std::vector<std::string> nvml_clock_reason_names(unsigned long long bits) {
  // nvml.h's nvmlClocksEventReason* values, bit 0 upwards.
  static const char* const kNames[] = {
      "gpu_idle",            // 0x1
      "applications_clocks", // 0x2   set by the administrator (nvidia-smi -ac)
      "sw_power_cap",        // 0x4   the power cap holds the clocks down
      "hw_slowdown",         // 0x8   HW slowdown: clocks halved or worse (heat, power brake)
      "sync_boost",          // 0x10
      "sw_thermal_slowdown", // 0x20
      "hw_thermal_slowdown", // 0x40
      "hw_power_brake",      // 0x80  the external power brake (PSU signal)
      "display_clock",       // 0x100
  };
  std::vector<std::string> out;
  for (unsigned b = 0; b < 64; ++b) {
    if (!(bits & (1ull << b))) continue;
    out.push_back(b < std::size(kNames) ? std::string(kNames[b]) : "bit_" + std::to_string(b));
  }
  return out;
}

}  // namespace gs::vendor
