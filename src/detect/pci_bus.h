// Display-class PCI functions from /sys/bus/pci/devices: the ground truth of which GPUs are
// plugged in, whatever driver (if any) claimed them. Used to report GPUs whose driver is not
// loaded, and to fill PCI ids/revision the vendor interfaces do not show.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs {

struct pci_function {
  std::string address;     ///< "0000:03:00.0"
  uint32_t vendor = 0;     ///< 0x1002, 0x10de
  uint32_t device = 0;     ///< 0x7551
  uint32_t revision = 0;   ///< 0xc0
  uint32_t pci_class = 0;  ///< 0x030000 VGA, 0x030200 3D, 0x038000 display, 0x120000 accelerator
  std::string driver;      ///< basename of the driver link ("amdgpu", "nvidia", "vfio-pci"), "" unbound
};

/// Attributes of one PCI function directory ("/sys/bus/pci/devices/0000:03:00.0" or a DRM
/// card's device link). Unreadable or malformed id files become issues in `facts`.
pci_function read_pci_function(const sysroot& sys, const std::string& dir, const std::string& address,
                               machine_facts& facts);

/// Every display-class (0x03xxxx) or accelerator-class (0x12xxxx) function of `vendor`, by address.
std::vector<pci_function> list_pci_gpus(const sysroot& sys, uint32_t vendor, machine_facts& facts);

/// Where a function sits in the PCI tree, from its sysfs link
/// (/sys/bus/pci/devices/ADDR -> ../../../devices/pci0000:00/0000:00:01.1/0000:01:00.0/ADDR):
/// the host bridge's bus ("pci0000:00") and every device from the root port down, ADDR last.
struct pci_chain {
  std::string root;
  std::vector<std::string> devices;
};
/// nullopt when the link cannot be read or holds no "devices/" path (a trimmed container sysfs).
std::optional<pci_chain> read_pci_chain(const sysroot& sys, const std::string& address);

/// The narrowest PCIe link between the root complex and the function `address`: every device
/// on its sysfs path (root port, the card's own switch ports, the function) that has link files,
/// current and max, width and speed. A discrete AMD card sits behind a switch on the card itself,
/// whose internal links always train x16, so the function's own link files alone miss a slot or
/// riser that narrows the link to the host. Missing files are no issue (virtual functions,
/// trimmed container sysfs): the fields stay 0.
struct pcie_path_link {
  int width = 0, max_width = 0;  ///< min over the path of current / max lanes
  double gts = 0, max_gts = 0;   ///< min over the path of current / max GT/s
  std::string narrowest;         ///< address of the device with the fewest current lanes
};
pcie_path_link read_pcie_path(const sysroot& sys, const std::string& address);
/// The link of `address` into `g` (pcie_* fields).
void fill_pcie_link(const sysroot& sys, const std::string& address, gpu_info& g);

/// "1002:7551" from vendor and device.
std::string pci_id_text(uint32_t vendor, uint32_t device);

}  // namespace gs
