// Markdown rendering of the matrix: an overview table of stacks (for an issue or a wiki page),
// then one table of cells per stack.
#include "matrix/matrix_render.h"

#include "report/markdown_cell.h"

namespace gs {
namespace {

std::string verdict_text(const matrix_row& r) {
  switch (verdict_of(r)) {
    case row_verdict::good: return "known good";
    case row_verdict::bad: return "**known bad**";
    case row_verdict::unknown: return "unknown";
  }
  return "unknown";
}

}  // namespace

std::string render_matrix_markdown(const compat_matrix& m, const std::string& source) {
  std::string o = "# gpustack compatibility matrix\n\n";
  o += std::to_string(m.rows.size()) + " stacks, " + std::to_string(probe_columns(m).size()) + " probes, " +
       std::to_string(m.reports.size()) + " reports merged (`" + md_cell(source) + "`).\n\n";
  o += "| stack | GPU arch | verdict | pass | fail/hang | components |\n|---|---|---|---|---|---|\n";
  std::vector<const matrix_row*> rows = display_order(m);
  for (const matrix_row* r : rows) {
    int pass = 0, bad = 0;
    for (const matrix_cell& c : r->cells) {
      if (c.status == "pass") ++pass;
      if (is_bad_status(c.status)) ++bad;
    }
    auto arch = r->fp.find("arch");
    o += "| `" + fingerprint_id(r->fp) + "` | " + md_cell(arch == r->fp.end() ? "" : arch->second) + " | " + verdict_text(*r) +
         " | " + std::to_string(pass) + " | " + std::to_string(bad) + " | " + md_cell(components_text(*r)) + " |\n";
  }
  for (const matrix_row* r : rows) {
    auto arch = r->fp.find("arch");
    std::string a = arch == r->fp.end() || arch->second.empty() ? "no GPU" : arch->second;  // never "()"
    o += "\n## Stack `" + fingerprint_id(r->fp) + "` (" + md_cell(a) + "): " + verdict_text(*r) + "\n\n" + md_cell(components_text(*r)) + "\n\n";
    if (!r->note.empty()) o += "> " + md_cell(r->note) + "\n\n";
    o += "| probe | status | runs | last run | last detail |\n|---|---|---|---|---|\n";
    for (const matrix_cell& c : r->cells)
      o += "| `" + md_cell(c.probe) + "` | " + (is_bad_status(c.status) ? "**" + c.status + "**" : c.status) + " | " +
           std::to_string(c.runs) + " | " + md_cell(c.date) + " | " + md_cell(c.detail) + " |\n";
  }
  return o;
}

}  // namespace gs
