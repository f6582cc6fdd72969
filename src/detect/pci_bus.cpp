// PCI bus enumeration for GPU detection (see pci_bus.h).
#include "detect/pci_bus.h"

#include "detect/read_issue.h"
#include "core/text_scan.h"

#include <cstdlib>

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

namespace {

/// "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s PCIe" -> GT/s; 0 for "Unknown" or garbage.
double parse_gts(const std::optional<std::string>& text) {
  if (!text) return 0;
  std::string t(scan::trim(*text));
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  return end != t.c_str() && v > 0 && v < 1000 ? v : 0;
}

int parse_lanes(const std::optional<std::string>& text) {
  if (!text) return 0;
  auto v = scan::parse_u64(scan::trim(*text));
  return v && *v > 0 && *v <= 32 ? static_cast<int>(*v) : 0;
}

}  // namespace

std::optional<pci_chain> read_pci_chain(const sysroot& sys, const std::string& address) {
  std::optional<std::string> link = sys.readlink("/sys/bus/pci/devices/" + address);
  size_t at = link ? link->find("devices/") : std::string::npos;
  if (at == std::string::npos) return std::nullopt;
  pci_chain c;
  for (std::string_view part : scan::split(std::string_view(*link).substr(at + 8), '/')) {
    if (part.empty()) continue;
    if (part.starts_with("pci")) c.root = std::string(part);  // "pci0000:00" is the root bus itself
    else c.devices.push_back(std::string(part));
  }
  if (c.devices.empty()) return std::nullopt;
  return c;
}

pcie_path_link read_pcie_path(const sysroot& sys, const std::string& address) {
  pcie_path_link out;
  std::vector<std::string> dirs;
  if (std::optional<pci_chain> chain = read_pci_chain(sys, address)) {
    // The devices' directories nest: /sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/...
    std::string path = "/sys/devices" + (chain->root.empty() ? "" : "/" + chain->root);
    for (const std::string& d : chain->devices) dirs.push_back(path += "/" + d);
  } else {
    dirs.push_back("/sys/bus/pci/devices/" + address);
  }
  for (const std::string& dir : dirs) {
    int w = parse_lanes(sys.read_text(dir + "/current_link_width"));
    int mw = parse_lanes(sys.read_text(dir + "/max_link_width"));
    double s = parse_gts(sys.read_text(dir + "/current_link_speed"));
    double ms = parse_gts(sys.read_text(dir + "/max_link_speed"));
    if (w && (!out.width || w < out.width)) {
      out.width = w;
      out.narrowest = dir.substr(dir.rfind('/') + 1);
    }
    if (mw && (!out.max_width || mw < out.max_width)) out.max_width = mw;
    if (s > 0 && (out.gts == 0 || s < out.gts)) out.gts = s;
    if (ms > 0 && (out.max_gts == 0 || ms < out.max_gts)) out.max_gts = ms;
  }
  return out;
}

void fill_pcie_link(const sysroot& sys, const std::string& address, gpu_info& g) {
  if (address.empty()) return;
  pcie_path_link l = read_pcie_path(sys, address);
  g.pcie_width = l.width;
  g.pcie_max_width = l.max_width;
  g.pcie_gts = l.gts;
  g.pcie_max_gts = l.max_gts;
  g.pcie_narrowest = l.narrowest;
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
