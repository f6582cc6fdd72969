// The scratch environment of one bisection trial: the user's own stack with one package changed.
// The version is installed with no dependencies into a directory of its own that goes first on
// PYTHONPATH, so the user's interpreter imports it and everything else from its own
// site-packages: nothing is copied, nothing of the user's is touched (docs/bisect.md). Installed
// with uv where it is on PATH, else the user's `python -m pip`, else the pip of a venv that
// `python -m venv` makes once under the bisection's state directory (uv-made venvs have no pip).
// Downloads go through a wheel cache under the state directory, bounded by --disk-limit.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gs {

struct installer {
  std::string kind;               ///< "uv", "pip", "pip (venv made for gpustack)"
  std::vector<std::string> argv;  ///< the command up to its options: {uv, pip, install} or {python, -m, pip, install}
};

/// The venv gpustack makes once with `python -m venv DIR` (it brings pip): its interpreter, or
/// nullopt and *why. Made only when absent.
std::optional<std::string> ensure_tool_venv(const std::string& python, const std::string& dir, std::string* why);

/// The helpers (probes/python/bisect_*.py) read versions and requirements with pip's `packaging`.
/// "" when `python` has it (pip or packaging importable); else the site-packages of the tool venv,
/// which the helpers borrow it from without seeing that venv's distributions (a venv made by uv
/// has no pip). nullopt and *why when neither works.
std::optional<std::string> packaging_path_for(const std::string& python, const std::string& tool_dir, std::string* why);

/// `name` on $PATH as an executable path, "" when absent.
std::string find_on_path(const std::string& name);

/// The installer this machine offers (see the header comment). nullopt and *why when none works.
std::optional<installer> choose_installer(const std::string& python, const std::string& tool_dir, bool allow_uv,
                                          std::string* why);

struct install_request {
  std::string python;      ///< the user's interpreter (uv installs for it)
  std::string package, version;
  std::string target;      ///< the scratch directory (created empty)
  std::string cache_dir;   ///< the wheel cache
  std::string find_links;  ///< a wheelhouse: offline, nothing else
  std::string index_url;   ///< --index-url, else what the installer is configured for
  double timeout_s = 900;
};

/// The whole install command (installer argv + options + PACKAGE==VERSION).
std::vector<std::string> install_argv(const installer& in, const install_request& r);

struct install_outcome {
  bool ok = false;
  bool timed_out = false;
  double seconds = 0;
  std::string output;  ///< the installer's last lines
  std::string reason;  ///< one line: the installer's error line, for the report
};
install_outcome install_version(const installer& in, const install_request& r);

/// PYTHONPATH for a trial: the scratch directory, then whatever the user had.
std::string trial_pythonpath(const std::string& scratch);

/// Bytes under `dir` (files only, links not followed); 0 when absent.
uint64_t directory_bytes(const std::string& dir);
/// rm -rf; false with *why when something stayed.
bool remove_tree(const std::string& dir, std::string* why);
/// Bytes free for an unprivileged user on the filesystem of `dir`; nullopt when unknown.
std::optional<uint64_t> free_bytes(const std::string& dir);

}  // namespace gs
