// Recording a run in the version-compatibility matrix (docs/matrix.md). Every command that runs
// probes (`probe`, `probe fla`, `train-smoke`) calls these two functions and nothing else:
//
//   matrix_options mo;                   // in the command's argument struct
//   add_matrix_options(sub, mo);         // declares --matrix FILE and --no-matrix
//   ...
//   nlohmann::json report = build_report(in, ro);
//   emit_report(...);
//   record_report_in_matrix(report, mo); // after the report is out; never changes the exit code
//
// The report is the ordinary schema-v1 report (after redaction). Its stack fingerprint is taken
// from gpus[]/stack/env and from the optional top-level `settings` object (report_input::settings,
// e.g. {"num_stages_cap": "1"}); each probes[] entry becomes one cell (selftest.* is left out).
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace gs {

struct matrix_options {
  std::string path;       ///< --matrix FILE; "" = default_matrix_path()
  bool disabled = false;  ///< --no-matrix: record nothing
};

/// `--matrix FILE` and `--no-matrix`, with help text.
void add_matrix_options(CLI::App& sub, matrix_options& o);

/// $XDG_DATA_HOME/gpustack/matrix.toml, else $HOME/.local/share/gpustack/matrix.toml; "" when
/// neither variable is set.
std::string default_matrix_path();

/// Folds `report` into the matrix file (created if absent, written atomically: tmp + rename).
/// A report already in the file (same content hash) is not counted twice. Prints one line on
/// stderr ("gpustack: recorded in the matrix FILE ..." or why not) and returns false on any
/// problem (an unreadable or corrupt matrix is left untouched). Never throws.
bool record_report_in_matrix(const nlohmann::json& report, const matrix_options& o);

}  // namespace gs
