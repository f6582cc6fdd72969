// The range of versions a bisection searches; see bisect_versions.h.
#include "bisect/bisect_versions.h"
#include "report/json_path.h"

#include <algorithm>

#include "core/version.h"

namespace gs {
namespace {

std::vector<std::string> strings(const nlohmann::json& j, const char* k) {
  std::vector<std::string> out;
  auto it = j.find(k);
  if (it != j.end() && it->is_array())
    for (const auto& e : *it)
      if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}

}  // namespace

std::optional<version_listing> parse_version_listing(const nlohmann::json& j, std::string* why) {
  if (!j.is_object() || !j.contains("versions") || !j["versions"].is_array()) {
    if (why) *why = "the listing has no \"versions\" array";
    return std::nullopt;
  }
  version_listing l;
  l.source = json_text_at(j, {"source"});
  l.locations = strings(j, "locations");
  l.errors = strings(j, "errors");
  if (j.contains("links") && j["links"].is_object()) {
    l.changelog = json_text_at(j["links"], {"changelog"});
    l.releases = json_text_at(j["links"], {"releases"});
    l.links_from = json_text_at(j["links"], {"from"});
  }
  for (const auto& e : j["versions"]) {
    if (!e.is_object() || json_text_at(e, {"version"}).empty()) continue;
    listed_version v;
    v.version = json_text_at(e, {"version"});
    v.installable = e.value("installable", true);
    v.why_not = json_text_at(e, {"why_not"});
    v.yanked = e.value("yanked", false);
    v.uploaded = json_text_at(e, {"uploaded"});
    l.versions.push_back(std::move(v));
  }
  return l;
}

std::optional<bisect_range> select_range(const version_listing& l, const std::string& good, const std::string& bad,
                                         bool include_prereleases, std::string* why) {
  auto g = version::parse_pep440(good), b = version::parse_pep440(bad);
  for (const auto& [flag, text, v] : {std::tuple{"--good", &good, &g}, std::tuple{"--bad", &bad, &b}})
    if (!*v) {
      if (why) *why = std::string(flag) + ": '" + *text + "' is not a version (PEP 440)";
      return std::nullopt;
    }
  if (compare(*g, *b) == 0) {
    if (why) *why = "--good and --bad are the same release (" + good + "): nothing lies between";
    return std::nullopt;
  }
  struct entry {
    listed_version l;
    version v;
  };
  std::vector<entry> all;
  for (const listed_version& lv : l.versions)
    if (auto v = version::parse_pep440(lv.version)) all.push_back({lv, *v});
  std::sort(all.begin(), all.end(), [](const entry& x, const entry& y) { return compare(x.v, y.v) < 0; });
  auto find_end = [&](const version& want, const std::string& flag, const std::string& text) -> const entry* {
    for (const entry& e : all)
      if (compare(e.v, want) == 0) return &e;
    if (why) {
      // The nearest releases on either side, so a typo ("3.4" for "3.4.0" is fine; "3.4.2" is not) is easy to mend.
      std::string near;
      for (size_t i = 0; i < all.size(); ++i)
        if (compare(all[i].v, want) > 0) {
          if (i > 0) near = all[i - 1].l.version + ", ";
          near += all[i].l.version;
          break;
        }
      if (near.empty() && !all.empty()) near = all.back().l.version;
      *why = flag + ": " + text + " is not a release in the listing" +
             (near.empty() ? " (it lists none)" : " (nearest: " + near + ")");
    }
    return nullptr;
  };
  const entry* ge = find_end(*g, "--good", good);
  if (!ge) return std::nullopt;
  const entry* be = find_end(*b, "--bad", bad);
  if (!be) return std::nullopt;
  bisect_range r;
  r.descending = compare(*g, *b) > 0;
  const version& lo = r.descending ? *b : *g;
  const version& hi = r.descending ? *g : *b;
  const bool pre = include_prereleases || g->is_prerelease() || b->is_prerelease();
  for (const entry& e : all) {
    if (compare(e.v, lo) < 0 || compare(e.v, hi) > 0) continue;
    const bool end = &e == ge || &e == be;
    if (!end && e.v.is_prerelease() && !pre) {
      ++r.prereleases_left_out;
      continue;
    }
    if (!end && e.l.yanked) {
      ++r.yanked_left_out;
      continue;
    }
    if (!e.l.installable && !end) {
      r.left_out.push_back(e.l);
      continue;
    }
    r.line.push_back(e.l);
  }
  if (r.descending) std::reverse(r.line.begin(), r.line.end());
  return r;
}

}  // namespace gs
