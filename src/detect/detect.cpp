// The detection order: identity (for redaction) and environment first (the Python finder reads VIRTUAL_ENV), then host,
// GPUs, their PCIe links and places among each other (topology), (AMD) the card's sysfs state, device access (needs the render minors), toolkits, Python.
#include "detect/detect.h"

#include "detect/amd_card.h"
#include "detect/gpu_topology.h"
#include "detect/identity.h"
#include "detect/pci_bus.h"

namespace gs {

machine_facts detect_machine(const sysroot& sys, const detect_options& opts) {
  machine_facts facts;
  detect_identity(sys, facts);  // hostname, user, home: what redaction must remove
  detect_env(sys, facts);
  detect_host(sys, facts);
  detect_amd(sys, facts);
  detect_nvidia(sys, facts);
  for (gpu_info& g : facts.gpus) fill_pcie_link(sys, g.pci_address, g);  // whoever found the GPU
  detect_gpu_topology(sys, facts);  // NUMA, IOMMU, XGMI, the links between GPUs, ACS
  detect_amd_cards(sys, facts);  // clocks, power, VRAM used from amdgpu sysfs (NVML: card/)
  detect_access(sys, facts);
  detect_toolkits(sys, facts);
  detect_python(sys, opts, facts);
  return facts;
}

}  // namespace gs
