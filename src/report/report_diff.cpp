// diff_reports: both reports are read as JSON only (tolerating missing sections), so a report
// from another gpustack version diffs too. Suspect ranking: every probe that started failing
// names its dependencies (matrix/probe_deps.toml); a changed component scores one per such
// probe, ties broken by how early the probes list it (a probe's first dependency is its
// likeliest cause: bitsandbytes before torch for py.bnb.*).
#include "report/report_diff.h"

#include <toml++/toml.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "core/assets.h"
#include "matrix/matrix.h"
#include "python/packages.h"
#include "python/pep503.h"

namespace gs {
namespace {

using nlohmann::json;

struct dep_entry {
  std::string match;
  std::vector<std::string> depends;
};

const std::vector<dep_entry>& dep_table() {
  static const std::vector<dep_entry> table = [] {
    constexpr const char* kPath = "matrix/probe_deps.toml";
    std::vector<dep_entry> out;
    std::optional<std::string_view> text = find_asset(kPath);
    if (!text) return out;
    toml::table root;
    try {
      root = toml::parse(*text, std::string_view(kPath));
    } catch (const toml::parse_error& e) {
      throw std::runtime_error(std::string(kPath) + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
    }
    if (const toml::array* arr = root["probe"].as_array())
      for (const toml::node& n : *arr) {
        const toml::table* t = n.as_table();
        if (!t) continue;
        dep_entry d;
        d.match = t->get_as<std::string>("match") ? t->get_as<std::string>("match")->get() : "";
        if (const toml::array* deps = t->get_as<toml::array>("depends"))
          for (const toml::node& x : *deps)
            if (x.is_string()) d.depends.push_back(x.as_string()->get());
        if (d.match.empty() || d.depends.empty())
          throw std::runtime_error(std::string(kPath) + ":" + std::to_string(t->source().begin.line) + ": a [[probe]] needs match and depends");
        out.push_back(std::move(d));
      }
    return out;
  }();
  return table;
}

bool bad(const std::string& s) { return is_bad_status(s); }

std::string text(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number() || j.is_boolean()) return j.dump();
  return "";
}

const json& section(const json& r, std::initializer_list<const char*> path) {
  static const json kEmpty = json::object();
  const json* cur = &r;
  for (const char* k : path) {
    if (!cur->is_object()) return kEmpty;
    auto it = cur->find(k);
    if (it == cur->end()) return kEmpty;
    cur = &*it;
  }
  return cur->is_object() ? *cur : kEmpty;
}

void diff_objects(const json& a, const json& b, const std::string& prefix, const std::set<std::string>& skip,
                  std::vector<value_change>& out) {
  std::set<std::string> keys;
  for (auto it = a.begin(); it != a.end(); ++it) keys.insert(it.key());
  for (auto it = b.begin(); it != b.end(); ++it) keys.insert(it.key());
  for (const std::string& k : keys) {
    if (skip.count(k)) continue;
    std::string va = a.contains(k) ? text(a[k]) : "", vb = b.contains(k) ? text(b[k]) : "";
    if (va != vb) out.push_back({prefix + k, va, vb});
  }
}

std::map<std::string, std::pair<std::string, std::string>> probes_of(const json& r) {
  std::map<std::string, std::pair<std::string, std::string>> out;  // id -> status, detail
  if (!r.is_object() || !r.contains("probes") || !r["probes"].is_array()) return out;
  for (const json& p : r["probes"])
    if (p.is_object() && p.contains("id") && p["id"].is_string())
      out[p["id"].get<std::string>()] = {p.contains("status") ? text(p["status"]) : "", p.contains("detail") ? text(p["detail"]) : ""};
  return out;
}

std::map<std::string, std::string> findings_of(const json& r) {
  std::map<std::string, std::string> out;
  if (!r.is_object() || !r.contains("findings") || !r["findings"].is_array()) return out;
  for (const json& f : r["findings"])
    if (f.is_object() && f.contains("id")) out[text(f["id"])] = f.contains("title") ? text(f["title"]) : "";
  return out;
}

/// "env:HSA_OVERRIDE_GFX_VERSION" answers to the dependency "HSA_OVERRIDE_GFX_VERSION" too.
bool names(const std::string& change, const std::string& dep) {
  if (change == dep) return true;
  size_t colon = change.find(':');
  return colon != std::string::npos && change.substr(colon + 1) == dep;
}

}  // namespace

std::vector<std::string> probe_dependencies(const std::string& id) {
  const dep_entry* best = nullptr;
  size_t best_len = 0;
  for (const dep_entry& d : dep_table()) {
    bool prefix = !d.match.empty() && d.match.back() == '*';
    std::string stem = prefix ? d.match.substr(0, d.match.size() - 1) : d.match;
    bool hit = prefix ? id.rfind(stem, 0) == 0 : id == stem;
    size_t len = stem.size() + (prefix ? 0 : 1);  // an exact id beats a prefix of the same length
    if (hit && (!best || len > best_len)) {
      best = &d;
      best_len = len;
    }
  }
  return best ? best->depends : std::vector<std::string>{};
}

bool report_diff::regressed() const {
  return std::any_of(probes.begin(), probes.end(), [](const probe_change& p) { return p.regression; });
}

report_diff diff_reports(const json& a, const json& b) {
  report_diff d;
  // Versions: the fingerprint's components first (they are what the matrix keys on).
  fingerprint fa = fingerprint_of(a), fb = fingerprint_of(b);
  std::set<std::string> covered;
  for (const fingerprint_component& c : fingerprint_components()) {
    const std::string &va = fa[c.name], &vb = fb[c.name];
    if (c.kind == "package")
      for (const package_interest& p : packages_of_interest())
        if (pep503_normalize(p.logical) == pep503_normalize(c.sources.front()))
          for (std::string_view n : p.names) covered.insert(pep503_normalize(n));
    if (c.kind == "package") covered.insert(pep503_normalize(c.sources.front()));
    if (va == vb) continue;
    if (c.kind == "env") d.settings.push_back({"env:" + c.sources.front(), va, vb});
    else if (c.kind == "setting") d.settings.push_back({"setting:" + c.name, va, vb});
    else d.versions.push_back({c.name, va, vb});
  }
  diff_objects(section(a, {"stack", "python", "packages"}), section(b, {"stack", "python", "packages"}), "pkg:", covered, d.versions);
  std::set<std::string> env_done;
  for (const fingerprint_component& c : fingerprint_components())
    if (c.kind == "env") env_done.insert(c.sources.begin(), c.sources.end());
  diff_objects(section(a, {"env"}), section(b, {"env"}), "env:", env_done, d.settings);
  std::set<std::string> set_done;
  for (const fingerprint_component& c : fingerprint_components())
    if (c.kind == "setting") set_done.insert(c.sources.begin(), c.sources.end());
  diff_objects(section(a, {"settings"}), section(b, {"settings"}), "setting:", set_done, d.settings);

  auto fa_ = findings_of(a), fb_ = findings_of(b);
  for (const auto& [id, title] : fb_)
    if (!fa_.count(id)) d.findings_added.push_back({id, title});
  for (const auto& [id, title] : fa_)
    if (!fb_.count(id)) d.findings_removed.push_back({id, title});

  auto pa = probes_of(a), pb = probes_of(b);
  std::set<std::string> ids;
  for (const auto& [id, v] : pa) ids.insert(id);
  for (const auto& [id, v] : pb) ids.insert(id);
  for (const std::string& id : ids) {
    std::string sa = pa.count(id) ? pa[id].first : "", sb = pb.count(id) ? pb[id].first : "";
    if (sa == sb) continue;
    probe_change c{id, sa, sb, pb.count(id) ? pb[id].second : pa[id].second, false, false};
    c.newly_failing = !bad(sa) && bad(sb);
    c.regression = (sa == "pass" || sa == "warn") && bad(sb);
    d.probes.push_back(std::move(c));
  }

  // Suspects: changed names against the dependency lists of the probes that started failing.
  std::vector<value_change> changed = d.versions;
  changed.insert(changed.end(), d.settings.begin(), d.settings.end());
  for (const value_change& v : changed) {
    suspect s{v.name, v.before, v.after, {}, 0};
    for (const probe_change& p : d.probes) {
      if (!p.newly_failing) continue;
      std::vector<std::string> deps = probe_dependencies(p.id);
      for (size_t i = 0; i < deps.size(); ++i)
        if (names(v.name, deps[i])) {
          s.explains.push_back(p.id);
          s.rank_cost += int(i);
          break;
        }
    }
    if (!s.explains.empty()) d.suspects.push_back(std::move(s));
  }
  std::stable_sort(d.suspects.begin(), d.suspects.end(), [](const suspect& x, const suspect& y) {
    if (x.explains.size() != y.explains.size()) return x.explains.size() > y.explains.size();
    return double(x.rank_cost) / double(x.explains.size()) < double(y.rank_cost) / double(y.explains.size());
  });
  return d;
}

json diff_json(const report_diff& d) {
  auto changes = [](const std::vector<value_change>& v) {
    json a = json::array();
    for (const value_change& c : v) a.push_back({{"name", c.name}, {"before", c.before}, {"after", c.after}});
    return a;
  };
  auto pairs = [](const std::vector<std::pair<std::string, std::string>>& v) {
    json a = json::array();
    for (const auto& [id, title] : v) a.push_back({{"id", id}, {"title", title}});
    return a;
  };
  json probes = json::array();
  for (const probe_change& p : d.probes)
    probes.push_back({{"id", p.id}, {"before", p.before}, {"after", p.after}, {"detail", p.detail},
                      {"newly_failing", p.newly_failing}, {"regression", p.regression}});
  json suspects = json::array();
  for (const suspect& s : d.suspects)
    suspects.push_back({{"component", s.component}, {"before", s.before}, {"after", s.after}, {"explains", s.explains}});
  return {{"versions", changes(d.versions)}, {"settings", changes(d.settings)},
          {"findings_added", pairs(d.findings_added)}, {"findings_removed", pairs(d.findings_removed)},
          {"probes", probes}, {"suspects", suspects}, {"regressed", d.regressed()}};
}

}  // namespace gs
