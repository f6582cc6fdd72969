// NVML card reads (nvml_card.h). Units as nvml.h gives them: clocks MHz, power mW, temperature
// degrees C, memory bytes.
#include "card/nvml_card.h"

namespace gs {

using namespace vendor;

std::unique_ptr<nvml_session> nvml_session::open(std::string* why) {
  std::unique_ptr<nvml_session> s(new nvml_session());
  runtime_status st = s->api_.load();
  if (!st.ok) {
    *why = st.message;
    return nullptr;
  }
  nvmlReturn_t rc = s->api_.nvmlInit_v2();
  if (rc != NVML_SUCCESS) {
    *why = "nvmlInit_v2: " + s->api_.error_text(rc) +
           (rc == NVML_ERROR_LIB_RM_VERSION_MISMATCH ? " (the driver was upgraded without a reboot)" : "");
    s->api_.nvmlInit_v2 = nullptr;  // nothing to shut down
    return nullptr;
  }
  return s;
}

nvml_session::~nvml_session() {
  if (api_.nvmlInit_v2 && api_.nvmlShutdown) api_.nvmlShutdown();
}

nvmlDevice_t nvml_session::device(const std::string& pci_address, std::string* why) const {
  if (!api_.nvmlDeviceGetHandleByPciBusId_v2) {
    *why = "nvmlDeviceGetHandleByPciBusId_v2 is not exported by " + api_.lib.path();
    return nullptr;
  }
  nvmlDevice_t dev = nullptr;
  nvmlReturn_t rc = api_.nvmlDeviceGetHandleByPciBusId_v2(pci_address.c_str(), &dev);
  if (rc != NVML_SUCCESS || !dev) {
    *why = "nvmlDeviceGetHandleByPciBusId_v2(" + pci_address + "): " + api_.error_text(rc);
    return nullptr;
  }
  return dev;
}

namespace {

/// One optional query: a missing symbol or "not supported" is silence, other errors a note.
class asker {
 public:
  asker(const nvml_api& api, std::vector<std::string>* failures) : api_(api), failures_(failures) {}
  template <class Fn, class... Args>
  bool operator()(const char* name, Fn* fn, Args... args) {
    if (!fn) return false;
    nvmlReturn_t rc = fn(args...);
    if (rc == NVML_SUCCESS) return true;
    if (rc != NVML_ERROR_NOT_SUPPORTED && failures_) failures_->push_back(std::string(name) + ": " + api_.error_text(rc));
    return false;
  }

 private:
  const nvml_api& api_;
  std::vector<std::string>* failures_;
};

}  // namespace

void read_nvml_card_live(const nvml_session& s, nvmlDevice_t dev, card_state& c, std::vector<std::string>* failures) {
  const nvml_api& a = s.api();
  asker ask(a, failures);
  unsigned v = 0;
  if (ask("nvmlDeviceGetClockInfo", a.nvmlDeviceGetClockInfo, dev, NVML_CLOCK_SM, &v)) c.clock_sm_mhz = v;
  if (ask("nvmlDeviceGetClockInfo", a.nvmlDeviceGetClockInfo, dev, NVML_CLOCK_MEM, &v)) c.clock_mem_mhz = v;
  if (ask("nvmlDeviceGetPowerUsage", a.nvmlDeviceGetPowerUsage, dev, &v)) c.power_w = v / 1000.0;
  if (ask("nvmlDeviceGetTemperature", a.nvmlDeviceGetTemperature, dev, NVML_TEMPERATURE_GPU, &v)) c.temp_c = v;
  nvmlUtilization_t u{};
  if (ask("nvmlDeviceGetUtilizationRates", a.nvmlDeviceGetUtilizationRates, dev, &u)) c.busy_percent = u.gpu;
  unsigned long long bits = 0;
  nvmlReturn_t rc = a.clock_reasons(dev, &bits);
  if (rc == NVML_SUCCESS) c.throttle_reasons = nvml_clock_reason_names(bits);
  else if (rc != NVML_ERROR_NOT_SUPPORTED && failures)
    failures->push_back("nvmlDeviceGetCurrentClocksEventReasons: " + a.error_text(rc));
}

void read_nvml_card(const nvml_session& s, nvmlDevice_t dev, card_state& c, std::vector<std::string>* failures) {
  const nvml_api& a = s.api();
  asker ask(a, failures);
  c.source = "nvml";
  read_nvml_card_live(s, dev, c, failures);
  unsigned v = 0, w = 0;
  if (ask("nvmlDeviceGetMaxClockInfo", a.nvmlDeviceGetMaxClockInfo, dev, NVML_CLOCK_SM, &v)) c.clock_sm_max_mhz = v;
  if (ask("nvmlDeviceGetMaxClockInfo", a.nvmlDeviceGetMaxClockInfo, dev, NVML_CLOCK_MEM, &v)) c.clock_mem_max_mhz = v;
  if (ask("nvmlDeviceGetPowerManagementLimit", a.nvmlDeviceGetPowerManagementLimit, dev, &v)) c.power_limit_w = v / 1000.0;
  if (ask("nvmlDeviceGetPowerManagementDefaultLimit", a.nvmlDeviceGetPowerManagementDefaultLimit, dev, &v))
    c.power_default_limit_w = v / 1000.0;
  int p = NVML_PSTATE_UNKNOWN;
  if (ask("nvmlDeviceGetPerformanceState", a.nvmlDeviceGetPerformanceState, dev, &p) && p >= 0 && p <= 15) c.pstate = p;
  if (ask("nvmlDeviceGetCurrPcieLinkGeneration", a.nvmlDeviceGetCurrPcieLinkGeneration, dev, &v)) c.pcie_gen = int(v);
  if (ask("nvmlDeviceGetMaxPcieLinkGeneration", a.nvmlDeviceGetMaxPcieLinkGeneration, dev, &v)) c.pcie_max_gen = int(v);
  if (ask("nvmlDeviceGetCurrPcieLinkWidth", a.nvmlDeviceGetCurrPcieLinkWidth, dev, &v)) c.pcie_lanes = int(v);
  if (ask("nvmlDeviceGetMaxPcieLinkWidth", a.nvmlDeviceGetMaxPcieLinkWidth, dev, &v)) c.pcie_max_lanes = int(v);
  nvmlMemory_t m{};
  if (ask("nvmlDeviceGetMemoryInfo", a.nvmlDeviceGetMemoryInfo, dev, &m)) {
    c.vram_used_bytes = double(m.used);
    c.vram_total_bytes = double(m.total);
  }
  // Processes: ask with room for 64; INSUFFICIENT_SIZE still sets the count, which is what the
  // rules need (64 processes on one GPU is already the finding).
  if (a.nvmlDeviceGetComputeRunningProcesses_v3) {
    unsigned n = 64;
    std::vector<nvmlProcessInfo_t> infos(n);
    nvmlReturn_t rc = a.nvmlDeviceGetComputeRunningProcesses_v3(dev, &n, infos.data());
    if (rc == NVML_SUCCESS || rc == NVML_ERROR_INSUFFICIENT_SIZE) {
      c.compute_processes = int(n);
      for (unsigned i = 0; rc == NVML_SUCCESS && i < n && i < infos.size(); ++i) {
        card_process pr;
        pr.pid = infos[i].pid;
        pr.used_bytes = infos[i].usedGpuMemory == NVML_VALUE_NOT_AVAILABLE ? 0 : infos[i].usedGpuMemory;
        char name[256] = {};
        if (a.nvmlSystemGetProcessName && a.nvmlSystemGetProcessName(pr.pid, name, sizeof name) == NVML_SUCCESS) {
          name[sizeof name - 1] = '\0';
          pr.name = name;
        }
        c.processes.push_back(std::move(pr));
      }
    } else if (rc != NVML_ERROR_NOT_SUPPORTED && failures) {
      failures->push_back("nvmlDeviceGetComputeRunningProcesses_v3: " + a.error_text(rc));
    }
  }
  int ecc = 0, pending = 0;
  if (ask("nvmlDeviceGetEccMode", a.nvmlDeviceGetEccMode, dev, &ecc, &pending)) {
    c.ecc_enabled = ecc == NVML_FEATURE_ENABLED;
    unsigned long long n = 0;
    if (ecc == NVML_FEATURE_ENABLED &&
        ask("nvmlDeviceGetTotalEccErrors", a.nvmlDeviceGetTotalEccErrors, dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
            NVML_VOLATILE_ECC, &n))
      c.ecc_uncorrected = double(n);
  }
  if (ask("nvmlDeviceGetMigMode", a.nvmlDeviceGetMigMode, dev, &v, &w)) c.mig_enabled = v == 1;
  // Names as nvidia-smi --query-gpu=compute_mode prints them (NVML API reference, nvmlComputeMode_t).
  int mode = 0;
  if (ask("nvmlDeviceGetComputeMode", a.nvmlDeviceGetComputeMode, dev, &mode)) {
    static constexpr const char* names[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
    if (mode >= 0 && mode <= 3) c.compute_mode = names[mode];
  }
  if (ask("nvmlDeviceGetPersistenceMode", a.nvmlDeviceGetPersistenceMode, dev, &mode)) c.persistence_mode = mode == NVML_FEATURE_ENABLED;
  char vb[NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE] = {};
  if (ask("nvmlDeviceGetVbiosVersion", a.nvmlDeviceGetVbiosVersion, dev, vb, unsigned(sizeof vb))) {
    vb[sizeof vb - 1] = '\0';
    c.vbios = vb;
  }
}

void detect_nvml_cards(machine_facts& facts) {
  bool any = false;
  for (const gpu_info& g : facts.gpus) any = any || (g.vendor == "nvidia" && !g.pci_address.empty());
  if (!any) return;  // nothing loaded that the machine lacks
  std::string why;
  std::unique_ptr<nvml_session> s = nvml_session::open(&why);
  if (!s) {
    facts.issues.push_back({"NVML", "the card's clocks, power and errors are unknown: " + why});
    return;
  }
  // A GPU the kernel lists but NVML cannot see (a device cgroup that hides its node, a GPU that
  // fell off the bus after probing) is what CUDA will not see either: say so.
  unsigned seen = 0, listed = 0;
  for (const gpu_info& g : facts.gpus) listed += g.vendor == "nvidia";
  if (s->api().nvmlDeviceGetCount_v2 && s->api().nvmlDeviceGetCount_v2(&seen) == NVML_SUCCESS && seen != listed)
    facts.issues.push_back({"NVML", "NVML sees " + std::to_string(seen) + " GPU(s) where the kernel lists " +
                                        std::to_string(listed) + " (a container's device list, or a GPU lost since boot)"});
  for (gpu_info& g : facts.gpus) {
    if (g.vendor != "nvidia" || g.pci_address.empty()) continue;
    nvmlDevice_t dev = s->device(g.pci_address, &why);
    if (!dev) {
      facts.issues.push_back({"NVML", why});
      continue;
    }
    std::vector<std::string> failures;
    read_nvml_card(*s, dev, g.card, &failures);
    if (!failures.empty()) {
      std::string msg = g.pci_address + ":";
      for (const std::string& f : failures) msg += " " + f + ";";
      msg.pop_back();
      facts.issues.push_back({"NVML", msg});
    }
  }
}

}  // namespace gs
