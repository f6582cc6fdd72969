// The card's state through NVML (issue 18): clocks, power and its caps, temperature, P-state,
// clock-event (throttle) reasons, the GPU's own PCIe link, memory used, compute processes, ECC,
// MIG mode and VBIOS. Used by `check` (one read per NVIDIA GPU) and by the probe sampler (the fast
// subset, about ten times a second). Every query is optional: a symbol the driver does not export
// or NVML_ERROR_NOT_SUPPORTED leaves the field unset; any other error is reported, never fatal.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/facts.h"
#include "vendor/nvml_api.h"

namespace gs {

/// NVML loaded and initialised; nvmlShutdown when destroyed (NVML counts inits, so a session per
/// user is safe).
class nvml_session {
 public:
  /// Load libnvidia-ml (GPUSTACK_NVML_LIBRARY overrides) and nvmlInit_v2; null with *why on failure.
  static std::unique_ptr<nvml_session> open(std::string* why);
  ~nvml_session();
  nvml_session(const nvml_session&) = delete;
  nvml_session& operator=(const nvml_session&) = delete;

  const vendor::nvml_api& api() const { return api_; }
  /// The device at a PCI address ("0000:03:00.0"), else null with *why.
  vendor::nvmlDevice_t device(const std::string& pci_address, std::string* why) const;

 private:
  nvml_session() = default;
  vendor::nvml_api api_;
};

/// What moves while a kernel runs: SM and memory clocks, power draw, temperature, utilisation,
/// clock-event reasons. Failures other than "not supported" are appended as "call: text".
void read_nvml_card_live(const nvml_session& s, vendor::nvmlDevice_t dev, card_state& c,
                         std::vector<std::string>* failures);
/// All of it (source "nvml"): the live figures, max clocks, power caps, P-state, PCIe link,
/// memory, processes (pid, memory, name), ECC (uncorrected volatile count when ECC is on), MIG.
void read_nvml_card(const nvml_session& s, vendor::nvmlDevice_t dev, card_state& c,
                    std::vector<std::string>* failures);

/// Every NVIDIA GPU of `facts` with a PCI address, through one session; NVML is not loaded when
/// there is none. What fails becomes a detection_issue (source "NVML").
void detect_nvml_cards(machine_facts& facts);

}  // namespace gs
