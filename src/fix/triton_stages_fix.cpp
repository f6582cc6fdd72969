// The file side of `gpustack fix triton-stages` (triton_stages_fix.h): asking an interpreter for
// its site dir, composing the two files, writing them without clobbering anyone else's, and
// finding exactly what an earlier run wrote.
#include "fix/triton_stages_fix.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/assets.h"
#include "sys/subprocess_capture.h"

namespace gs {
namespace {

// -I: ignore PYTHONPATH and the user site. Not -S: in a venv it is site.py that moves sys.prefix
// to the venv (without it purelib would name the base interpreter's site-packages); a hanging
// sitecustomize is caught by the 20 s limit.
constexpr const char* kSiteQuery =
    "import json, os, site, sys, sysconfig\n"
    "p = sysconfig.get_paths()['purelib']\n"
    "sp = [os.path.realpath(x) for x in site.getsitepackages()]\n"
    "print(json.dumps({'version': sys.version.split()[0], 'purelib': p, 'site': os.path.realpath(p) in sp}))\n";

std::string join(const std::string& dir, std::string_view name) {
  if (!dir.empty() && dir.back() == '/') return dir + std::string(name);
  return dir + "/" + std::string(name);
}

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

std::optional<python_site> python_site_of(const std::string& interpreter, std::string* error) {
  captured_run r = run_captured({interpreter, "-I", "-c", kSiteQuery}, 20.0);
  auto fail = [&](std::string why) -> std::optional<python_site> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  if (!r.started) return fail("cannot run " + interpreter + ": " + r.error);
  if (r.timed_out) return fail(interpreter + " did not answer within 20 s");
  if (r.exit_code != 0) {
    std::string tail = r.output.size() > 400 ? r.output.substr(r.output.size() - 400) : r.output;
    return fail(interpreter + " exited with " +
                (r.signal ? "signal " + std::to_string(r.signal) : "code " + std::to_string(r.exit_code)) +
                " when asked for its site-packages: " + tail);
  }
  // The answer is the last non-empty line (a banner or warning may precede it).
  std::string line;
  std::istringstream in(r.output);
  for (std::string l; std::getline(in, l);)
    if (l.find_first_not_of(" \t\r") != std::string::npos) line = l;
  try {
    nlohmann::json j = nlohmann::json::parse(line);
    python_site s;
    s.interpreter = interpreter;
    s.version = j.at("version").get<std::string>();
    s.purelib = j.at("purelib").get<std::string>();
    s.on_sys_path = j.at("site").get<bool>();
    if (s.purelib.empty() || s.purelib.front() != '/') return fail(interpreter + " named no absolute purelib");
    return s;
  } catch (const std::exception&) {
    return fail(interpreter + " gave an unreadable answer: " + line.substr(0, 200));
  }
}

std::vector<fix_file> triton_stages_files(const std::string& site_dir, int max_stages) {
  std::optional<std::string_view> module = find_asset("probes/python/gpustack_triton_stages.py");
  std::string pth = std::string(kStagesMarker) + " (gpustack fix triton-stages --max " + std::to_string(max_stages) +
                    "; undo: gpustack fix triton-stages --remove)\n"
                    "# Caps num_stages of every Triton launch at " + std::to_string(max_stages) +
                    "; GPUSTACK_TRITON_STAGES_CAP=off disables it for one run.\n"
                    "import gpustack_triton_stages as _gpustack_ts; _gpustack_ts.activate(" +
                    std::to_string(max_stages) + ")\n";
  return {{join(site_dir, kStagesModule), module ? std::string(*module) : std::string()},
          {join(site_dir, kStagesPth), pth}};
}

file_state managed_state(const std::string& path) {
  file_state s;
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    s.exists = ::access(path.c_str(), F_OK) == 0;  // there but unreadable: not ours to touch
    return s;
  }
  s.exists = true;
  std::string head(kStagesMarker.size(), '\0');
  f.read(head.data(), static_cast<std::streamsize>(head.size()));
  s.ours = f.gcount() == static_cast<std::streamsize>(head.size()) && head == kStagesMarker;
  return s;
}

bool write_fix_files(const std::vector<fix_file>& files, std::string* error) {
  for (const fix_file& f : files) {
    if (f.content.substr(0, kStagesMarker.size()) != kStagesMarker) {
      *error = "internal: " + f.path + " would be written without gpustack's marker";
      return false;
    }
    file_state st = managed_state(f.path);
    if (st.exists && !st.ours) {
      *error = f.path + " exists and was not written by gpustack; not touching it";
      return false;
    }
  }
  for (const fix_file& f : files) {
    std::string tmp = f.path + ".gpustack-tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out || !(out << f.content) || !out.flush()) {
        *error = errno_text("cannot write " + tmp);
        std::remove(tmp.c_str());
        return false;
      }
    }
    if (std::rename(tmp.c_str(), f.path.c_str()) != 0) {
      *error = errno_text("cannot rename " + tmp + " to " + f.path);
      std::remove(tmp.c_str());
      return false;
    }
  }
  return true;
}

removal_plan plan_removal(const std::string& site_dir) {
  removal_plan p;
  bool module_ours = false;
  for (std::string_view name : {kStagesPth, kStagesModule}) {
    std::string path = join(site_dir, name);
    file_state st = managed_state(path);
    if (!st.exists) continue;
    (st.ours ? p.remove : p.refused).push_back(path);
    if (name == kStagesModule) module_ours = st.ours;
  }
  // Python's bytecode of our module (gpustack_triton_stages.cpython-312.pyc ...): it can only
  // have come from the file we wrote, so it goes with it.
  if (module_ours) {
    std::string cache = join(site_dir, "__pycache__");
    if (DIR* d = ::opendir(cache.c_str())) {
      std::string stem = std::string(kStagesModule.substr(0, kStagesModule.size() - 3)) + ".";
      while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n.rfind(stem, 0) == 0 && n.size() > 4 && n.compare(n.size() - 4, 4, ".pyc") == 0)
          p.remove.push_back(join(cache, n));
      }
      ::closedir(d);
    }
  }
  return p;
}

bool remove_files(const removal_plan& plan, std::string* error) {
  for (const std::string& path : plan.remove) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      *error = errno_text("cannot remove " + path);
      return false;
    }
  }
  return true;
}

}  // namespace gs
