// KFD topology parsing and snapshotting (see kfd_topology.h).
#include "detect/kfd_topology.h"

#include <algorithm>
#include <cerrno>

#include "detect/read_issue.h"
#include "core/text_scan.h"

namespace gs {

std::optional<uint64_t> kfd_properties::get(std::string_view key) const {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

uint64_t kfd_properties::get_or(std::string_view key, uint64_t fallback) const {
  return get(key).value_or(fallback);
}

kfd_properties parse_kfd_properties(std::string_view text) {
  kfd_properties p;
  if (!text.empty() && text.back() != '\n') {
    // sysfs always ends a property with '\n'; a last line without it was cut mid-value
    // ("simd_count 12" of 128), so trusting it would be worse than not knowing it.
    p.truncated = true;
    size_t nl = text.rfind('\n');
    text = (nl == std::string_view::npos) ? std::string_view{} : text.substr(0, nl + 1);
  }
  for (std::string_view line : scan::lines(text)) {
    if (scan::trim(line).empty()) continue;
    size_t sp = line.find(' ');
    if (sp == std::string_view::npos || sp == 0) {
      ++p.malformed_lines;
      continue;
    }
    std::string_view key = line.substr(0, sp);
    // Keys are C identifiers; anything else is junk, not a new kernel key.
    bool ident = std::all_of(key.begin(), key.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
    auto v = scan::parse_u64_or_negative(line.substr(sp + 1));
    if (!ident || !v) {
      ++p.malformed_lines;
      continue;
    }
    p.values[std::string(key)] = *v;
  }
  return p;
}

std::string gfx_name(uint64_t v) {
  if (v == 0) return "";
  // libhsakmt: major = (v/10000)%100, minor = (v/100)%100, step = v%100. LLVM's offload-arch
  // prints the stepping in hex (90010 -> gfx90a); minor is < 10 on every real target.
  uint64_t major = (v / 10000) % 100, minor = (v / 100) % 100, step = v % 100;
  return "gfx" + std::to_string(major) + scan::hex(minor, 1) + scan::hex(step, 1);
}

std::string pci_address_from_location(uint64_t domain, uint64_t location_id) {
  uint64_t bus = (location_id >> 8) & 0xff, dev = (location_id >> 3) & 0x1f, fn = location_id & 7;
  return scan::hex(domain & 0xffff, 4) + ":" + scan::hex(bus, 2) + ":" + scan::hex(dev, 2) + "." +
         scan::hex(fn, 1);
}

bool kfd_node::is_gpu() const {
  auto gfx = props.get("gfx_target_version");
  bool compute = props.get_or("simd_count", 0) > 0 || gpu_id != 0;
  // A truncated file may end before gfx_target_version: absent is "unknown", not "CPU".
  return compute && (!gfx || *gfx != 0);
}

uint64_t kfd_node::vram_bytes() const {
  uint64_t total = 0;
  for (const kfd_mem_bank& b : mem_banks)
    if (b.heap_type == 1 || b.heap_type == 2) total += b.size_bytes;
  return total;
}

namespace {

std::optional<uint64_t> read_generation(const sysroot& sys, const std::string& root) {
  auto t = sys.read_text(root + "/generation_id");
  return t ? scan::parse_u64(*t) : std::nullopt;
}

void issue(kfd_topology& topo, std::string source, std::string message) {
  topo.issues.push_back({std::move(source), std::move(message)});
}

kfd_node read_node(const sysroot& sys, const std::string& dir, int index, kfd_topology& topo) {
  kfd_node n;
  n.index = index;
  if (auto g = sys.read_text(dir + "/gpu_id")) n.gpu_id = scan::parse_u64(*g).value_or(0);
  std::string props_path = dir + "/properties";
  read_result r = sys.read(props_path);
  if (!r) {
    n.properties_err = r.err;
    issue(topo, props_path, explain_errno(r.err));
    return n;
  }
  n.props = parse_kfd_properties(*r.text);
  if (n.props.truncated)
    issue(topo, props_path, "truncated: the last line has no newline and was ignored; " +
                                std::to_string(n.props.values.size()) + " keys parsed");
  if (n.props.malformed_lines > 0)
    issue(topo, props_path, std::to_string(n.props.malformed_lines) +
                                " malformed line(s) ignored (expected \"<key> <decimal>\")");
  if (!n.is_gpu()) return n;
  int err = 0;
  for (const std::string& b : sys.list(dir + "/mem_banks", &err)) {
    std::string bank_path = dir + "/mem_banks/" + b + "/properties";
    read_result br = sys.read(bank_path);
    if (!br) {
      issue(topo, bank_path, explain_errno(br.err));
      continue;
    }
    kfd_properties bp = parse_kfd_properties(*br.text);
    if (bp.truncated || bp.malformed_lines) issue(topo, bank_path, "malformed or truncated");
    if (auto size = bp.get("size_in_bytes"))
      n.mem_banks.push_back({bp.get_or("heap_type", 0), *size});
  }
  if (err && err != ENOENT) issue(topo, dir + "/mem_banks", explain_errno(err));
  return n;
}

bool scan_nodes(const sysroot& sys, kfd_topology& topo) {
  topo.nodes.clear();
  topo.issues.clear();
  std::string nodes_dir = topo.root + "/nodes";
  int err = 0;
  std::vector<std::pair<int, std::string>> names;
  for (const std::string& name : sys.list(nodes_dir, &err)) {
    auto idx = scan::parse_u64(name);
    if (idx && *idx < 4096) names.emplace_back(static_cast<int>(*idx), name);
  }
  if (err) {
    issue(topo, nodes_dir, explain_errno(err));
    return false;
  }
  std::sort(names.begin(), names.end());  // "10" after "9", not after "1"
  for (auto& [idx, name] : names) topo.nodes.push_back(read_node(sys, nodes_dir + "/" + name, idx, topo));
  return true;
}

}  // namespace

kfd_topology read_kfd_topology(const sysroot& sys) {
  kfd_topology topo;
  // /sys/class/kfd/kfd is a link to /sys/devices/virtual/kfd/kfd (libhsakmt reads the latter).
  for (const char* root : {"/sys/class/kfd/kfd/topology", "/sys/devices/virtual/kfd/kfd/topology"})
    if (sys.is_dir(root)) {
      topo.root = root;
      break;
    }
  if (topo.root.empty()) return topo;
  topo.present = true;
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto before = read_generation(sys, topo.root);
    if (!scan_nodes(sys, topo)) return topo;
    auto after = read_generation(sys, topo.root);
    if (before == after) return topo;
  }
  issue(topo, topo.root + "/generation_id",
        "topology kept changing during 3 scans (GPU hot-plug or reset?); the last scan is shown");
  return topo;
}

}  // namespace gs
