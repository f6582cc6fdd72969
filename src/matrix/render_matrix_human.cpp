// Terminal rendering of the matrix, and the ordering helpers every renderer shares. A grid of
// 20+ probe columns does not fit 100 columns, so the terminal shows one block per stack: its
// components on one line, then one line per probe cell.
#include <algorithm>
#include <set>

#include "matrix/matrix_render.h"

namespace gs {
namespace {

int verdict_rank(const matrix_row& r) {
  switch (verdict_of(r)) {
    case row_verdict::bad: return 0;
    case row_verdict::good: return 1;
    case row_verdict::unknown: return 2;
  }
  return 2;
}

const char* color_of(const std::string& status) {
  if (status == "pass") return "\033[32m";
  if (status == "warn") return "\033[33m";
  if (status == "skip") return "\033[2m";
  return "\033[31m";  // fail, hang, crash, error
}

std::string pad(std::string s, size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

std::string arch_of(const matrix_row& r) {
  auto it = r.fp.find("arch");
  return it == r.fp.end() || it->second.empty() ? "(no GPU)" : it->second;
}

}  // namespace

std::vector<const matrix_row*> display_order(const compat_matrix& m) {
  std::vector<const matrix_row*> rows;
  for (const matrix_row& r : m.rows) rows.push_back(&r);
  std::sort(rows.begin(), rows.end(), [](const matrix_row* a, const matrix_row* b) {
    return std::make_tuple(arch_of(*a), verdict_rank(*a), fingerprint_id(a->fp)) <
           std::make_tuple(arch_of(*b), verdict_rank(*b), fingerprint_id(b->fp));
  });
  return rows;
}

std::vector<std::string> probe_columns(const compat_matrix& m) {
  std::set<std::string> ids;
  for (const matrix_row& r : m.rows)
    for (const matrix_cell& c : r.cells) ids.insert(c.probe);
  return {ids.begin(), ids.end()};
}

std::string components_text(const matrix_row& r) {
  std::string out;
  for (const fingerprint_component& c : fingerprint_components()) {
    if (c.name == "arch") continue;
    auto it = r.fp.find(c.name);
    if (it == r.fp.end() || it->second.empty() || it->second == "*") continue;
    out += (out.empty() ? "" : ", ") + c.label + " " + it->second;
  }
  return out.empty() ? "(nothing recorded)" : out;
}

std::string render_matrix_human(const compat_matrix& m, const std::string& source, bool color) {
  std::string o = "compatibility matrix " + source + ": " + std::to_string(m.rows.size()) + " stack" +
                  (m.rows.size() == 1 ? "" : "s") + ", " + std::to_string(probe_columns(m).size()) + " probes, " +
                  std::to_string(m.reports.size()) + " reports merged\n";
  const char* reset = color ? "\033[0m" : "";
  for (const matrix_row* r : display_order(m)) {
    row_verdict v = verdict_of(*r);
    std::string verdict = v == row_verdict::good ? "known good" : v == row_verdict::bad ? "known bad" : "unknown";
    o += "\n" + std::string(color ? "\033[1m" : "") + arch_of(*r) + "  stack " + fingerprint_id(r->fp) + "  " + verdict + reset + "\n";
    o += "  " + components_text(*r) + "\n";
    if (!r->note.empty()) o += "  note: " + r->note + "\n";
    size_t w = 0;
    for (const matrix_cell& c : r->cells) w = std::max(w, c.probe.size());
    for (const matrix_cell& c : r->cells) {
      std::string st = pad(c.status, 5);
      if (color) st = color_of(c.status) + st + reset;
      std::string runs = std::to_string(c.runs) + (c.runs == 1 ? " run " : " runs");
      o += "  " + st + "  " + pad(c.probe, w) + "  " + pad(runs, 8) + "  " + pad(c.date.substr(0, 10), 10) + "  " +
           c.detail + "\n";
    }
  }
  if (m.rows.empty()) o += "(empty: `gpustack probe` records here, `gpustack matrix merge REPORT.json` folds reports in)\n";
  return o;
}

}  // namespace gs
