// pyvenv.cfg parsing, following CPython's site.venv(): split each line at the first '=', strip
// both sides, lowercase the key. Later duplicates overwrite earlier ones, as there.
#include "python/pyvenv_cfg.h"

#include "core/text_scan.h"

namespace gs {
namespace {

using scan::lower;

}  // namespace

std::string pyvenv_cfg::get(const std::string& key) const {
  auto it = values.find(key);
  return it == values.end() ? std::string() : it->second;
}

std::string pyvenv_cfg::home() const { return get("home"); }

std::string pyvenv_cfg::python_version() const {
  std::string v = get("version_info");
  return v.empty() ? get("version") : v;
}

std::string pyvenv_cfg::uv_version() const { return get("uv"); }

bool pyvenv_cfg::include_system_site_packages() const {
  return lower(get("include-system-site-packages")) == "true";
}

pyvenv_cfg parse_pyvenv_cfg(std::string_view text) {
  pyvenv_cfg cfg;
  for (std::string_view line : scan::lines(text)) {
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key = lower(scan::trim(line.substr(0, eq)));
    if (key.empty()) continue;
    cfg.values[key] = std::string(scan::trim(line.substr(eq + 1)));
  }
  return cfg;
}

}  // namespace gs
