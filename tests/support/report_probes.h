// The probe results of a gpustack JSON report (a recorded run under tests/fixtures/), as the
// probe_result values the code under test takes, without the verdict step: the one reader of
// recorded runs for the fla tests.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "core/probe_result.h"

namespace gs::test {

inline std::vector<probe_result> probes_of_report(const nlohmann::json& report) {
  std::vector<probe_result> rs;
  for (const nlohmann::json& p : report["probes"]) {
    if (p["id"] == "fla.verdict") continue;
    probe_result r;
    r.id = p["id"];
    r.outcome = parse_status(p["status"].get<std::string>()).value();
    r.phase = p.value("phase", "");
    r.detail = p.value("detail", "");
    r.data = p.value("data", nlohmann::json::object());
    rs.push_back(r);
  }
  return rs;
}

}  // namespace gs::test
