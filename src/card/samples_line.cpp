#include "card/samples_line.h"

#include <fmt/format.h>

#include <vector>

namespace gs {

using json = nlohmann::json;

std::string card_samples_line(const json& data) {
  if (!data.is_object() || !data.contains("card") || !data["card"].is_object()) return {};
  const json& c = data["card"];
  auto span = [&](const char* key, const char* unit) -> std::string {
    if (!c.contains(key) || !c[key].is_object()) return {};
    const json& s = c[key];
    double lo = s.value("min", 0.0), hi = s.value("max", 0.0), mean = s.value("mean", 0.0);
    if (lo == hi) return fmt::format("{:.0f} {}", lo, unit);
    return fmt::format("{:.0f}-{:.0f} {} (mean {:.0f})", lo, hi, unit, mean);
  };
  std::vector<std::string> parts;
  if (auto s = span("clock_sm_mhz", "MHz"); !s.empty()) parts.push_back("SM " + s);
  if (auto s = span("power_w", "W"); !s.empty()) parts.push_back(s);
  if (auto s = span("temp_c", "C"); !s.empty()) parts.push_back(s);
  if (auto s = span("busy_percent", "% busy"); !s.empty()) parts.push_back(s);
  if (c.contains("throttle_reasons") && c["throttle_reasons"].is_object()) {
    std::string held;
    for (auto& [r, share] : c["throttle_reasons"].items())
      if (r != "gpu_idle" && share.is_number() && share.get<double>() > 0)
        held += (held.empty() ? "" : ", ") + fmt::format("{} {:.0f}%", r, share.get<double>() * 100);
    if (!held.empty()) parts.push_back("held by " + held);
  }
  if (c.value("stuck", false)) parts.push_back("the card stopped answering");
  if (c.contains("at_kill") && c["at_kill"].is_object()) {
    const json& k = c["at_kill"];
    std::string at = "at the kill:";
    if (k.contains("busy_percent")) at += fmt::format(" {:.0f}% busy", k["busy_percent"].get<double>());
    if (k.contains("clock_sm_mhz")) at += fmt::format(" SM {:.0f} MHz", k["clock_sm_mhz"].get<double>());
    if (k.contains("power_w")) at += fmt::format(" {:.0f} W", k["power_w"].get<double>());
    parts.push_back(at);
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace gs
