// Installing one version of a package beside the user's stack; see bisect_env.h.
#include "bisect/bisect_env.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "core/text_scan.h"
#include "sys/subprocess_capture.h"

namespace gs {
namespace fs = std::filesystem;

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  for (std::string_view dir : scan::split(path, ':')) {
    if (dir.empty()) continue;
    std::string p = std::string(dir) + "/" + name;
    if (::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p)) return p;
  }
  return "";
}

std::optional<std::string> ensure_tool_venv(const std::string& python, const std::string& dir, std::string* why) {
  const std::string venv_python = dir + "/bin/python";
  if (::access(venv_python.c_str(), X_OK) == 0) return venv_python;
  captured_run mk = run_captured({python, "-m", "venv", dir}, 300);
  if (mk.exit_code == 0 && ::access(venv_python.c_str(), X_OK) == 0) return venv_python;
  if (why) {
    std::string tail = mk.output.substr(mk.output.size() > 300 ? mk.output.size() - 300 : 0);
    *why = "`" + python + " -m venv " + dir + "` failed (" + std::string(scan::trim(tail)) + ")";
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return std::nullopt;
}

std::optional<std::string> packaging_path_for(const std::string& python, const std::string& tool_dir, std::string* why) {
  const char* probe = "try:\n import pip._vendor.packaging.tags\nexcept ImportError:\n import packaging.tags\n";
  if (run_captured({python, "-c", probe}, 60).exit_code == 0) return std::string();
  auto venv_python = ensure_tool_venv(python, tool_dir, why);
  if (!venv_python) {
    if (why) *why = python + " has neither pip nor packaging, and " + *why + ": install uv or pip into it";
    return std::nullopt;
  }
  captured_run site = run_captured({*venv_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"}, 60);
  std::string dir(scan::trim(site.output));
  if (site.exit_code != 0 || dir.empty() || dir.find('\n') != std::string::npos) {
    if (why) *why = "cannot ask " + *venv_python + " for its site-packages";
    return std::nullopt;
  }
  return dir;
}

std::optional<installer> choose_installer(const std::string& python, const std::string& tool_dir, bool allow_uv,
                                          std::string* why) {
  if (allow_uv)
    if (std::string uv = find_on_path("uv"); !uv.empty()) return installer{"uv", {uv, "pip", "install"}};
  captured_run own = run_captured({python, "-m", "pip", "--version"}, 60);
  if (own.exit_code == 0) return installer{"pip", {python, "-m", "pip", "install"}};
  // No pip in the user's environment (a uv venv): a venv of the same interpreter brings one. Its pip
  // installs with --target for the same Python version, which is all a trial needs.
  std::string venv_why;
  auto venv_python = ensure_tool_venv(python, tool_dir, &venv_why);
  if (!venv_python) {
    if (why) *why = "no uv on PATH, no pip in " + python + ", and " + venv_why + ": install uv, or pip into that Python";
    return std::nullopt;
  }
  captured_run theirs = run_captured({*venv_python, "-m", "pip", "--version"}, 60);
  if (theirs.exit_code == 0) return installer{"pip (venv made for gpustack)", {*venv_python, "-m", "pip", "install"}};
  if (why) *why = "no uv on PATH and no pip in " + python + " or in the venv gpustack made (" + tool_dir + ")";
  return std::nullopt;
}

std::vector<std::string> install_argv(const installer& in, const install_request& r) {
  std::vector<std::string> a = in.argv;
  if (in.kind == "uv") {
    a.insert(a.end(), {"--python", r.python});
  } else {
    a.insert(a.end(), {"--no-input", "--disable-pip-version-check", "--no-warn-script-location"});
  }
  a.insert(a.end(), {"--no-deps", "--target", r.target, "--cache-dir", r.cache_dir});
  if (!r.find_links.empty()) {
    a.insert(a.end(), {"--no-index", "--find-links", r.find_links});
  } else if (!r.index_url.empty()) {
    a.insert(a.end(), {"--index-url", r.index_url});
  }
  a.push_back(r.package + "==" + r.version);
  return a;
}

install_outcome install_version(const installer& in, const install_request& r) {
  install_outcome o;
  std::error_code ec;
  fs::remove_all(r.target, ec);
  fs::create_directories(r.target, ec);
  const auto t0 = std::chrono::steady_clock::now();
  captured_run run = run_captured(install_argv(in, r), r.timeout_s, {{"PIP_PROGRESS_BAR", "off"}});
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.timed_out = run.timed_out;
  o.ok = run.started && !run.timed_out && run.exit_code == 0;
  o.output = run.output.size() > 4096 ? run.output.substr(run.output.size() - 4096) : run.output;
  if (!run.started) o.reason = "could not start " + in.argv.front() + ": " + run.error;
  else if (run.timed_out) o.reason = "the install did not finish in " + std::to_string(int(r.timeout_s)) + " s";
  if (!o.ok && o.reason.empty()) {
    // pip and uv both put the reason on a line starting "ERROR:" / "error:" (uv: "  × ...").
    for (std::string_view line : scan::split(run.output, '\n')) {
      std::string_view t = scan::trim(line);
      if (t.rfind("ERROR:", 0) == 0 || t.rfind("error:", 0) == 0 || t.rfind("× ", 0) == 0) {
        o.reason = std::string(t);
        break;
      }
    }
    if (o.reason.empty()) o.reason = "the installer exited " + std::to_string(run.exit_code);
  }
  return o;
}

std::string trial_pythonpath(const std::string& scratch) {
  const char* old = std::getenv("PYTHONPATH");
  return old && *old ? scratch + ":" + old : scratch;
}

uint64_t directory_bytes(const std::string& dir) {
  std::error_code ec;
  uint64_t total = 0;
  if (!fs::is_directory(dir, ec)) return 0;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code e2;
    if (it->is_regular_file(e2) && !it->is_symlink(e2)) total += it->file_size(e2);
  }
  return total;
}

bool remove_tree(const std::string& dir, std::string* why) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec && why) *why = "cannot remove " + dir + ": " + ec.message();
  return !ec;
}

std::optional<uint64_t> free_bytes(const std::string& dir) {
  struct statvfs s {};
  if (::statvfs(dir.c_str(), &s) != 0) return std::nullopt;
  return uint64_t(s.f_bavail) * s.f_frsize;
}

}  // namespace gs
