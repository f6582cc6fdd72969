// One site-packages directory: a readdir plus, per distribution, a read of the METADATA headers
// (first 64 KiB: torch's headers are ~2 KiB, the rest is the long description), INSTALLER and
// direct_url.json. A 300-package venv is ~900 small reads, a few milliseconds warm.
#include "python/site_packages.h"

#include <cerrno>

#include "detect/path_util.h"
#include "python/dist_info.h"
#include "python/pep503.h"

namespace gs {
namespace {

constexpr size_t kMetadataBytes = 64 << 10;

/// Read a file that may be absent; other failures become issues.
std::optional<std::string> read_optional(const sysroot& sys, const std::string& path, size_t max,
                                         std::vector<detection_issue>& issues) {
  read_result r = sys.read(path, max);
  if (!r) {
    if (r.err != ENOENT && r.err != ENOTDIR) issues.push_back({path, "cannot read: " + errno_name(r.err)});
    return std::nullopt;
  }
  return r.text;
}

void add_package(python_package pkg, const std::string& meta_path, python_info& py,
                 std::vector<detection_issue>& issues) {
  std::string key = pep503_normalize(pkg.name);
  auto it = py.packages.find(key);
  if (it != py.packages.end()) {
    const python_package& first = it->second;
    std::string what = pkg.name + " " + pkg.version;
    issues.push_back({meta_path, first.location == pkg.location
                                     ? what + " is a second copy beside " + first.version +
                                           " (a leftover of an interrupted install; which one imports is unclear)"
                                     : what + " is shadowed by " + first.version + " in " + first.location});
    return;
  }
  py.packages.emplace(std::move(key), std::move(pkg));
}

}  // namespace

bool scan_site_packages(const sysroot& sys, std::string_view dir_view, python_info& py,
                        std::vector<detection_issue>& issues) {
  std::string dir(dir_view);
  int err = 0;
  std::vector<std::string> names = sys.list(dir, &err);
  if (err != 0) {
    issues.push_back({dir, "cannot list site-packages: " + errno_name(err)});
    return false;
  }
  for (const std::string& n : names) {
    // "x.dist-info", never a bare ".dist-info"
    bool dist_info = n.size() > 10 && n.ends_with(".dist-info"), egg_info = n.size() > 9 && n.ends_with(".egg-info");
    if (!dist_info && !egg_info) continue;
    std::string entry = path_join(dir, n);
    std::string meta_path;
    if (dist_info) meta_path = path_join(entry, "METADATA");
    else meta_path = sys.is_dir(entry) ? path_join(entry, "PKG-INFO") : entry;  // egg-info file form
    read_result r = sys.read(meta_path, kMetadataBytes);
    if (!r) {
      auto guess = split_dist_dir_name(n);
      issues.push_back({meta_path, "cannot read metadata of " + (guess ? guess->name : n) + ": " + errno_name(r.err) +
                                       " (package skipped)"});
      continue;
    }
    dist_metadata md;
    std::string why;
    if (!parse_dist_metadata(*r.text, md, why)) {
      issues.push_back({meta_path, "unusable metadata: " + why + " (package skipped)"});
      continue;
    }
    python_package pkg;
    pkg.name = md.name;
    pkg.version = md.version;  // METADATA over the directory name: old installers kept other spellings
    pkg.location = dir;
    if (dist_info) {
      if (auto inst = read_optional(sys, path_join(entry, "INSTALLER"), 4096, issues))
        pkg.installer = parse_installer(*inst);
      if (auto du = read_optional(sys, path_join(entry, "direct_url.json"), 64 << 10, issues))
        pkg.editable = direct_url_is_editable(*du);
    }
    add_package(std::move(pkg), meta_path, py, issues);
  }
  return true;
}

}  // namespace gs
