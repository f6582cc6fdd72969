// card_summary (card_text.h): written once, read by render_human and render_markdown.
#include "report/card_text.h"

#include <fmt/format.h>

#include "core/byte_size.h"

namespace gs {
namespace {

using nlohmann::json;

std::optional<double> number(const json& c, const char* key) {
  if (!c.is_object() || !c.contains(key) || !c[key].is_number()) return std::nullopt;
  return c[key].get<double>();
}

std::string figure(double v) { return v == double(int64_t(v)) ? fmt::format("{}", int64_t(v)) : fmt::format("{:.1f}", v); }

/// "1980 of 1980 MHz", "1980 MHz", "" by what is known.
std::string now_of_max(const json& c, const char* now, const char* max, const char* unit) {
  auto n = number(c, now), m = number(c, max);
  if (n && m) return figure(*n) + " of " + figure(*m) + " " + unit;
  if (n) return figure(*n) + " " + unit;
  if (m) return "max " + figure(*m) + " " + unit;
  return {};
}

}  // namespace

std::string card_summary(const json& gpu) {
  if (!gpu.is_object() || !gpu.contains("card") || !gpu["card"].is_object()) return {};
  const json& c = gpu["card"];
  std::vector<std::string> parts;
  auto add = [&](std::string s) {
    if (!s.empty()) parts.push_back(std::move(s));
  };
  if (auto s = now_of_max(c, "clock_sm_mhz", "clock_sm_max_mhz", "MHz"); !s.empty()) add("SM " + s);
  if (auto s = now_of_max(c, "clock_mem_mhz", "clock_mem_max_mhz", "MHz"); !s.empty()) add("memory " + s);
  if (auto s = now_of_max(c, "power_w", "power_limit_w", "W"); !s.empty()) {
    auto d = number(c, "power_default_limit_w"), l = number(c, "power_limit_w");
    if (d && (!l || *d != *l)) s += " (default cap " + figure(*d) + " W)";
    add(s);
  }
  if (auto t = number(c, "temp_c")) add(figure(*t) + " C");
  if (auto b = number(c, "busy_percent")) add(figure(*b) + "% busy");
  if (auto p = number(c, "pstate")) add("P" + figure(*p));
  if (c.contains("perf_level") && c["perf_level"].is_string()) add("performance level " + c["perf_level"].get<std::string>());
  if (c.contains("throttle_reasons") && c["throttle_reasons"].is_array()) {
    std::string r;
    for (const json& x : c["throttle_reasons"])
      if (x.is_string()) r += (r.empty() ? "" : ", ") + x.get<std::string>();
    add("clocks held by: " + (r.empty() ? std::string("nothing") : r));
  }
  if (auto g = number(c, "pcie_gen"), mg = number(c, "pcie_max_gen"), w = number(c, "pcie_lanes"),
      mw = number(c, "pcie_max_lanes");
      g && w)
    add(fmt::format("link gen{} x{}", figure(*g), figure(*w)) + (mg && mw ? fmt::format(" of gen{} x{}", figure(*mg), figure(*mw)) : ""));
  if (auto u = number(c, "vram_used_bytes")) {
    auto t = number(c, "vram_total_bytes");
    add("VRAM " + gib_text(*u) + (t ? " of " + gib_text(*t) : std::string()) + " used");
  }
  if (auto n = number(c, "compute_processes")) add(fmt::format("{} compute process{}", figure(*n), *n == 1 ? "" : "es"));
  if (c.contains("ecc_enabled") && c["ecc_enabled"].is_boolean() && !c["ecc_enabled"].get<bool>()) add("ECC off");
  if (auto e = number(c, "ecc_uncorrected")) add(figure(*e) + " uncorrectable ECC/RAS errors");
  if (c.contains("mig_enabled") && c["mig_enabled"].is_boolean() && c["mig_enabled"].get<bool>()) add("MIG on");
  if (c.contains("compute_partition") && c["compute_partition"].is_string()) add("partition " + c["compute_partition"].get<std::string>());
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string card_firmware_summary(const json& gpu) {
  if (!gpu.is_object() || !gpu.contains("card") || !gpu["card"].is_object()) return {};
  const json& c = gpu["card"];
  std::string out;
  if (c.contains("vbios") && c["vbios"].is_string()) out = "VBIOS " + c["vbios"].get<std::string>();
  if (c.contains("firmware") && c["firmware"].is_array())
    for (const json& f : c["firmware"])
      if (f.is_object() && f.contains("name") && f.contains("version") && f["version"].is_number())
        out += (out.empty() ? "" : ", ") + f["name"].get<std::string>() + fmt::format(" 0x{:08x}", f["version"].get<uint64_t>());
  return out;
}

}  // namespace gs
