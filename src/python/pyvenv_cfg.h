// pyvenv.cfg, the file at a virtual environment's root: `key = value` lines written by the
// stdlib venv (home, version, executable, command), uv (home, version_info, uv, relocatable,
// seed) and virtualenv (virtualenv, version_info). Parsed as CPython's site.py does.
#pragma once
#include <map>
#include <string>
#include <string_view>

namespace gs {

struct pyvenv_cfg {
  std::map<std::string, std::string> values;  ///< key lowercased and trimmed -> trimmed value

  /// Directory of the base interpreter ("/usr/bin"); "" when absent.
  std::string home() const;
  /// "3.12.3": version_info (uv, virtualenv) or version (stdlib venv).
  std::string python_version() const;
  /// uv's version when uv made the venv ("0.9.5"), else "".
  std::string uv_version() const;
  /// include-system-site-packages = true (case-insensitive).
  bool include_system_site_packages() const;

 private:
  std::string get(const std::string& key) const;
};

/// Lines without '=' and blank lines are ignored, like site.py; never fails.
pyvenv_cfg parse_pyvenv_cfg(std::string_view text);

}  // namespace gs
