// Stack fingerprints: the component table (matrix/fingerprint.toml) and how a report's
// gpus[]/stack/env/settings sections become one value per component.
#include <toml++/toml.h>

#include <algorithm>
#include <stdexcept>

#include "core/assets.h"
#include "core/sha256.h"
#include "matrix/matrix.h"
#include "python/packages.h"
#include "python/pep503.h"

namespace gs {
namespace {

using nlohmann::json;

constexpr const char* kTable = "matrix/fingerprint.toml";

[[noreturn]] void table_error(const toml::source_region& at, const std::string& msg) {
  throw std::runtime_error(std::string(kTable) + ":" + std::to_string(at.begin.line) + ":" +
                           std::to_string(at.begin.column) + ": " + msg);
}

std::vector<fingerprint_component> load_components() {
  std::optional<std::string_view> text = find_asset(kTable);
  if (!text) throw std::runtime_error(std::string(kTable) + " is not embedded");
  toml::table root;
  try {
    root = toml::parse(*text, std::string_view(kTable));
  } catch (const toml::parse_error& e) {
    table_error(e.source(), std::string(e.description()));
  }
  std::vector<fingerprint_component> out;
  const toml::array* arr = root["component"].as_array();
  if (!arr) table_error(root.source(), "no [[component]] tables");
  for (const toml::node& n : *arr) {
    const toml::table* t = n.as_table();
    if (!t) table_error(n.source(), "component must be a table");
    fingerprint_component c;
    auto str = [&](const char* key) {
      const toml::node* v = t->get(key);
      if (!v || !v->is_string()) table_error(t->source(), std::string("'") + key + "' must be a string");
      return v->as_string()->get();
    };
    c.name = str("name");
    c.label = str("label");
    c.kind = str("kind");
    if (c.kind != "path" && c.kind != "package" && c.kind != "env" && c.kind != "setting")
      table_error(t->get("kind")->source(), "kind must be path, package, env or setting");
    const toml::array* from = t->get_as<toml::array>("from");
    if (!from || from->empty()) table_error(t->source(), "'from' must be a non-empty array of strings");
    for (const toml::node& s : *from) {
      if (!s.is_string()) table_error(s.source(), "'from' must hold strings");
      c.sources.push_back(s.as_string()->get());
    }
    for (const fingerprint_component& o : out)
      if (o.name == c.name) table_error(t->source(), "component '" + c.name + "' is listed twice");
    out.push_back(std::move(c));
  }
  return out;
}

std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  return "";
}

/// Walks a JSON pointer whose segments may be '*' (every element), collecting scalar values.
void walk(const json& j, const std::vector<std::string>& segs, size_t i, std::vector<std::string>& out) {
  if (i == segs.size()) {
    std::string s = scalar_text(j);
    if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    return;
  }
  const std::string& k = segs[i];
  if (k == "*") {
    if (j.is_array() || j.is_object())
      for (const json& e : j) walk(e, segs, i + 1, out);
    return;
  }
  if (j.is_object()) {
    auto it = j.find(k);
    if (it != j.end()) walk(*it, segs, i + 1, out);
  } else if (j.is_array() && !k.empty() && std::all_of(k.begin(), k.end(), ::isdigit)) {
    size_t idx = std::stoul(k);
    if (idx < j.size()) walk(j[idx], segs, i + 1, out);
  }
}

std::string from_path(const json& report, const std::string& pointer) {
  std::vector<std::string> segs;
  size_t pos = pointer.empty() || pointer[0] != '/' ? 0 : 1;
  while (pos <= pointer.size()) {
    size_t slash = pointer.find('/', pos);
    if (slash == std::string::npos) slash = pointer.size();
    segs.push_back(pointer.substr(pos, slash - pos));
    pos = slash + 1;
  }
  std::vector<std::string> vals;
  walk(report, segs, 0, vals);
  std::string joined;
  for (const std::string& v : vals) joined += (joined.empty() ? "" : "+") + v;
  return joined;
}

std::string from_package(const json& report, const std::string& logical) {
  const json* pkgs = nullptr;
  if (auto s = report.find("stack"); s != report.end() && s->is_object())
    if (auto p = s->find("python"); p != s->end() && p->is_object())
      if (auto k = p->find("packages"); k != p->end() && k->is_object()) pkgs = &*k;
  if (!pkgs) return "";
  std::vector<std::string> names;
  std::string key = pep503_normalize(logical);
  for (const package_interest& p : packages_of_interest())
    if (pep503_normalize(p.logical) == key)
      for (std::string_view n : p.names) names.push_back(pep503_normalize(n));
  if (names.empty()) names.push_back(key);
  // Reports keep PEP 503 names, but a hand-made one may not: compare normalised keys.
  for (const std::string& want : names)
    for (auto it = pkgs->begin(); it != pkgs->end(); ++it)
      if (pep503_normalize(it.key()) == want && !scalar_text(it.value()).empty()) return scalar_text(it.value());
  return "";
}

std::string from_object(const json& report, const char* section, const std::string& name) {
  auto s = report.find(section);
  if (s == report.end() || !s->is_object()) return "";
  auto v = s->find(name);
  return v == s->end() ? "" : scalar_text(*v);
}

}  // namespace

const std::vector<fingerprint_component>& fingerprint_components() {
  static const std::vector<fingerprint_component> table = load_components();
  return table;
}

fingerprint fingerprint_of(const json& report) {
  fingerprint fp;
  for (const fingerprint_component& c : fingerprint_components()) {
    std::string v;
    for (const std::string& src : c.sources) {
      if (!report.is_object()) break;
      if (c.kind == "path") v = from_path(report, src);
      else if (c.kind == "package") v = from_package(report, src);
      else if (c.kind == "env") v = from_object(report, "env", src);
      else v = from_object(report, "settings", src);
      if (!v.empty()) break;
    }
    fp[c.name] = v;
  }
  return fp;
}

std::string fingerprint_id(const fingerprint& fp) {
  std::string canon;
  for (const auto& [k, v] : fp) canon += k + "=" + v + "\n";
  return sha256_hex(canon).substr(0, 10);
}

bool value_matches(std::string_view row, std::string_view live) {
  if (row == "*" || row == live) return true;
  if (row.empty() || live.size() <= row.size() || live.substr(0, row.size()) != row) return false;
  char next = live[row.size()];
  return next == '.' || next == '+' || next == '-';
}

bool is_bad_status(std::string_view s) { return s == "fail" || s == "hang" || s == "crash" || s == "error"; }

row_verdict verdict_of(const matrix_row& row) {
  bool ran = false;
  for (const matrix_cell& c : row.cells) {
    if (is_bad_status(c.status)) return row_verdict::bad;
    if (c.status == "pass" || c.status == "warn") ran = true;
  }
  return ran ? row_verdict::good : row_verdict::unknown;
}

std::string_view to_string(row_verdict v) {
  switch (v) {
    case row_verdict::good: return "good";
    case row_verdict::bad: return "bad";
    case row_verdict::unknown: return "unknown";
  }
  return "unknown";
}

const matrix_cell* matrix_row::cell(std::string_view probe) const {
  for (const matrix_cell& c : cells)
    if (c.probe == probe) return &c;
  return nullptr;
}

matrix_row* compat_matrix::find(const fingerprint& fp) {
  for (matrix_row& r : rows)
    if (r.fp == fp) return &r;
  return nullptr;
}

}  // namespace gs
