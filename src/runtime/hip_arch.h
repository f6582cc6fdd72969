// Which gfx target a HIP device is, decided from the sources in the order detection.md 3.3
// recommends: HSA's agent name (the runtime's own view, override included), then KFD sysfs
// (gfx_target_version; needs no library), then hipDeviceProp_t's gcnArchName read through the
// versioned symbols at their own offsets. Never from the plain struct layout. Pure function of
// its inputs, so every branch is testable without a GPU.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "vendor/hsa_api.h"

namespace gs {

/// A KFD GPU node, reduced to what matching needs.
struct kfd_gpu {
  uint32_t domain = 0;
  uint32_t location_id = 0;  ///< (bus << 8) | (device << 3) | function
  std::string gfx;           ///< from gfx_target_version ("gfx1201")
};

struct hip_arch_inputs {
  int ordinal = 0;                 ///< HIP device index
  int pci_domain = -1, pci_bus = -1, pci_device = -1;  ///< from hipDeviceGetAttribute, -1 unknown
  bool hsa_ok = false;
  std::vector<vendor::hsa_gpu> hsa; ///< GPU agents in HSA order
  std::string hsa_error;
  std::vector<kfd_gpu> kfd;        ///< GPU nodes in KFD order
  std::string props_arch;          ///< gcnArchName, "" when no versioned symbol answered
  std::string props_symbol;        ///< which symbol answered
};

struct hip_arch_choice {
  std::string arch;                ///< "gfx1201"; "" when no source knew
  std::string source;              ///< "hsa", "kfd", "hipGetDevicePropertiesR0600", ...
  std::vector<std::string> notes;  ///< disagreements between sources (an override, a mismatch)
};

hip_arch_choice choose_hip_arch(const hip_arch_inputs& in);

/// The KFD GPU nodes of the live machine (through gs::sysroot).
std::vector<kfd_gpu> live_kfd_gpus();

}  // namespace gs
