// Folding reports and matrices together. A cell keeps the status of the newest report (by its
// created_utc, so reports merged out of order still end on the latest word) and counts every
// run; a report is recognised again by the SHA-256 of its canonical JSON, so attaching the same
// report to two issues, or merging a directory twice, does not double its runs.
#include <algorithm>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "core/assets.h"
#include "core/sha256.h"
#include "core/status.h"
#include "matrix/matrix.h"

namespace gs {
namespace {

using nlohmann::json;

void fold_cell(matrix_row& row, const matrix_cell& in) {
  auto it = std::find_if(row.cells.begin(), row.cells.end(), [&](const matrix_cell& c) { return c.probe == in.probe; });
  if (it == row.cells.end()) {
    auto pos = std::lower_bound(row.cells.begin(), row.cells.end(), in.probe,
                                [](const matrix_cell& c, const std::string& p) { return c.probe < p; });
    row.cells.insert(pos, in);
    return;
  }
  // ISO-8601 UTC strings compare in time order; ties go to the newcomer (the later merge).
  if (in.date >= it->date) {
    it->status = in.status;
    it->date = in.date;
    it->detail = in.detail;
  }
  it->runs += in.runs;
}

/// A step that ran gpustack's CPU references (`--device cpu`, or no GPU to run on) or
/// train-smoke on the CPU: it passes or fails on the CPU, whatever the GPU stack is.
bool ran_on_the_cpu(const json& probe) {
  const json* data = probe.contains("data") ? &probe["data"] : nullptr;
  if (!data || !data->is_object() || !data->contains("device")) return false;
  const json& d = (*data)["device"];
  if (d.is_string()) return d.get<std::string>() == "cpu";
  return d.is_object() && (d.value("backend", "") == "cpu" || d.value("arch", "") == "cpu");
}

bool is_verdict(std::string_view id) { return id.size() > 8 && id.substr(id.size() - 8) == ".verdict"; }

std::string why_not_a_report(const json& r) {
  if (!r.is_object()) return "not a JSON object";
  if (r.value("schema_version", 0) != 1) return "not a gpustack report (schema_version 1)";
  if (!r.contains("probes") || !r["probes"].is_array()) return "no probes[] array";
  return "";
}

}  // namespace

std::string report_hash(const json& report) { return sha256_hex(report.dump()); }

merge_outcome merge_report(compat_matrix& m, const json& report) {
  merge_outcome out;
  out.error = why_not_a_report(report);
  if (!out.error.empty()) return out;
  std::string hash = report_hash(report);
  fingerprint fp = fingerprint_of(report);
  out.row_id = fingerprint_id(fp);
  if (m.reports.count(hash)) {
    out.duplicate = true;
    return out;
  }
  std::string date = report.value("created_utc", std::string());
  // A machine without a GPU: every result there is a CPU reference or a skip, and a row
  // "(no GPU) ... known good" would tell the next reader that some GPU stack works.
  auto arch = fp.find("arch");
  bool has_gpu = arch != fp.end() && !arch->second.empty();
  std::vector<matrix_cell> cells, verdicts;
  int on_cpu = 0;
  for (const json& p : report["probes"]) {
    if (!p.is_object() || !p.contains("id") || !p["id"].is_string() || !p.contains("status") || !p["status"].is_string())
      continue;
    matrix_cell c;
    c.probe = p["id"].get<std::string>();
    c.status = p["status"].get<std::string>();
    if (c.probe.empty() || !parse_status(c.status)) continue;
    // selftest.* prove the watchdog by hanging on purpose: nothing about the stack.
    if (c.probe.rfind("selftest.", 0) == 0) continue;
    if (!has_gpu || ran_on_the_cpu(p)) {
      ++on_cpu;
      continue;
    }
    c.date = date;
    c.runs = 1;
    if (p.contains("detail") && p["detail"].is_string()) c.detail = p["detail"].get<std::string>();
    (is_verdict(c.probe) ? verdicts : cells).push_back(std::move(c));
  }
  // A verdict sums up its steps: without a GPU step beside it, it sums up CPU references.
  if (cells.empty()) on_cpu += int(verdicts.size());
  else cells.insert(cells.end(), verdicts.begin(), verdicts.end());
  out.left_out = on_cpu;
  if (on_cpu)
    out.left_out_why = has_gpu ? fmt::format("{} result{} of gpustack's CPU references (they say nothing about the GPU stack)",
                                             on_cpu, on_cpu == 1 ? "" : "s")
                               : fmt::format("{} result{} from a machine without a GPU (nothing about a GPU stack was tested)",
                                             on_cpu, on_cpu == 1 ? "" : "s");
  m.reports.insert(hash);
  out.merged = true;
  out.cells = int(cells.size());
  if (cells.empty()) return out;  // a `check` report: remembered, but it says nothing per probe
  matrix_row* row = m.find(fp);
  if (!row) {
    m.rows.push_back({fp, "", {}});
    row = &m.rows.back();
  }
  for (const matrix_cell& c : cells) fold_cell(*row, c);
  return out;
}

void merge_matrix(compat_matrix& into, const compat_matrix& from) {
  for (const matrix_row& r : from.rows) {
    matrix_row* row = into.find(r.fp);
    if (!row) {
      into.rows.push_back(r);
      continue;
    }
    if (row->note.empty()) row->note = r.note;
    for (const matrix_cell& c : r.cells) fold_cell(*row, c);
  }
  into.reports.insert(from.reports.begin(), from.reports.end());
}

const compat_matrix& shipped_matrix() {
  static const compat_matrix m = [] {
    std::optional<std::string_view> text = find_asset("matrix/compat.toml");
    compat_matrix out;
    if (!text) return out;
    std::vector<matrix_error> errors;
    if (!parse_matrix("matrix/compat.toml", *text, out, errors))
      throw std::runtime_error(errors.empty() ? "matrix/compat.toml: broken" : errors.front().to_string());
    return out;
  }();
  return m;
}

}  // namespace gs
