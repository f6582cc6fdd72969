// Breadcrumb state file (see breadcrumb.h).
#include "watch/breadcrumb.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "sys/sysroot.h"
#include "sys/fd_io.h"

namespace gs {
namespace {

}  // namespace

std::string breadcrumb_file::default_dir(const std::map<std::string, std::string>& env) {
  auto get = [&](const char* k) -> std::string {
    auto it = env.find(k);
    return it == env.end() ? std::string() : it->second;
  };
  if (std::string d = get("GPUSTACK_STATE_DIR"); !d.empty()) return d;
  // XDG: a relative XDG_STATE_HOME is invalid and must be ignored.
  if (std::string x = get("XDG_STATE_HOME"); !x.empty() && x[0] == '/') return x + "/gpustack";
  if (std::string h = get("HOME"); !h.empty()) return h + "/.local/state/gpustack";
  return {};
}

bool breadcrumb_file::write(const breadcrumb& b, std::string* why) const {
  auto fail = [&](const std::string& what) {
    if (why) *why = what + ": " + std::strerror(errno);
    return false;
  };
  if (dir_.empty()) {
    if (why) *why = "no state directory (HOME unset)";
    return false;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  nlohmann::json j = {{"probe", b.probe}, {"phase", b.phase}, {"time", b.time_utc},
                      {"pid", b.pid},     {"boot_id", b.boot_id}};
  std::string text = j.dump() + "\n";
  std::string tmp = path() + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return fail(tmp);
  // fsync costs 1-10 ms on an SSD; five phases per probe keep it under 50 ms per GPU probe.
  bool ok = write_all(fd, text) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path().c_str()) != 0) {
    ::unlink(tmp.c_str());
    return fail(path());
  }
  int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);  // the rename itself must reach the disk too
    ::close(dfd);
  }
  return true;
}

std::optional<breadcrumb> breadcrumb_file::read(bool* malformed) const {
  if (malformed) *malformed = false;
  if (dir_.empty()) return std::nullopt;
  read_result r = sysroot::live().read(path(), 64 * 1024);
  if (!r) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(*r.text, nullptr, false);
  breadcrumb b;
  bool ok = j.is_object() && j.value("probe", nlohmann::json()).is_string() &&
            j.value("phase", nlohmann::json()).is_string() &&
            j.value("time", nlohmann::json()).is_string() &&
            j.value("pid", nlohmann::json()).is_number_integer();
  if (!ok) {
    if (malformed) *malformed = true;
    return std::nullopt;
  }
  b.probe = j["probe"].get<std::string>();
  b.phase = j["phase"].get<std::string>();
  b.time_utc = j["time"].get<std::string>();
  b.pid = j["pid"].get<long>();
  if (j.contains("boot_id") && j["boot_id"].is_string()) b.boot_id = j["boot_id"].get<std::string>();
  return b;
}

void breadcrumb_file::remove() const {
  if (!dir_.empty()) ::unlink(path().c_str());
}

std::string current_boot_id() {
  auto t = sysroot::live().read_text("/proc/sys/kernel/random/boot_id");
  if (!t) return {};
  std::string s = *t;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

bool pid_alive(long pid) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  // Pids are reused: a live pid that is not a gpustack is not the run that wrote the crumb.
  auto comm = sysroot::live().read_text("/proc/" + std::to_string(pid) + "/comm");
  return !comm || comm->starts_with("gpustack");
}

std::optional<std::string> take_stale_breadcrumb(const breadcrumb_file& file,
                                                 const std::string& boot_id,
                                                 const std::function<bool(long)>& alive) {
  bool malformed = false;
  std::optional<breadcrumb> b = file.read(&malformed);
  if (malformed) {
    file.remove();
    return "the previous gpustack run did not finish, and its breadcrumb " + file.path() +
           " is unreadable (the machine may have hung while writing it)";
  }
  if (!b) return std::nullopt;
  bool rebooted = !boot_id.empty() && !b->boot_id.empty() && boot_id != b->boot_id;
  if (!rebooted && alive(b->pid)) return std::nullopt;  // a run still in progress
  file.remove();
  std::string msg = "the previous gpustack run did not finish: probe " + b->probe +
                    " was in phase " + b->phase + " at " + b->time_utc +
                    " (the machine may have hung)";
  if (rebooted) msg += "; the machine has rebooted since";
  return msg;
}

}  // namespace gs
