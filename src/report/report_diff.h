// `gpustack report diff A.json B.json`: what changed between two reports (versions, settings,
// findings, probe statuses), with the changed components ranked as suspects for the probes that
// started failing (matrix/probe_deps.toml says what each probe depends on).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gs {

struct value_change {
  std::string name;    ///< "triton", "env:HSA_OVERRIDE_GFX_VERSION", "pkg:numpy"
  std::string before;  ///< "" = absent
  std::string after;
};

struct probe_change {
  std::string id;
  std::string before;  ///< status, "" = not in that report
  std::string after;
  std::string detail;  ///< B's detail (A's when the probe is gone)
  bool newly_failing = false;  ///< was not failing (or absent/skipped), now fail/hang/crash/error
  bool regression = false;     ///< was pass/warn, now fail/hang/crash/error (exit code 1)
};

struct suspect {
  std::string component;              ///< a changed name from versions/settings
  std::string before, after;
  std::vector<std::string> explains;  ///< newly failing probes that depend on it
  int rank_cost = 0;                  ///< sum of its positions in those probes' lists (lower = likelier)
};

struct report_diff {
  std::vector<value_change> versions;  ///< fingerprint components, then other Python packages ("pkg:")
  std::vector<value_change> settings;  ///< env variables ("env:") and report settings ("setting:")
  std::vector<std::pair<std::string, std::string>> findings_added, findings_removed;  ///< id, title
  std::vector<probe_change> probes;    ///< only probes whose status changed (or appeared/vanished)
  std::vector<suspect> suspects;       ///< ranked, most likely first
  bool regressed() const;              ///< some probe went from pass/warn to failing
};

/// Probe id -> the components its result depends on (matrix/probe_deps.toml, longest match).
std::vector<std::string> probe_dependencies(const std::string& probe_id);

report_diff diff_reports(const nlohmann::json& a, const nlohmann::json& b);
nlohmann::json diff_json(const report_diff& d);
std::string render_diff_human(const report_diff& d, bool color);
std::string render_diff_markdown(const report_diff& d);

}  // namespace gs
