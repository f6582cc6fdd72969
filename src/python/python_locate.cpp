// Locating the Python environment through a sysroot.
#include "python/python_locate.h"

#include <unistd.h>

#include <climits>

#include "detect/path_util.h"

namespace gs {
namespace {

/// Relative paths are relative to the cwd on a live machine, to the tree root otherwise.
std::string absolutize(const sysroot& sys, std::string_view p, std::string_view cwd) {
  if (!p.empty() && p.front() == '/') return path_normalize(p);
  std::string base(cwd);
  if (base.empty() && sys.is_live()) {
    char buf[PATH_MAX];
    if (::getcwd(buf, sizeof buf)) base = buf;
  }
  if (base.empty()) base = "/";
  return path_normalize(path_join(base, p));
}

std::string kind_of_root(const sysroot& sys, const std::string& root) {
  if (stat_resolved(sys, path_join(root, "pyvenv.cfg")).exists) return "venv";
  if (stat_resolved(sys, path_join(root, "conda-meta")).is_dir) return "conda";
  return "";
}

bool has_site_packages_dir(const sysroot& sys, const std::string& root) {
  for (const std::string& n : sys.list(path_join(root, "lib")))
    if (n.rfind("python3", 0) == 0 && stat_resolved(sys, path_join(root, "lib/" + n + "/site-packages")).is_dir)
      return true;
  return false;
}

std::string env_var(const sysroot& sys, const char* name) {
  auto env = sys.environment();
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

/// pyenv puts shell-script shims first on PATH (~/.pyenv/shims/python3); the interpreter they
/// run is chosen by PYENV_VERSION, a .python-version file from the cwd upwards, or the global
/// $PYENV_ROOT/version. Returns the interpreter, "system" (the shim defers to the next python3 on
/// PATH), or "" when `path` is not a pyenv shim.
std::string pyenv_target(const sysroot& sys, const std::string& path, const std::string& cwd) {
  std::string shims = path_dirname(path), root = path_dirname(shims);
  if (path_basename(shims) != "shims" || !stat_resolved(sys, path_join(root, "versions")).is_dir) return "";
  std::string version = env_var(sys, "PYENV_VERSION");
  auto first_word = [](std::string_view text) {
    size_t b = text.find_first_not_of(" \t\r\n:");
    if (b == std::string_view::npos) return std::string();
    size_t e = text.find_first_of(" \t\r\n:", b);
    return std::string(text.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
  };
  version = first_word(version);
  for (std::string dir = cwd; version.empty() && !dir.empty(); dir = dir == "/" ? "" : path_dirname(dir))
    if (auto t = sys.read_text(path_join(dir, ".python-version"))) version = first_word(*t);
  if (version.empty())
    if (auto t = sys.read_text(path_join(root, "version"))) version = first_word(*t);
  if (version.empty() || version == "system") return "system";
  return path_join(root, "versions/" + version + "/bin/python3");
}

}  // namespace

std::string python_xy_from_name(std::string_view name) {
  constexpr std::string_view kPrefix = "python3.";
  if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix) return "";
  std::string_view minor = name.substr(kPrefix.size());
  if (!minor.empty() && minor.back() == 't') minor.remove_suffix(1);  // free-threaded build
  if (minor.empty() || minor.size() > 3) return "";
  for (char c : minor)
    if (c < '0' || c > '9') return "";
  return "3." + std::string(minor);
}

python_location location_for_interpreter(const sysroot& sys, std::string_view path, std::string_view how,
                                         std::vector<detection_issue>& issues) {
  python_location loc;
  std::string abs = absolutize(sys, path, "");
  if (!stat_resolved(sys, abs).exists && !sys.readlink(abs)) {
    issues.push_back({abs, std::string(how) + ": no such interpreter"});
    return loc;
  }
  // The file named must be a Python: `--python /bin/false` once read as "Python 3.11" from the
  // system prefix around it. Interpreters are named python, python3, python3.12(t), pypy3...
  std::string real = resolve_path(sys, abs);
  std::string base = path_basename(real.empty() ? abs : real);
  if (base.rfind("python", 0) != 0 && base.rfind("pypy", 0) != 0) {
    issues.push_back({abs, std::string(how) + ": not a Python interpreter (it is '" + base + "')"});
    return loc;
  }
  // Mode bits only on a live machine: a captured tree (snapshot, fixture) need not keep them.
  node_stat st = stat_resolved(sys, abs);
  if (st.exists && (st.is_dir || (sys.is_live() && (st.mode & 0111) == 0))) {
    issues.push_back({abs, std::string(how) + (st.is_dir ? ": a directory, not an interpreter (--venv takes a directory)"
                                                         : ": not executable")});
    return loc;
  }
  loc.interpreter = abs;
  loc.how_found = std::string(how);
  std::string root = path_dirname(path_dirname(abs));
  std::string kind = kind_of_root(sys, root);
  if (kind.empty()) {
    // Not inside an env as named: follow the links (/usr/bin/python3 -> python3.12, or a
    // ~/bin/python -> some-venv/bin/python shortcut).
    root = path_dirname(path_dirname(real));
    kind = kind_of_root(sys, root);
    if (kind.empty()) kind = "system";
  }
  loc.prefix = resolve_path(sys, root);
  loc.kind = kind;
  loc.found = true;
  return loc;
}

python_location location_for_env_dir(const sysroot& sys, std::string_view dir, std::string_view how,
                                     std::vector<detection_issue>& issues) {
  python_location loc;
  std::string real = resolve_path(sys, absolutize(sys, dir, ""));
  if (!sys.is_dir(real)) {
    issues.push_back({real, std::string(how) + ": not a directory"});
    return loc;
  }
  std::string kind = kind_of_root(sys, real);
  if (kind.empty()) {
    if (!has_site_packages_dir(sys, real)) {
      issues.push_back({real, std::string(how) + ": not a Python environment (no pyvenv.cfg, conda-meta or lib/python3.X)"});
      return loc;
    }
    issues.push_back({path_join(real, "pyvenv.cfg"), "missing: treating the directory as a venv"});
    kind = "venv";
  }
  loc.prefix = real;
  loc.kind = kind;
  loc.how_found = std::string(how);
  std::string py3 = path_join(real, "bin/python3"), py = path_join(real, "bin/python");
  loc.interpreter = (stat_resolved(sys, py3).exists || sys.readlink(py3)) ? py3 : py;
  loc.found = true;
  return loc;
}

python_location locate_python(const sysroot& sys, const detect_options& opts, std::vector<detection_issue>& issues) {
  std::string cwd = opts.cwd;
  if (cwd.empty() && sys.is_live()) cwd = absolutize(sys, ".", "");
  if (!opts.python.empty()) {
    // `--python $(which python3)` names a pyenv shim on many ML boxes: follow it to the real one.
    std::string target = pyenv_target(sys, absolutize(sys, opts.python, ""), cwd);
    bool shim = !target.empty() && target != "system";
    return location_for_interpreter(sys, shim ? target : opts.python, "--python", issues);
  }
  if (!opts.venv.empty()) return location_for_env_dir(sys, opts.venv, "--venv", issues);
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    std::string v = env_var(sys, var);
    if (v.empty()) continue;
    python_location loc = location_for_env_dir(sys, v, var, issues);
    if (loc.found) return loc;
  }
  if (!cwd.empty()) {
    std::string dot_venv = path_join(absolutize(sys, cwd, ""), ".venv");
    if (stat_resolved(sys, dot_venv).is_dir) {
      python_location loc = location_for_env_dir(sys, dot_venv, "./.venv", issues);
      if (loc.found) return loc;
    }
  }
  // A shell's default PATH when the (captured) environment has none.
  std::string path = env_var(sys, "PATH");
  if (path.empty()) path = "/usr/local/bin:/usr/bin:/bin";
  for (const std::string& dir : split_path_list(path)) {
    if (dir.front() != '/') continue;  // relative PATH entries depend on the cwd: skip
    std::string cand = path_join(dir, "python3");
    if (!stat_resolved(sys, cand).exists) continue;
    std::string target = pyenv_target(sys, cand, cwd);
    if (target == "system") continue;
    if (!target.empty()) return location_for_interpreter(sys, target, "pyenv", issues);
    return location_for_interpreter(sys, cand, "PATH", issues);
  }
  return {};
}

}  // namespace gs
