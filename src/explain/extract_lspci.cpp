// GPUs by PCI id in a paste: `lspci` / `lspci -nn` lines ("03:00.0 VGA compatible controller
// [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 48 [Radeon RX 9070/9070 XT/9070 GRE]
// [1002:7550] (rev c0)") and the kernel's "initializing kernel modesetting (IP DISCOVERY
// 0x1002:0x7550 ...)". The id goes through the tables live detection names cards with
// (matrix/hardware/amd_gpus.toml, nvidia_gpus.toml); an id they lack falls back to the chip or
// product words of the same line ("Topaz XT [Radeon R7 M260/...]", "AD102 [GeForce RTX 4090]",
// gpu_names.toml). The id decides first: a pci.ids older than the card prints "Device 7550".
// Such a listing is the machine's own (tool output), so it outweighs GPUs named in prose.
#include <algorithm>
#include <cctype>
#include <optional>

#include "core/text_scan.h"
#include "detect/gpu_tables.h"
#include "explain/gpu_names.h"
#include "explain/paste_scan.h"

namespace gs {
namespace {

constexpr std::string_view kClasses[] = {"vga compatible controller", "display controller", "3d controller",
                                         "processing accelerators"};

/// The four hex digits at `at`, not running on into a fifth: a PCI device id.
std::optional<uint32_t> hex4(std::string_view s, size_t at) {
  if (at + 4 > s.size() || (at + 4 < s.size() && std::isxdigit(static_cast<unsigned char>(s[at + 4])))) return std::nullopt;
  const std::string_view digits = s.substr(at, 4);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  return static_cast<uint32_t>(*scan::parse_hex(digits));
}

/// "[1002:7550]" or "0x1002:0x7550" in the lower-cased line: the vendor ("amd"/"nvidia") and device id.
std::optional<std::pair<std::string_view, uint32_t>> pci_id(std::string_view lower) {
  for (auto [vendor, tag] : {std::pair<std::string_view, std::string_view>{"amd", "1002:"}, {"nvidia", "10de:"}}) {
    for (size_t p = lower.find(tag); p != std::string_view::npos; p = lower.find(tag, p + 1)) {
      if (p > 0 && lower[p - 1] == '[')
        if (auto dev = hex4(lower, p + 5)) return std::pair{vendor, *dev};
      if (p >= 2 && lower.compare(p - 2, 2, "0x") == 0 && lower.compare(p + 5, 2, "0x") == 0)
        if (auto dev = hex4(lower, p + 7)) return std::pair{vendor, *dev};
    }
  }
  return std::nullopt;
}

/// lspci's "(rev c3)": AMD names differ by revision.
std::optional<uint32_t> revision(std::string_view lower) {
  size_t p = lower.find("(rev ");
  if (p == std::string_view::npos || p + 7 > lower.size() || !std::isxdigit(static_cast<unsigned char>(lower[p + 5])) ||
      !std::isxdigit(static_cast<unsigned char>(lower[p + 6])))
    return std::nullopt;
  return static_cast<uint32_t>(*scan::parse_hex(lower.substr(p + 5, 2)));
}

/// The table's arch for a device id: the exact (id, revision) entry, else the id's entries when
/// they all agree (every revision of an AMD id is the same chip).
const gpu_table_entry* by_id(const std::vector<gpu_table_entry>& table, uint32_t dev, std::optional<uint32_t> rev) {
  if (const gpu_table_entry* e = find_gpu(table, dev, rev)) return e;
  const gpu_table_entry* first = nullptr;
  for (const gpu_table_entry& e : table) {
    if (e.device != dev) continue;
    if (first && first->arch != e.arch) return nullptr;
    if (!first) first = &e;
  }
  return first;
}

/// rocm-smi's concise table (ROCm 6): a header "Device  Node  IDs ..." over "(DID,     GUID)", then
/// one row per GPU, "0       1     0x744c,   58112  31.0°C  21.0W ..." (ollama/ollama#6105): the
/// third field is the device id. Returns the index of the table's last row.
size_t rocm_smi_concise(paste_scan& s, size_t i, const gpu_tables& tables) {
  if (s.lines[i].find("(DID,") == std::string::npos) return i;
  size_t j = i + 1;
  bool every_row_named = true;  // the list is whole only when the tables know every id on it
  for (; j < s.lines.size(); ++j) {
    std::vector<std::string_view> f = scan::fields(s.lines[j]);
    if (f.empty() || f[0].find("====") != std::string_view::npos) continue;
    if (f.size() < 3 || !scan::parse_u64(f[0]) || f[2].rfind("0x", 0) != 0) break;
    s.kind("rocm-smi");
    const std::string lower = lower_copy(f[2]);
    auto dev = hex4(lower, 2);
    const gpu_table_entry* e = dev ? by_id(tables.amd, *dev, std::nullopt) : nullptr;
    if (e) s.gpus.push_back({e->arch, e->name, j, "rocm-smi", weight::tool_output});
    every_row_named = every_row_named && e;
  }
  if (j > i + 1 && every_row_named) s.gpu_list = true;
  return j - 1;
}

}  // namespace

void scan_pci_listing(paste_scan& s) {
  const gpu_tables& tables = builtin_gpu_tables();
  for (size_t i = 0; i < s.lines.size(); ++i) {
    if (size_t last = rocm_smi_concise(s, i, tables); last != i) {
      i = last;
      continue;
    }
    const std::string lower = lower_copy(s.lines[i]);
    bool lspci = false;
    for (std::string_view c : kClasses) lspci = lspci || lower.find(c) != std::string::npos;
    const bool modesetting = lower.find("initializing kernel modesetting") != std::string::npos;
    if (!lspci && !modesetting) continue;
    const bool amd = lower.find("[amd/ati]") != std::string::npos || lower.find("advanced micro devices") != std::string::npos;
    const bool nvidia = lower.find("nvidia corporation") != std::string::npos;
    auto id = pci_id(lower);
    if (!id && !(lspci && (amd || nvidia))) continue;
    if (lspci) s.kind("lspci");
    std::string arch, name;
    if (id) {
      const auto& table = id->first == "amd" ? tables.amd : tables.nvidia;
      if (const gpu_table_entry* e = by_id(table, id->second, revision(lower))) {
        arch = e->arch;
        name = e->name;
      }
    }
    if (arch.empty() && lspci) {
      // The words after the vendor: chip code name first, then the bracketed product list.
      const size_t v = lower.find(amd ? (lower.find("[amd/ati]") != std::string::npos ? "[amd/ati]" : "advanced micro devices")
                                      : "nvidia corporation");
      if (v == std::string::npos) continue;
      const std::string_view rest = std::string_view(s.lines[i]).substr(v);
      std::vector<gpu_name_hit> hits = find_gpu_names(rest);
      if (hits.empty() || vendor_of_arch(hits.front().arch) != (amd ? "amd" : "nvidia")) continue;
      arch = hits.front().arch;
      name = hits.front().text;
    }
    if (!arch.empty()) s.gpus.push_back({arch, name, i, lspci ? "lspci" : "dmesg", weight::tool_output});
  }
}

}  // namespace gs
