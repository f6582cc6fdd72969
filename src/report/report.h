// The report (GUIDE "Report JSON", schema_version 1; JSON Schema in reports/schema/).
// build_report() assembles and redacts; renderers only ever see the redacted JSON, so no
// output path can leak what redaction removed.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/facts.h"
#include "core/finding.h"
#include "core/probe_result.h"

namespace gs {

struct report_options {
  bool include_identifiers = false;  ///< --include-identifiers: keep hostname/user/serials (never secrets)
  std::string command = "check";     ///< which gpustack command produced it
  std::string created_utc;           ///< "" = now; tests pin it ("2026-12-02T10:00:00Z")
};

struct report_input {
  const machine_facts* facts = nullptr;
  std::vector<finding> findings;
  std::vector<probe_result> probes;
  /// The whole environment the facts came from (sysroot::environment()), when it is not this
  /// process's own (`check --sysroot`): secret values in it are removed wherever they appear.
  const std::map<std::string, std::string>* environment = nullptr;
  /// Settings the run was made with that belong to the stack fingerprint in the compatibility
  /// matrix (docs/matrix.md), e.g. {"num_stages_cap", "1"}; emitted as `settings` when not empty.
  std::map<std::string, std::string> settings;
  /// More top-level keys a command adds (explain's `explain` block); redacted like the rest.
  nlohmann::json extra = nlohmann::json::object();
};

/// The full, redacted report.                                    (report/report_json.cpp)
nlohmann::json build_report(const report_input& in, const report_options& opts);
/// Compact terminal table that reads in one screen, word-wrapped at `width` columns (0: whole
/// lines, for a pipe or a file); a fix's command is never cut or wrapped.  (report/render_human.cpp)
std::string render_human(const nlohmann::json& report, bool color, size_t width = 0);
/// The report's `run` block in words: the wall time, the steps' import and run seconds, and how
/// the Python steps ran; "" when the block is missing. The terminal view, the Markdown and the
/// line on stderr after a run all say it this way.                      (report/run_timing.cpp)
std::string run_timing_text(const nlohmann::json& run);
/// Issue-ready Markdown with the JSON in a collapsible block.   (report/render_markdown.cpp)
std::string render_markdown(const nlohmann::json& report);
/// 0/1/3 from findings and probe statuses (GUIDE exit codes).   (report/report_json.cpp)
int exit_code_for(const nlohmann::json& report);

}  // namespace gs
