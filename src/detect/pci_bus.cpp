// PCI bus enumeration for GPU detection (see pci_bus.h).
#include "detect/pci_bus.h"

#include "detect/read_issue.h"
#include "core/text_scan.h"

namespace gs {
namespace {

/// A hex attribute ("0x1002\n"); 0 and an issue when it is unreadable or not hex.
uint32_t read_hex_attr(const sysroot& sys, const std::string& path, machine_facts& facts) {
  auto t = read_or_issue(sys, path, facts, false);
  if (!t) return 0;
  auto v = scan::parse_hex(*t);
  if (!v || *v > 0xffffffffu) {
    add_issue(facts, path, "not a hex number");
    return 0;
  }
  return static_cast<uint32_t>(*v);
}

}  // namespace

std::string pci_id_text(uint32_t vendor, uint32_t device) {
  return scan::hex(vendor, 4) + ":" + scan::hex(device, 4);
}

pci_function read_pci_function(const sysroot& sys, const std::string& dir, const std::string& address,
                               machine_facts& facts) {
  pci_function f;
  f.address = address;
  f.vendor = read_hex_attr(sys, dir + "/vendor", facts);
  f.device = read_hex_attr(sys, dir + "/device", facts);
  f.revision = read_hex_attr(sys, dir + "/revision", facts);
  if (auto link = sys.readlink(dir + "/driver")) {
    size_t slash = link->rfind('/');
    f.driver = slash == std::string::npos ? *link : link->substr(slash + 1);
  }
  return f;
}

std::vector<pci_function> list_pci_gpus(const sysroot& sys, uint32_t vendor, machine_facts& facts) {
  std::vector<pci_function> out;
  const std::string base = "/sys/bus/pci/devices";
  for (const std::string& addr : sys.list(base)) {
    std::string dir = base + "/" + addr;
    // Read vendor and class first and quietly: a box has dozens of bridges and NICs whose
    // attributes are none of our business.
    auto v = sys.read_text(dir + "/vendor");
    if (!v || scan::parse_hex(*v).value_or(0) != vendor) continue;
    auto c = sys.read_text(dir + "/class");
    auto cls = c ? scan::parse_hex(*c) : std::nullopt;
    // 0x03 display (VGA 0x0300, 3D 0x0302, other 0x0380); 0x12 processing accelerator, which is
    // how Instinct MI300 boards enumerate ("Processing accelerators: ... [Instinct MI300X]").
    uint64_t base_class = cls ? (*cls >> 16) & 0xff : 0;
    if (base_class != 0x03 && base_class != 0x12) continue;
    pci_function f = read_pci_function(sys, dir, addr, facts);
    f.pci_class = static_cast<uint32_t>(*cls);
    out.push_back(std::move(f));
  }
  return out;  // sysroot::list is sorted, and addresses are fixed-width hex
}

}  // namespace gs
