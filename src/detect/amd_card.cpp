// amdgpu sysfs card state (amd_card.h). File formats from the kernel's amdgpu_pm.c and
// amdgpu_ras.c documentation: hwmon power in microwatts, temperature in millidegrees C,
// pp_dpm_* one line per DPM level with the current one starred, ras/*_err_count "ue: N\nce: N".
#include "detect/amd_card.h"

#include "core/text_scan.h"

#include <cstdlib>

namespace gs {
namespace {

std::optional<double> read_number(const sysroot& sys, const std::string& path) {
  auto t = sys.read_text(path);
  if (!t) return std::nullopt;
  std::string s(scan::trim(*t));
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') return std::nullopt;
  return v;
}

std::string read_word(const sysroot& sys, const std::string& path) {
  auto t = sys.read_text(path);
  if (!t) return {};
  std::string_view w = scan::trim(*t);
  return scan::printable(w) ? std::string(w) : std::string();
}

/// The card's hwmon directory ("DEV/hwmon/hwmon3"); amdgpu registers exactly one.
std::string hwmon_dir(const sysroot& sys, const std::string& dev) {
  for (const std::string& n : sys.list(dev + "/hwmon"))
    if (n.starts_with("hwmon")) return dev + "/hwmon/" + n;
  return {};
}

/// "ue: 3\nce: 12" -> 3 (uncorrectable); nullopt when absent or malformed.
std::optional<double> ras_uncorrectable(const sysroot& sys, const std::string& path) {
  auto t = sys.read_text(path);
  if (!t) return std::nullopt;
  for (std::string_view line : scan::lines(*t)) {
    line = scan::trim(line);
    if (!line.starts_with("ue:")) continue;
    if (auto v = scan::parse_u64(scan::trim(line.substr(3)))) return double(*v);
  }
  return std::nullopt;
}

}  // namespace

bool parse_dpm_levels(std::string_view text, double* now, double* max) {
  bool any = false;
  for (std::string_view line : scan::lines(text)) {
    // "1: 1800Mhz *": the level index, the clock, the star on the level in use.
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string rest(scan::trim(line.substr(colon + 1)));
    char* end = nullptr;
    double mhz = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str() || mhz <= 0) continue;
    std::string_view unit(end);
    if (!scan::lower(unit.substr(0, 3)).starts_with("mhz")) continue;
    any = true;
    if (mhz > *max) *max = mhz;
    if (unit.find('*') != std::string_view::npos) *now = mhz;
  }
  return any;
}

void read_amd_card_live(const sysroot& sys, const std::string& dev, card_state& c) {
  auto dpm = [&](const char* file, std::optional<double>& now, std::optional<double>& max) {
    auto t = sys.read_text(dev + "/" + file);
    double n = 0, m = 0;
    if (!t || !parse_dpm_levels(*t, &n, &m)) return;
    if (n > 0) now = n;
    max = m;
  };
  dpm("pp_dpm_sclk", c.clock_sm_mhz, c.clock_sm_max_mhz);
  dpm("pp_dpm_mclk", c.clock_mem_mhz, c.clock_mem_max_mhz);
  if (auto b = read_number(sys, dev + "/gpu_busy_percent")) c.busy_percent = *b;
  std::string hw = hwmon_dir(sys, dev);
  if (hw.empty()) return;
  // RDNA3+ report power1_input (instantaneous); older parts power1_average.
  auto p = read_number(sys, hw + "/power1_input");
  if (!p) p = read_number(sys, hw + "/power1_average");
  if (p) c.power_w = *p / 1e6;
  if (auto t = read_number(sys, hw + "/temp1_input")) c.temp_c = *t / 1000.0;
}

void read_amd_card(const sysroot& sys, const std::string& dev, card_state& c) {
  read_amd_card_live(sys, dev, c);
  if (std::string hw = hwmon_dir(sys, dev); !hw.empty()) {
    if (auto v = read_number(sys, hw + "/power1_cap")) c.power_limit_w = *v / 1e6;
    if (auto v = read_number(sys, hw + "/power1_cap_default")) c.power_default_limit_w = *v / 1e6;
  }
  c.perf_level = read_word(sys, dev + "/power_dpm_force_performance_level");
  if (auto v = read_number(sys, dev + "/mem_info_vram_used")) c.vram_used_bytes = *v;
  if (auto v = read_number(sys, dev + "/mem_info_vram_total")) c.vram_total_bytes = *v;
  // RAS counters exist only where the board has RAS (Instinct, some Radeon PRO): an absent
  // directory is "no counters", not zero errors.
  std::optional<double> ue;
  for (const std::string& n : sys.list(dev + "/ras")) {
    if (!n.ends_with("_err_count")) continue;
    if (auto v = ras_uncorrectable(sys, dev + "/ras/" + n)) ue = ue.value_or(0) + *v;
  }
  if (ue) c.ecc_uncorrected = ue;
  c.compute_partition = read_word(sys, dev + "/current_compute_partition");
  c.vbios = read_word(sys, dev + "/vbios_version");
  if (c.clock_sm_mhz || c.clock_sm_max_mhz || c.power_w || c.temp_c || c.busy_percent || !c.perf_level.empty() ||
      c.vram_used_bytes || !c.vbios.empty())
    c.source = "sysfs";
}

void detect_amd_cards(const sysroot& sys, machine_facts& facts) {
  for (gpu_info& g : facts.gpus)
    if (g.vendor == "amd" && !g.pci_address.empty()) read_amd_card(sys, "/sys/bus/pci/devices/" + g.pci_address, g.card);
}

}  // namespace gs
