// The report's topology as a line (topology_text.h).
#include "report/topology_text.h"


namespace gs {

std::string topology_summary(const nlohmann::json& report) {
  auto t = report.find("topology");
  if (t == report.end() || !t->is_object() || !t->contains("pairs") || !(*t)["pairs"].is_array() || (*t)["pairs"].empty())
    return "";
  std::string out;
  for (const auto& p : (*t)["pairs"]) {
    if (!p.is_object() || !p.contains("a") || !p.contains("b") || !p.contains("kind")) continue;
    out += (out.empty() ? "" : ", ") + p["a"].dump() + "-" + p["b"].dump() + " " + p["kind"].get<std::string>();
  }
  if (int n = t->value("numa_nodes", 0); n > 0) out += "; " + std::to_string(n) + " NUMA node" + (n > 1 ? "s" : "");
  const std::string iommu = t->value("iommu", "");
  if (iommu == "off") out += "; no IOMMU";
  else if (!iommu.empty()) out += "; IOMMU " + iommu;
  if (!t->value("acs_read", false)) {
    out += "; ACS not read (needs root)";
  } else if (const auto& acs = (*t)["acs_redirect"]; acs.is_array() && !acs.empty()) {
    std::string list;
    for (const auto& b : acs) list += (list.empty() ? "" : ", ") + b.get<std::string>();
    out += "; ACS redirects peer traffic at " + list;
  } else {
    out += "; ACS off";
  }
  return out;
}

}  // namespace gs
