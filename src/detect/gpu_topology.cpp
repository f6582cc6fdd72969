// The GPUs' places in the machine and the links between them (gpu_topology.h).
#include "detect/gpu_topology.h"

#include <algorithm>
#include <set>

#include "core/text_scan.h"
#include "detect/path_util.h"
#include "detect/pci_bus.h"

namespace gs {
namespace {

uint32_t le(std::string_view b, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + size_t(i)]);
  return v;
}

void read_gpu_place(const sysroot& sys, gpu_info& g) {
  if (g.pci_address.empty()) return;
  const std::string dev = "/sys/bus/pci/devices/" + g.pci_address;
  if (std::optional<pci_chain> c = read_pci_chain(sys, g.pci_address)) {
    g.pcie_root = c->root;
    g.pcie_bridges.assign(c->devices.begin(), c->devices.end() - 1);  // all but the GPU itself
  }
  if (auto n = sys.read_text(dev + "/numa_node"))  // "-1" without NUMA
    if (auto v = scan::parse_u64(*n); v && *v < 1024) g.numa_node = int(*v);
  // The group link exists only when an IOMMU is on; its type says whether it translates.
  if (auto group = sys.readlink(dev + "/iommu_group")) {
    auto type = sys.read_text("/sys/kernel/iommu_groups/" + path_basename(*group) + "/type");
    g.iommu_group_type = type ? std::string(scan::trim(*type)) : "unknown";
  }
  if (g.vendor == "amd")
    if (auto hive = sys.read_text(dev + "/xgmi_hive_info/xgmi_hive_id")) {
      std::string h(scan::trim(*hive));
      if (!h.empty() && h != "0") g.xgmi_hive = h;
    }
}

/// "translated" when any GPU's IOMMU group translates DMA, "passthrough" when every GPU's group
/// is identity, "off" when no GPU has a group and the kernel lists no IOMMU unit (`no_units`:
/// /sys/class/iommu is there and empty; a capture that never looked says nothing), "" otherwise.
std::string gpus_iommu(const std::vector<gpu_info>& gpus, bool no_units) {
  bool any_read = false, any_translated = false, all_identity = true, any_group = false;
  for (const gpu_info& g : gpus) {
    if (g.pcie_root.empty()) continue;
    any_read = true;
    if (g.iommu_group_type.empty()) {
      all_identity = false;
      continue;
    }
    any_group = true;
    if (g.iommu_group_type.rfind("DMA", 0) == 0) any_translated = true;
    if (g.iommu_group_type != "identity") all_identity = false;
  }
  if (!any_read) return "";
  if (any_translated) return "translated";
  if (any_group && all_identity) return "passthrough";
  return any_group || !no_units ? "" : "off";
}

}  // namespace

int gpu_link_rank(std::string_view kind) {
  static const char* order[] = {"XGMI", "PIX", "PXB", "PHB", "NODE", "SYS"};
  for (int i = 0; i < 6; ++i)
    if (kind == order[i]) return i;
  return -1;
}

std::string gpu_link_kind(const gpu_info& a, const gpu_info& b) {
  if (a.vendor == "amd" && b.vendor == "amd" && !a.xgmi_hive.empty() && a.xgmi_hive == b.xgmi_hive) return "XGMI";
  if (a.pcie_root.empty() || b.pcie_root.empty()) return "";
  if (a.pcie_root != b.pcie_root) {
    // numa_node reads -1 on a machine with one node: both -1 is one node too.
    return a.numa_node >= 0 && b.numa_node >= 0 && a.numa_node != b.numa_node ? "SYS" : "NODE";
  }
  size_t common = 0;
  while (common < a.pcie_bridges.size() && common < b.pcie_bridges.size() &&
         a.pcie_bridges[common] == b.pcie_bridges[common])
    ++common;
  if (common == 0) return "PHB";  // they meet at the host bridge
  // Under one switch: each GPU one downstream port below the deepest bridge they share.
  return a.pcie_bridges.size() == common + 1 && b.pcie_bridges.size() == common + 1 ? "PIX" : "PXB";
}

std::optional<uint16_t> acs_control(std::string_view config) {
  if (config.size() < 0x104) return std::nullopt;
  size_t at = 0x100;
  for (int hops = 0; hops < 96; ++hops) {  // the list is at most (4096 - 256) / 4 entries; guard loops
    if (at + 8 > config.size()) return std::nullopt;
    uint32_t header = le(config, at, 4);
    if (header == 0 || header == 0xffffffffu) return 0;
    if ((header & 0xffff) == 0x000d) return static_cast<uint16_t>(le(config, at + 6, 2));
    size_t next = (header >> 20) & 0xffc;
    if (next < 0x100 || next <= at) return 0;
    at = next;
  }
  return 0;
}

void detect_gpu_topology(const sysroot& sys, machine_facts& facts) {
  for (gpu_info& g : facts.gpus) read_gpu_place(sys, g);
  topology_info& t = facts.topology;
  t = topology_info{};
  if (facts.gpus.size() < 2) return;
  std::set<int> nodes;
  for (const gpu_info& g : facts.gpus)
    if (g.numa_node >= 0) nodes.insert(g.numa_node);
  t.numa_nodes = int(nodes.size());
  int err = 0;
  bool no_units = sys.list("/sys/class/iommu", &err).empty() && err == 0 && sys.is_dir("/sys/class/iommu");
  t.iommu = gpus_iommu(facts.gpus, no_units);
  for (size_t i = 0; i < facts.gpus.size(); ++i)
    for (size_t j = i + 1; j < facts.gpus.size(); ++j) {
      std::string kind = gpu_link_kind(facts.gpus[i], facts.gpus[j]);
      if (kind.empty()) continue;
      if (gpu_link_rank(kind) > gpu_link_rank(t.worst)) t.worst = kind;
      t.pairs.push_back({int(i), int(j), kind});
    }
  // ACS on the bridges above the GPUs: read only where the whole config space is readable.
  std::set<std::string> bridges;
  for (const gpu_info& g : facts.gpus) bridges.insert(g.pcie_bridges.begin(), g.pcie_bridges.end());
  bool all_read = !bridges.empty();
  for (const std::string& b : bridges) {
    read_result r = sys.read("/sys/bus/pci/devices/" + b + "/config", 4096);
    std::optional<uint16_t> ctl = r.text ? acs_control(*r.text) : std::nullopt;
    if (!ctl) {
      all_read = false;
      continue;
    }
    if (*ctl & acs_redirect_bits) t.acs_redirect.push_back(b);
  }
  t.acs_read = all_read;
}

}  // namespace gs
