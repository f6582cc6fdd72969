// The version-compatibility matrix (docs/matrix.md): one row per stack fingerprint (GPU arch,
// driver, ROCm/CUDA, torch, Triton, bitsandbytes, ... and settings such as a num_stages cap),
// one cell per probe with its latest status, date, run count and last detail. Kept as TOML
// (matrix/compat.toml ships the known stacks; each user has their own file), merged from
// schema-v1 reports, deduplicated by the reports' content hashes.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

/// One part of the fingerprint, from matrix/fingerprint.toml (adding one is a table there).
struct fingerprint_component {
  std::string name;   ///< key in the matrix ("torch", "num_stages_cap")
  std::string label;  ///< column heading ("torch", "num_stages cap")
  std::string kind;   ///< "path" (JSON pointers into the report), "package", "env", "setting"
  std::vector<std::string> sources;  ///< pointers ("/gpus/*/arch"), a logical package, env names, a setting name
};
/// The embedded table (matrix/fingerprint.toml), loaded once; an error there is a build bug and throws.
const std::vector<fingerprint_component>& fingerprint_components();

/// component name -> value; "" = absent on that machine; "*" (only in hand-written rows) = any.
using fingerprint = std::map<std::string, std::string>;

/// The report's stack fingerprint: every component of the table, "" where the report lacks it.
fingerprint fingerprint_of(const nlohmann::json& report);
/// Short stable handle of a fingerprint (10 hex digits of SHA-256 over "name=value\n" lines).
std::string fingerprint_id(const fingerprint& fp);
/// Does a row's value cover a live one? "*" covers anything; otherwise equal, or a version
/// prefix ending at a '.', '+' or '-' boundary ("7.2" covers "7.2.1", "2.11.0" covers "2.11.0+cu130").
bool value_matches(std::string_view row_value, std::string_view live_value);

struct matrix_cell {
  std::string probe;   ///< probe id ("fla.native.stages2")
  std::string status;  ///< latest status (pass|warn|fail|skip|hang|crash|error)
  std::string date;    ///< created_utc of the report that set `status`
  int runs = 0;        ///< how many reports carried this probe for this stack
  std::string detail;  ///< the latest detail line
};

struct matrix_row {
  fingerprint fp;
  std::string note;                ///< free text ("field investigation: seq 768 ...")
  std::vector<matrix_cell> cells;  ///< sorted by probe id
  const matrix_cell* cell(std::string_view probe) const;
};

/// good: something ran and nothing failed; bad: a cell is fail/hang/crash/error; unknown: only skips.
enum class row_verdict { good, bad, unknown };
row_verdict verdict_of(const matrix_row& row);
std::string_view to_string(row_verdict v);
/// fail, hang, crash, error: what makes a row known bad.
bool is_bad_status(std::string_view status);

struct compat_matrix {
  std::vector<matrix_row> rows;
  std::set<std::string> reports;  ///< SHA-256 of every report merged in (dedupe)
  matrix_row* find(const fingerprint& fp);
};

struct matrix_error {
  std::string path;
  int line = 0, column = 0;
  std::string message;
  std::string to_string() const;  ///< "path:line:column: message"
};

/// TOML text -> matrix. The file must be printable ASCII (serialize_matrix escapes anything
/// else): toml++ 3.3 reaches undefined behaviour on some non-ASCII code points (U+00A1 in its
/// whitespace check), so untrusted bytes never reach it. Errors cite path:line:column.
bool parse_matrix(std::string_view path, std::string_view text, compat_matrix& out, std::vector<matrix_error>& errors);
/// Matrix -> TOML text (ASCII; rows in a stable order; `header` lines become leading comments).
std::string serialize_matrix(const compat_matrix& m, std::string_view header = {});

enum class load_status { ok, absent, error };
/// Reads a matrix file; `absent` (no file) leaves `out` empty; `error` fills `message`.
load_status load_matrix_file(const std::string& path, compat_matrix& out, std::string& message);
/// Writes atomically (PATH.tmp.<pid> then rename), creating the parent directory.
bool save_matrix_file(const std::string& path, const compat_matrix& m, std::string& message,
                      std::string_view header = {});

/// The comment gpustack writes at the top of a matrix file.
const char* matrix_file_header();

/// SHA-256 of the report's canonical JSON (sorted keys, no whitespace).
std::string report_hash(const nlohmann::json& report);

struct merge_outcome {
  bool merged = false;     ///< false: duplicate or not a report
  bool duplicate = false;  ///< its hash was already in the matrix
  std::string error;       ///< why it is not a report ("" otherwise)
  std::string row_id;      ///< fingerprint_id of its row
  int cells = 0;           ///< probes recorded
  int left_out = 0;        ///< probe results that said nothing about a GPU stack
  std::string left_out_why;  ///< why, for the user ("" when nothing was left out)
};
/// Folds one schema-v1 report into the matrix. Only results that exercised a GPU become cells:
/// not selftest.* (they hang on purpose), not a report without a GPU, not a step that ran
/// gpustack's CPU references (data.device.backend "cpu"), and a *.verdict only beside such cells.
merge_outcome merge_report(compat_matrix& m, const nlohmann::json& report);
/// Folds another matrix in (shipped compat.toml + the user's file): equal fingerprints share a row.
void merge_matrix(compat_matrix& into, const compat_matrix& from);

/// The shipped matrix (matrix/compat.toml, embedded). Throws on a broken asset (a build bug).
const compat_matrix& shipped_matrix();

}  // namespace gs
