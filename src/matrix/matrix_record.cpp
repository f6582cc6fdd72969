// Recording one run in the user's matrix (matrix_record.h). The run's report has already been
// printed; whatever happens here is one line on stderr and never changes the exit code, because
// a probe verdict must not be lost to a full disk or a hand-edited matrix.
#include "matrix/matrix_record.h"

#include <cstdio>
#include <cstdlib>

#include "matrix/matrix.h"

namespace gs {

const char* matrix_file_header() {
  return "gpustack compatibility matrix (docs/matrix.md): one [[stack]] per stack fingerprint,\n"
    "one [[stack.cell]] per probe. Written by gpustack probe / train-smoke / matrix merge.";
}

void add_matrix_options(CLI::App& sub, matrix_options& o) {
  sub.add_option("--matrix", o.path,
                 "record the results in this compatibility matrix (TOML; default "
                 "$XDG_DATA_HOME/gpustack/matrix.toml or ~/.local/share/gpustack/matrix.toml)");
  sub.add_flag("--no-matrix", o.disabled, "do not record the results in the compatibility matrix");
}

std::string default_matrix_path() {
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg && *xdg == '/') return std::string(xdg) + "/gpustack/matrix.toml";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.local/share/gpustack/matrix.toml";
  return "";
}

bool record_report_in_matrix(const nlohmann::json& report, const matrix_options& o) {
  if (o.disabled) return true;
  try {
    std::string path = o.path.empty() ? default_matrix_path() : o.path;
    if (path.empty()) {
      std::fprintf(stderr, "gpustack: not recorded in the matrix: no HOME or XDG_DATA_HOME (--matrix FILE names one)\n");
      return false;
    }
    compat_matrix m;
    std::string msg;
    if (load_matrix_file(path, m, msg) == load_status::error) {
      std::fprintf(stderr, "gpustack: not recorded in the matrix: %s (the file is left as it is; fix it or "
                           "pass --matrix OTHER)\n", msg.c_str());
      return false;
    }
    merge_outcome r = merge_report(m, report);
    if (!r.error.empty()) {
      std::fprintf(stderr, "gpustack: not recorded in the matrix: %s\n", r.error.c_str());
      return false;
    }
    if (r.duplicate) {
      std::fprintf(stderr, "gpustack: this report is already in the matrix %s\n", path.c_str());
      return true;
    }
    if (r.cells == 0) {
      // Saved all the same: the report's hash keeps `matrix merge` of the same file quiet.
      std::fprintf(stderr, "gpustack: nothing recorded in the matrix: %s\n",
                   r.left_out ? r.left_out_why.c_str() : "no probe results");
    } else if (r.left_out) {
      std::fprintf(stderr, "gpustack: left out of the matrix: %s\n", r.left_out_why.c_str());
    }
    if (!save_matrix_file(path, m, msg, matrix_file_header())) {
      std::fprintf(stderr, "gpustack: not recorded in the matrix: %s\n", msg.c_str());
      return false;
    }
    if (r.cells)
      std::fprintf(stderr, "gpustack: %d probe result%s recorded in the matrix %s (stack %s)\n", r.cells,
                   r.cells == 1 ? "" : "s", path.c_str(), r.row_id.c_str());
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpustack: not recorded in the matrix: %s\n", e.what());
    return false;
  }
}

}  // namespace gs
