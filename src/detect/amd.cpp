// detect_amd: amdgpu module state, GPUs from the KFD topology (the arch comes from KFD's
// gfx_target_version, which HSA_OVERRIDE_GFX_VERSION cannot fake), enriched from DRM
// (/sys/class/drm/cardN/device: revision, VRAM, unique_id) and named from
// matrix/hardware/amd_gpus.toml; then AMD display functions on the PCI bus that KFD did not
// show, each with the reason (driver not loaded, bound elsewhere, hidden by a container).
#include <cerrno>
#include <set>

#include "detect/detect.h"
#include "detect/gpu_tables.h"
#include "detect/kfd_topology.h"
#include "detect/pci_bus.h"
#include "detect/read_issue.h"
#include "core/text_scan.h"

namespace gs {
namespace {

constexpr uint32_t kAmdVendor = 0x1002;

void read_module(const sysroot& sys, machine_facts& facts) {
  stack_info& st = facts.stack;
  if (auto init = read_or_issue(sys, "/sys/module/amdgpu/initstate", facts, true)) {
    st.amdgpu_initstate.assign(scan::trim(*init));
    st.amdgpu_loaded = st.amdgpu_initstate == "live";
    if (!st.amdgpu_loaded)
      add_issue(facts, "/sys/module/amdgpu/initstate",
                "amdgpu is '" + st.amdgpu_initstate + "', not 'live' (still loading or unloading)");
  } else {
    // rocminfo's fallback: a built-in (=y) driver has no initstate, only the directory.
    st.amdgpu_loaded = sys.is_dir("/sys/module/amdgpu");
  }
  // Only the out-of-tree DKMS driver has a version file; the in-kernel one has none (1.8).
  if (auto v = read_or_issue(sys, "/sys/module/amdgpu/version", facts, true)) {
    std::string_view t = scan::trim(*v);
    if (scan::printable(t)) st.amdgpu_version.assign(t);
    else add_issue(facts, "/sys/module/amdgpu/version", "not text");
  }
}

struct drm_card {
  std::string address;  ///< PCI address the card's device link resolves to
  std::string dir;      ///< "/sys/class/drm/card1/device"
  pci_function pci;
  uint64_t vram_total = 0;
  std::string unique_id;
  std::string product_name;  ///< FRU EEPROM, usually only on Instinct boards
};

std::string basename_of(const std::string& p) {
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

/// AMD DRM cards by PCI address. Only card[0-9]+: "card0-DP-1" entries are connectors.
std::vector<drm_card> read_drm_cards(const sysroot& sys, machine_facts& facts) {
  std::vector<drm_card> out;
  for (const std::string& name : sys.list("/sys/class/drm")) {
    if (name.size() < 5 || !name.starts_with("card") || !scan::parse_u64(name.substr(4))) continue;
    std::string dir = "/sys/class/drm/" + name + "/device";
    auto vendor = sys.read_text(dir + "/vendor");
    if (!vendor || scan::parse_hex(*vendor).value_or(0) != kAmdVendor) continue;
    drm_card c;
    c.dir = dir;
    c.address = basename_of(sys.realpath(dir));
    if (c.address == "device")  // the link did not resolve: uevent names the slot too
      if (auto ue = sys.read_text(dir + "/uevent"))
        for (std::string_view line : scan::lines(*ue))
          if (line.starts_with("PCI_SLOT_NAME=")) c.address.assign(scan::trim(line.substr(14)));
    c.pci = read_pci_function(sys, dir, c.address, facts);
    if (auto t = read_or_issue(sys, dir + "/mem_info_vram_total", facts, true)) {
      if (auto v = scan::parse_u64(*t)) c.vram_total = *v;
      else add_issue(facts, dir + "/mem_info_vram_total", "not a decimal number");
    }
    if (auto u = sys.read_text(dir + "/unique_id")) {
      std::string_view t = scan::trim(*u);
      if (auto v = scan::parse_hex(t); v && *v) c.unique_id.assign(t);
    }
    if (auto p = sys.read_text(dir + "/product_name")) {
      std::string_view t = scan::trim(*p);
      if (scan::printable(t)) c.product_name.assign(t);
    }
    out.push_back(std::move(c));
  }
  return out;
}

void apply_table(const gpu_tables& tables, gpu_info& g, uint32_t device, std::optional<uint32_t> rev,
                 bool fill_figures) {
  const gpu_table_entry* e = find_gpu(tables.amd, device, rev);
  if (!e) return;
  g.name = e->name;
  if (!fill_figures) return;
  // Only for a GPU no driver describes (source "pci"): the table is then the sole source.
  if (g.arch.empty()) g.arch = e->arch;
  if (!g.compute_units) g.compute_units = e->compute_units;
  if (!g.vram_bytes) g.vram_bytes = e->vram_bytes;
}

void apply_family(const gpu_tables& tables, gpu_info& g) {
  if (const arch_family* f = find_amd_family(tables, g.arch)) {
    g.family = f->family;
    if (!g.wave_size) g.wave_size = f->wave_size;
  }
}

gpu_info gpu_from_kfd(const kfd_node& n, const std::string& topo_root, const std::vector<drm_card>& cards,
                      const gpu_tables& tables, const sysroot& sys, machine_facts& facts) {
  const kfd_properties& p = n.props;
  gpu_info g;
  g.vendor = "amd";
  g.source = "kfd";
  g.kfd_node = n.index;
  g.gfx_target_version = static_cast<uint32_t>(p.get_or("gfx_target_version", 0));
  g.arch = gfx_name(g.gfx_target_version);
  std::string props_path = topo_root + "/nodes/" + std::to_string(n.index) + "/properties";
  if (g.arch.empty()) add_issue(facts, props_path, "no gfx_target_version: the GPU's arch is unknown");
  uint64_t wave = p.get_or("wave_front_size", 0);
  g.wave_size = (wave == 32 || wave == 64) ? static_cast<int>(wave) : 0;
  uint64_t simds = p.get_or("simd_count", 0), per_cu = p.get_or("simd_per_cu", 0);
  if (per_cu > 0 && simds / per_cu < 100000) g.compute_units = static_cast<int>(simds / per_cu);
  uint32_t vendor = static_cast<uint32_t>(p.get_or("vendor_id", kAmdVendor) & 0xffff);
  uint32_t device = static_cast<uint32_t>(p.get_or("device_id", 0) & 0xffff);
  if (auto loc = p.get("location_id")) {
    g.pci_address = pci_address_from_location(p.get_or("domain", 0), *loc);
    // MI300-class partitions OR their node id into location_id's function bits, so each
    // partition of 0000:05:00.0 reads as 05:00.<n>. A dGPU is function 0: use that device.
    std::string fn0 = pci_address_from_location(p.get_or("domain", 0), *loc & ~uint64_t{7});
    if (fn0 != g.pci_address && !sys.exists("/sys/bus/pci/devices/" + g.pci_address) &&
        sys.exists("/sys/bus/pci/devices/" + fn0))
      g.pci_address = fn0;
  }
  uint64_t minor = p.get_or("drm_render_minor", 0);
  if (minor > 0 && minor < (1u << 20)) g.render_minor = static_cast<int>(minor);
  g.vram_bytes = n.vram_bytes();
  std::optional<uint32_t> revision;
  const drm_card* card = nullptr;
  for (const drm_card& c : cards)
    if (!g.pci_address.empty() && c.address == g.pci_address) card = &c;
  if (card) {
    if (!device) device = card->pci.device;
    if (card->pci.revision || card->pci.device) revision = card->pci.revision;
    if (!g.vram_bytes) g.vram_bytes = card->vram_total;  // heap banks unreadable: DRM agrees on VRAM
    g.serial = card->unique_id;
  } else if (!g.pci_address.empty()) {
    // No DRM card (render-only node, or sysfs trimmed in a container): the PCI device has it.
    std::string dir = "/sys/bus/pci/devices/" + g.pci_address;
    if (auto r = sys.read_text(dir + "/revision"))
      if (auto v = scan::parse_hex(*r)) revision = static_cast<uint32_t>(*v & 0xff);
  }
  if (g.serial.empty())
    if (uint64_t uid = p.get_or("unique_id", 0)) g.serial = scan::hex(uid, 16);
  if (device) g.pci_id = pci_id_text(vendor, device);
  if (revision) g.pci_revision = scan::hex(*revision, 2);
  apply_table(tables, g, device, revision, false);
  if (g.name.empty() && card && !card->product_name.empty()) g.name = card->product_name;
  if (g.name.empty()) g.name = g.arch.empty() ? "AMD GPU" : "AMD " + g.arch + " GPU";
  apply_family(tables, g);
  return g;
}

std::string why_not_in_kfd(const pci_function& f, const machine_facts& facts, const kfd_topology& topo) {
  if (!f.driver.empty() && f.driver != "amdgpu")
    return "bound to " + f.driver + ", not amdgpu: no ROCm runtime can use it";
  if (!facts.stack.amdgpu_loaded)
    return "the amdgpu kernel driver is not loaded: the GPU is on the PCI bus but unusable "
           "(modprobe amdgpu; check dmesg)";
  for (const kfd_node& n : topo.nodes)
    if (n.properties_err == EPERM)
      return "its KFD node is hidden (EPERM): the container's device cgroup does not expose this "
             "GPU (docker run --device=/dev/kfd --device=/dev/dri)";
  if (!topo.present)
    return "amdgpu is loaded but there is no KFD topology (/sys/class/kfd): compute is disabled "
           "for this GPU or kernel";
  return "amdgpu is loaded but KFD lists no node for this GPU (unsupported by this kernel's KFD?)";
}

}  // namespace

void detect_amd(const sysroot& sys, machine_facts& facts) {
  const gpu_tables& tables = builtin_gpu_tables();
  read_module(sys, facts);
  kfd_topology topo = read_kfd_topology(sys);
  facts.issues.insert(facts.issues.end(), topo.issues.begin(), topo.issues.end());
  std::vector<drm_card> cards = read_drm_cards(sys, facts);

  std::set<std::string> seen;     // PCI addresses KFD accounted for
  std::vector<uint32_t> unplaced; // device ids of KFD GPUs whose address was cut off
  for (const kfd_node& n : topo.nodes) {
    if (!n.is_gpu()) continue;
    gpu_info g = gpu_from_kfd(n, topo.root, cards, tables, sys, facts);
    if (g.pci_address.empty()) unplaced.push_back(static_cast<uint32_t>(n.props.get_or("device_id", 0)));
    else seen.insert(g.pci_address);
    facts.gpus.push_back(std::move(g));
  }

  for (const pci_function& f : list_pci_gpus(sys, kAmdVendor, facts)) {
    if (seen.count(f.address)) continue;
    // A KFD GPU whose properties lost location_id still is this device: do not count it twice.
    bool placed = false;
    for (auto it = unplaced.begin(); it != unplaced.end(); ++it)
      if (*it == f.device || *it == 0) {
        unplaced.erase(it);
        placed = true;
        break;
      }
    if (placed) continue;
    gpu_info g;
    g.vendor = "amd";
    g.source = "pci";
    g.pci_address = f.address;
    g.pci_id = pci_id_text(f.vendor, f.device);
    g.pci_revision = scan::hex(f.revision, 2);
    apply_table(tables, g, f.device, f.revision, true);
    if (g.name.empty()) g.name = "AMD GPU";
    apply_family(tables, g);
    add_issue(facts, "/sys/bus/pci/devices/" + f.address, "AMD GPU " + g.pci_id + " (" + g.name + ") " +
                                                              why_not_in_kfd(f, facts, topo));
    facts.gpus.push_back(std::move(g));
  }
}

}  // namespace gs
