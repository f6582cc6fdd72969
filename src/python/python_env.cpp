// detect_python: locate the environment (python_locate.cpp), derive its layout from files
// (pyvenv.cfg, conda-meta/, Debian's dist-packages scheme), read every installed distribution
// (site_packages.cpp), torch/version.py, and the vendor libraries torch and the nvidia-* wheels
// bundle. Python is never run: `check` must answer in well under a second on a captured tree.
#include <algorithm>
#include <cerrno>

#include "detect/detect.h"
#include "detect/lib_inventory.h"
#include "detect/path_util.h"
#include "python/packages.h"
#include "python/python_locate.h"
#include "python/pyvenv_cfg.h"
#include "python/site_packages.h"
#include "python/torch_version.h"

namespace gs {
namespace {

std::string env_var(const std::map<std::string, std::string>& env, const char* name) {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

/// "3.12.3" -> "3.12".
std::string major_minor(std::string_view v) {
  size_t dot1 = v.find('.');
  if (dot1 == std::string_view::npos) return "";
  size_t dot2 = v.find('.', dot1 + 1);
  return std::string(v.substr(0, dot2));
}

/// python3.X directories under prefix/lib, newest first ("3.13" before "3.9").
std::vector<std::string> lib_python_versions(const sysroot& sys, const std::string& prefix) {
  std::vector<std::string> out;
  for (const std::string& n : sys.list(path_join(prefix, "lib")))
    if (std::string xy = python_xy_from_name(n); !xy.empty() && std::find(out.begin(), out.end(), xy) == out.end())
      out.push_back(xy);
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return std::stoi(a.substr(2)) > std::stoi(b.substr(2));
  });
  return out;
}

/// Add `dir` when it exists (resolved; no duplicates, lib64 is usually a link to lib).
void add_site_dir(const sysroot& sys, const std::string& dir, std::vector<std::string>& dirs) {
  std::string real = resolve_path(sys, dir);
  if (!sys.is_dir(real)) return;
  if (std::find(dirs.begin(), dirs.end(), real) == dirs.end()) dirs.push_back(real);
}

/// Site directories of a system interpreter at `prefix` (Debian/Ubuntu and the upstream scheme).
void add_system_site_dirs(const sysroot& sys, const std::string& prefix, const std::string& xy,
                          std::vector<std::string>& dirs) {
  std::string py = "python" + xy;
  if (prefix == "/usr") add_site_dir(sys, "/usr/local/lib/" + py + "/dist-packages", dirs);  // pip as root
  add_site_dir(sys, path_join(prefix, "lib/python3/dist-packages"), dirs);                   // apt
  add_site_dir(sys, path_join(prefix, "lib/" + py + "/dist-packages"), dirs);
  add_site_dir(sys, path_join(prefix, "lib/" + py + "/site-packages"), dirs);                // upstream, Fedora
  add_site_dir(sys, path_join(prefix, "lib64/" + py + "/site-packages"), dirs);
}

/// Fill version, env kind and the site-packages dirs in sys.path order.
void derive_layout(const sysroot& sys, const python_location& loc, const std::map<std::string, std::string>& env,
                   python_info& py, std::vector<detection_issue>& issues) {
  py.found = true;
  py.prefix = loc.prefix;
  py.interpreter = loc.interpreter;
  py.how_found = loc.how_found;
  std::vector<std::string> dirs;
  std::string xy;
  if (loc.kind == "venv") {
    std::string cfg_path = path_join(loc.prefix, "pyvenv.cfg");
    read_result r = sys.read(cfg_path, 64 << 10);
    pyvenv_cfg cfg;
    if (r) cfg = parse_pyvenv_cfg(*r.text);
    else issues.push_back({cfg_path, "cannot read: " + errno_name(r.err)});
    py.env_kind = cfg.uv_version().empty() ? "venv" : "uv";
    py.version = cfg.python_version();
    xy = major_minor(py.version);
    if (xy.empty()) {
      auto found = lib_python_versions(sys, loc.prefix);
      if (!found.empty()) xy = found.front();
      if (found.size() > 1)
        issues.push_back({path_join(loc.prefix, "lib"), "several python3.X directories and no version in pyvenv.cfg"});
      py.version = xy;
    }
    // A venv's interpreter is a link to the base Python; a dangling one means the base was
    // removed (uv python uninstall, a pyenv version deleted) and the venv cannot start.
    // The resolved target (not the link text) keeps the message the same on a snapshot replay,
    // which may store an absolute link as a relative one.
    if (sys.readlink(loc.interpreter) && !stat_resolved(sys, loc.interpreter).exists)
      issues.push_back({loc.interpreter, "links to " + resolve_path(sys, loc.interpreter) +
                                             ", which does not exist: the venv's base Python is gone"});
    add_site_dir(sys, path_join(loc.prefix, "lib/python" + xy + "/site-packages"), dirs);
    add_site_dir(sys, path_join(loc.prefix, "lib64/python" + xy + "/site-packages"), dirs);
    if (cfg.include_system_site_packages() && !cfg.home().empty())
      add_system_site_dirs(sys, path_dirname(resolve_path(sys, cfg.home())), xy, dirs);
  } else if (loc.kind == "conda") {
    py.env_kind = "conda";
    // conda-meta/python-3.12.3-h5148396_0.json names the interpreter's full version.
    for (const std::string& n : sys.list(path_join(loc.prefix, "conda-meta")))
      if (n.rfind("python-", 0) == 0 && n.size() > 7 && n[7] >= '0' && n[7] <= '9') {
        py.version = n.substr(7, n.find('-', 7) - 7);
        break;
      }
    xy = major_minor(py.version);
    if (xy.empty()) {
      auto found = lib_python_versions(sys, loc.prefix);
      if (!found.empty()) xy = py.version = found.front();
    }
    add_site_dir(sys, path_join(loc.prefix, "lib/python" + xy + "/site-packages"), dirs);
  } else {
    py.env_kind = "system";
    xy = python_xy_from_name(path_basename(resolve_path(sys, loc.interpreter)));
    if (xy.empty()) xy = python_xy_from_name(path_basename(loc.interpreter));
    if (xy.empty()) {
      auto found = lib_python_versions(sys, loc.prefix);
      if (!found.empty()) xy = found.front();
    }
    py.version = xy;
    // The user site comes before the system dirs on sys.path (site.py adds it first).
    std::string home = env_var(env, "HOME");
    if (!home.empty() && env_var(env, "PYTHONNOUSERSITE").empty() && !xy.empty())
      add_site_dir(sys, path_join(home, ".local/lib/python" + xy + "/site-packages"), dirs);
    if (!xy.empty()) add_system_site_dirs(sys, loc.prefix, xy, dirs);
  }
  if (xy.empty()) issues.push_back({loc.prefix, "cannot tell the Python version (no pyvenv.cfg version, no lib/python3.X)"});
  if (dirs.empty()) issues.push_back({loc.prefix, "no site-packages directory found"});
  py.site_packages = dirs;
}

/// torch/version.py next to the torch distribution that wins.
void read_torch_version(const sysroot& sys, python_info& py, std::vector<detection_issue>& issues) {
  const python_package* torch = find_package(py, "torch");
  if (!torch) return;
  std::string path = path_join(torch->location, "torch/version.py");
  read_result r = sys.read(path, 64 << 10);
  if (!r) {
    issues.push_back({path, "cannot read: " + errno_name(r.err) + " (torch's CUDA/HIP build unknown)"});
    return;
  }
  torch_version_py v = parse_torch_version_py(*r.text);
  if (!v.any) {
    issues.push_back({path, "no __version__, cuda or hip in the file"});
    return;
  }
  py.torch_cuda = v.cuda;
  py.torch_hip = v.hip;
}

/// Libraries the wheels bring: torch/lib (ROCm wheels bundle libamdhip64 and friends), the
/// nvidia-* wheels' nvidia/*/lib, and Triton's AMD backend lib.
void inventory_wheel_libraries(const sysroot& sys, const python_info& py, machine_facts& facts) {
  std::vector<std::string_view> all = rocm_library_stems();
  for (std::string_view s : nvidia_library_stems()) all.push_back(s);
  if (const python_package* torch = find_package(py, "torch"))
    scan_library_dir(sys, path_join(torch->location, "torch/lib"), all, "torch", facts.stack.libraries, facts.issues);
  for (const python_package* tr : find_all_packages(py, "triton"))
    scan_library_dir(sys, path_join(tr->location, "triton/backends/amd/lib"), rocm_library_stems(), "triton",
                     facts.stack.libraries, facts.issues);
  for (const std::string& site : py.site_packages)
    for (const std::string& d : sys.list(path_join(site, "nvidia")))
      scan_library_dir(sys, path_join(site, "nvidia/" + d + "/lib"), nvidia_library_stems(), "pip-nvidia",
                       facts.stack.libraries, facts.issues);
}

/// The libamdhip64 torch loads: its bundled copy (RPATH $ORIGIN), else the first one the loader
/// finds with the HIP major torch was built for, else what detect_toolkits chose.
void pick_hip_runtime(machine_facts& facts) {
  for (const library_info& l : facts.stack.libraries)
    if (l.name == "libamdhip64" && l.origin == "torch") {
      facts.stack.hip_runtime_source = l.path;
      return;
    }
  const std::string& hip = facts.python.torch_hip;
  if (hip.empty()) return;
  std::string major = hip.substr(0, hip.find('.'));
  for (const library_info& l : facts.stack.libraries) {
    if (l.name != "libamdhip64" || l.origin == "triton") continue;
    if (l.soname == "libamdhip64.so." + major || l.version.rfind(major + ".", 0) == 0) {
      facts.stack.hip_runtime_source = l.path;
      return;
    }
  }
}

/// Several distributions of one import module (triton and pytorch-triton-rocm): the files of
/// the last one installed win, which files alone cannot tell.
void note_module_conflicts(const python_info& py, std::vector<detection_issue>& issues) {
  for (const package_interest& p : packages_of_interest()) {
    if (!p.same_module) continue;
    auto all = find_all_packages(py, p.logical);
    if (all.size() < 2) continue;
    std::string list;
    for (const python_package* pkg : all) list += (list.empty() ? "" : ", ") + pkg->name + " " + pkg->version;
    issues.push_back({all.front()->location, "several distributions install the " + std::string(p.logical) +
                                                 " module (" + list + "): which one imports depends on install order"});
  }
}

}  // namespace

void detect_python(const sysroot& sys, const detect_options& opts, machine_facts& facts) {
  python_location loc = locate_python(sys, opts, facts.issues);
  if (!loc.found) return;
  std::map<std::string, std::string> env = sys.environment();
  derive_layout(sys, loc, env, facts.python, facts.issues);
  // PYTHONPATH entries precede site-packages on sys.path, so their distributions win.
  for (const std::string& d : split_path_list(env_var(env, "PYTHONPATH"))) {
    if (d.front() != '/') continue;
    std::string real = resolve_path(sys, d);
    if (sys.is_dir(real)) scan_site_packages(sys, real, facts.python, facts.issues);
  }
  for (const std::string& site : facts.python.site_packages) scan_site_packages(sys, site, facts.python, facts.issues);
  read_torch_version(sys, facts.python, facts.issues);
  inventory_wheel_libraries(sys, facts.python, facts);
  pick_hip_runtime(facts);
  note_module_conflicts(facts.python, facts.issues);
}

}  // namespace gs
