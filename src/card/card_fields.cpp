// The card_state field table (card_fields.h).
#include "card/card_fields.h"

namespace gs {

const std::vector<card_number_field>& card_number_fields() {
  using c = card_state;
  static const std::vector<card_number_field> t = {
      {"clock_sm_mhz", "shader clock now, MHz (NVIDIA SM clock; AMD sclk DPM level in use)", &c::clock_sm_mhz},
      {"clock_sm_max_mhz", "highest shader clock the card may run, MHz", &c::clock_sm_max_mhz},
      {"clock_mem_mhz", "memory clock now, MHz", &c::clock_mem_mhz},
      {"clock_mem_max_mhz", "highest memory clock, MHz", &c::clock_mem_max_mhz},
      {"power_w", "board power draw now, W", &c::power_w},
      {"power_limit_w", "power cap in force, W", &c::power_limit_w},
      {"power_default_limit_w", "power cap the card ships with, W", &c::power_default_limit_w},
      {"temp_c", "GPU temperature, degrees C", &c::temp_c},
      {"busy_percent", "utilisation now, percent", &c::busy_percent},
      {"pstate", "NVIDIA performance state: 0 (P0, fastest) .. 15", nullptr, &c::pstate},
      {"pcie_gen", "PCIe generation of the GPU's own link now, as the driver reports it", nullptr, &c::pcie_gen},
      {"pcie_max_gen", "highest PCIe generation of the GPU's own link", nullptr, &c::pcie_max_gen},
      {"pcie_lanes", "lanes of the GPU's own link now, as the driver reports it", nullptr, &c::pcie_lanes},
      {"pcie_max_lanes", "lanes the GPU's own link could train at", nullptr, &c::pcie_max_lanes},
      {"vram_used_bytes", "device memory in use (by any process, the driver's own share included)", &c::vram_used_bytes},
      {"vram_total_bytes", "device memory as the driver counts it", &c::vram_total_bytes},
      {"compute_processes", "processes holding a compute context on the GPU", nullptr, &c::compute_processes},
      {"ecc_uncorrected", "uncorrectable ECC/RAS errors since boot (NVIDIA: volatile count, ECC on; AMD: ras ue)",
       &c::ecc_uncorrected},
  };
  return t;
}

const std::vector<card_text_field>& card_text_fields() {
  using c = card_state;
  static const std::vector<card_text_field> t = {
      {"source", "where the card's state came from: nvml, sysfs, sysfs+libdrm", &c::source},
      {"perf_level", "AMD power_dpm_force_performance_level: auto, low, high, manual, profile_*", &c::perf_level},
      {"compute_partition", "AMD compute partition (SPX, DPX, QPX, CPX)", &c::compute_partition},
      {"vbios", "VBIOS version", &c::vbios},
      {"compute_mode", "NVIDIA compute mode: Default, Exclusive_Process (one context per GPU), Prohibited", &c::compute_mode},
  };
  return t;
}

const std::vector<card_flag_field>& card_flag_fields() {
  using c = card_state;
  static const std::vector<card_flag_field> t = {
      {"ecc_enabled", "ECC is on", &c::ecc_enabled},
      {"mig_enabled", "NVIDIA MIG mode is on", &c::mig_enabled},
      {"persistence_mode", "NVIDIA persistence mode is on (the driver stays loaded with no client)", &c::persistence_mode},
  };
  return t;
}

std::optional<double> card_number(const card_state& c, const card_number_field& f) {
  if (f.real) return c.*f.real;
  const std::optional<int>& v = c.*f.whole;
  return v ? std::optional<double>(double(*v)) : std::nullopt;
}

void set_card_number(card_state& c, const card_number_field& f, double v) {
  if (f.real) c.*f.real = v;
  else c.*f.whole = static_cast<int>(v);
}

std::string throttle_text(const card_state& c) {
  if (!c.throttle_reasons) return {};
  if (c.throttle_reasons->empty()) return "none";
  std::string out;
  for (const std::string& r : *c.throttle_reasons) out += (out.empty() ? "" : ", ") + r;
  return out;
}

bool is_thermal_reason(const std::string& r) {
  return r == "sw_thermal_slowdown" || r == "hw_thermal_slowdown";
}

bool is_limiting_reason(const std::string& r) {
  return is_thermal_reason(r) || r == "hw_slowdown" || r == "hw_power_brake" || r == "sw_power_cap";
}

}  // namespace gs
