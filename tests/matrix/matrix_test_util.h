// Small report builders for the matrix tests: the real H200 example reports where the test is
// about real data, hand-made ones where it is about one field.
#pragma once
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace gs::testing {

inline nlohmann::json example_report(const std::string& name) {
  std::ifstream in(std::string(GPUSTACK_SOURCE_DIR) + "/reports/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

/// A minimal schema-v1 report: one GPU, the packages given, the probes given (id -> status).
inline nlohmann::json tiny_report(const std::string& arch, const nlohmann::json& packages, const nlohmann::json& probes,
                                  const std::string& created = "2026-12-02T10:00:00Z") {
  nlohmann::json p = nlohmann::json::array();
  for (auto it = probes.begin(); it != probes.end(); ++it)
    p.push_back({{"id", it.key()}, {"status", it.value()}, {"phase", "verify"}, {"duration_ms", 1.0},
                 {"detail", it.key() + " said " + it.value().get<std::string>()}, {"data", nlohmann::json::object()},
                 {"finding_ids", nlohmann::json::array()}, {"kernel_log", nlohmann::json::array()}});
  return {{"schema_version", 1},
          {"tool", {{"name", "gpustack"}, {"version", "0.1.0"}, {"command", "probe"}}},
          {"summary", {{"status", "pass"}, {"text", "pass"}}},
          {"created_utc", created},
          {"gpus", {{{"vendor", arch.rfind("gfx", 0) == 0 ? "amd" : "nvidia"}, {"arch", arch}}}},
          {"stack",
           {{"driver", {{"amdgpu", {{"version", ""}}}, {"nvidia", {{"version", arch.rfind("sm_", 0) == 0 ? "580.159.04" : ""}}}}},
            {"rocm", {{"version", arch.rfind("gfx", 0) == 0 ? "7.2.0" : ""}}},
            {"cuda", {{"toolkit_version", ""}}},
            {"torch", {{"cuda", arch.rfind("sm_", 0) == 0 ? "13.0" : ""}, {"hip", ""}}},
            {"python", {{"packages", packages}}}}},
          {"env", nlohmann::json::object()},
          {"findings", nlohmann::json::array()},
          {"probes", p}};
}

}  // namespace gs::testing
