// locate_stack: a row "matches" when each of its components covers the live value
// (value_matches: "*" = any, "7.2" covers "7.2.1"). Matching rows decide known good / known bad;
// the nearest known-good row is the one with the fewest components that do not cover yours, ties
// to the row with more passing cells (more evidence).
#include "matrix/stack_position.h"

#include <algorithm>

#include "core/text_scan.h"

namespace gs {
namespace {

using nlohmann::json;

std::string value_in(const fingerprint& fp, const std::string& k) {
  auto it = fp.find(k);
  return it == fp.end() ? std::string() : it->second;
}

std::vector<component_difference> differences(const matrix_row& row, const fingerprint& live) {
  std::vector<component_difference> out;
  for (const fingerprint_component& c : fingerprint_components()) {
    std::string known = value_in(row.fp, c.name), yours = value_in(live, c.name);
    if (!row.fp.count(c.name)) known = "*";
    if (!value_matches(known, yours)) out.push_back({c.name, c.label, yours, known});
  }
  return out;
}

int passing_cells(const matrix_row& r) {
  return int(std::count_if(r.cells.begin(), r.cells.end(), [](const matrix_cell& c) { return c.status == "pass"; }));
}

}  // namespace

stack_position locate_stack(const compat_matrix& m, const fingerprint& live) {
  stack_position p;
  p.rows_considered = int(m.rows.size());
  const matrix_row* good = nullptr;
  const matrix_row* bad = nullptr;
  for (const matrix_row& r : m.rows) {
    if (!differences(r, live).empty()) continue;
    row_verdict v = verdict_of(r);
    if (v == row_verdict::bad) {
      if (!bad) bad = &r;
      for (const matrix_cell& c : r.cells)
        if (is_bad_status(c.status)) p.bad_cells.push_back(&c);
    } else if (v == row_verdict::good && !good) {
      good = &r;
    }
  }
  if (bad) {
    p.verdict = "known_bad";
    p.row_id = fingerprint_id(bad->fp);
    p.row_note = bad->note;
  } else if (good) {
    p.verdict = "known_good";
    p.row_id = fingerprint_id(good->fp);
    p.row_note = good->note;
    for (const matrix_cell& c : good->cells)
      if (c.status == "pass" || c.status == "warn") p.good_cells.push_back(&c);
    return p;
  }
  const matrix_row* nearest = nullptr;
  size_t best = 0;
  for (const matrix_row& r : m.rows) {
    if (verdict_of(r) != row_verdict::good) continue;
    size_t d = differences(r, live).size();
    if (!nearest || d < best || (d == best && passing_cells(r) > passing_cells(*nearest))) {
      nearest = &r;
      best = d;
    }
  }
  if (nearest) {
    p.nearest_id = fingerprint_id(nearest->fp);
    p.nearest_note = nearest->note;
    p.differences = differences(*nearest, live);
  }
  return p;
}

json position_json(const stack_position& p, const fingerprint& live) {
  json fp = json::object();
  for (const auto& [k, v] : live) fp[k] = v;
  json bad = json::array();
  for (const matrix_cell* c : p.bad_cells)
    bad.push_back({{"probe", c->probe}, {"status", c->status}, {"date", c->date}, {"runs", c->runs}, {"detail", c->detail}});
  json j = {{"verdict", p.verdict}, {"fingerprint", fp}, {"stacks_considered", p.rows_considered},
            {"stack", p.row_id},    {"note", p.row_note},  {"failed", bad}};
  if (!p.nearest_id.empty()) {
    json diffs = json::array();
    for (const component_difference& d : p.differences)
      diffs.push_back({{"component", d.component}, {"yours", d.yours}, {"known", d.known}});
    j["nearest_known_good"] = {{"stack", p.nearest_id}, {"note", p.nearest_note}, {"differences", diffs}};
  }
  return j;
}

std::string position_line(const json& pos) {
  if (!pos.is_object()) return "";
  std::string verdict = pos.value("verdict", "unknown");
  std::string line = verdict == "known_good" ? "known good" : verdict == "known_bad" ? "known bad" : "unknown";
  if (!pos.value("stack", std::string()).empty()) line += " (stack " + pos.value("stack", std::string()) + ")";
  if (auto f = pos.find("failed"); f != pos.end() && f->is_array() && !f->empty()) {
    line += ":";
    size_t n = 0;
    for (const json& c : *f) {
      if (n++ == 3) {
        line += " ...";
        break;
      }
      line += (n == 1 ? " " : ", ") + c.value("probe", std::string()) + " " + c.value("status", std::string());
    }
  }
  if (auto ng = pos.find("nearest_known_good"); ng != pos.end() && ng->is_object()) {
    line += "; nearest known good: stack " + ng->value("stack", std::string());
    if (auto d = ng->find("differences"); d != ng->end() && d->is_array()) {
      if (d->empty()) line += " (no differences)";
      size_t n = 0;
      for (const json& x : *d) {
        line += (n++ == 0 ? " (" : ", ") + x.value("component", std::string()) + " " +
                scan::or_none(x.value("yours", std::string())) + " -> " + scan::or_none(x.value("known", std::string()));
        if (n == d->size()) line += ")";
      }
    }
  } else if (verdict != "known_good") {
    line += "; no known-good stack to compare with";
  }
  return line;
}

std::optional<finding> position_finding(const stack_position& p) {
  if (p.verdict != "known_bad") return std::nullopt;
  finding f;
  f.id = "GS-MATRIX-001";
  f.level = severity::warn;
  f.title = "This stack is known bad in the compatibility matrix";
  f.evidence = "stack " + p.row_id + (p.row_note.empty() ? "" : " (" + p.row_note + ")") + ":";
  size_t n = 0;
  for (const matrix_cell* c : p.bad_cells) {
    f.evidence += (n++ == 0 ? " " : "; ") + c->probe + " " + c->status;
    if (!c->detail.empty()) f.evidence += " (" + c->detail + ")";
  }
  if (!p.nearest_id.empty()) {
    f.remediation = "move to the nearest known-good stack " + p.nearest_id + ":";
    size_t k = 0;
    for (const component_difference& d : p.differences)
      f.remediation += (k++ == 0 ? " " : ", ") + d.label + " " + scan::or_none(d.known);
    if (p.differences.empty()) f.remediation += " (same components)";
  } else {
    f.remediation = "gpustack matrix show  # the stacks known to work";
  }
  f.refs = {"docs/matrix.md"};
  f.rule_source = "matrix/compat.toml";
  return f;
}

}  // namespace gs
