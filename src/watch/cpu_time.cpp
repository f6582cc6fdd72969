// CPU time of a process group from /proc, for the watchdog's no-progress check. A GPU wait
// that deadlocks inside the driver (the flash-linear-attention / Triton pipeliner hang) sits at
// 0 % CPU, while a JIT compile or a host-side spin burns a full core: the difference is
// visible in utime+stime long before any deadline.
#include <unistd.h>

#include <charconv>
#include <cstdlib>

#include "sys/sysroot.h"
#include "watch/watch.h"

namespace gs {

std::optional<proc_stat_times> parse_proc_stat(std::string_view text) {
  // "pid (comm) state ppid pgrp ... utime stime cutime cstime ...": comm may hold spaces and
  // parentheses, so fields are counted from the last ')'.
  size_t close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(close + 1);
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < rest.size() && fields.size() < 15) {
    while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\n')) ++i;
    size_t j = i;
    while (j < rest.size() && rest[j] != ' ' && rest[j] != '\n') ++j;
    if (j > i) fields.push_back(rest.substr(i, j - i));
    i = j;
  }
  // fields[0] = state (field 3), [2] = pgrp (5), [11..14] = utime stime cutime cstime (14-17).
  if (fields.size() < 15) return std::nullopt;
  auto number = [](std::string_view s, auto& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
  };
  proc_stat_times t;
  if (!number(fields[2], t.pgrp)) return std::nullopt;
  for (int k = 11; k <= 14; ++k) {
    // cutime/cstime are signed in the kernel's format; they are never negative in practice.
    long long v = 0;
    if (!number(fields[k], v) || v < 0) return std::nullopt;
    t.ticks += static_cast<unsigned long long>(v);
  }
  return t;
}

namespace {

class proc_cpu_time final : public cpu_time_source {
 public:
  explicit proc_cpu_time(std::string root)
      : sys_(root.empty() ? sysroot::live() : sysroot::captured(std::move(root))) {
    long hz = ::sysconf(_SC_CLK_TCK);
    hz_ = hz > 0 ? static_cast<double>(hz) : 100.0;
  }

  std::optional<double> group_cpu_seconds(pid_t pgid) override {
    // A scan of /proc costs about 1-3 ms for a few hundred processes; at one sample per
    // 250 ms that is under 1 % of a core.
    int err = 0;
    std::vector<std::string> names = sys_.list("/proc", &err);
    if (names.empty()) return std::nullopt;
    unsigned long long ticks = 0;
    bool any = false;
    for (const std::string& n : names) {
      if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos) continue;
      auto text = sys_.read_text("/proc/" + n + "/stat");
      if (!text) continue;  // exited between list and read
      auto t = parse_proc_stat(*text);
      if (!t || t->pgrp != pgid) continue;
      ticks += t->ticks;
      any = true;
    }
    if (!any) return std::nullopt;
    return static_cast<double>(ticks) / hz_;
  }

 private:
  sysroot sys_;
  double hz_ = 100;
};

}  // namespace

std::unique_ptr<cpu_time_source> proc_cpu_time_source(std::string proc_root) {
  return std::make_unique<proc_cpu_time>(std::move(proc_root));
}

}  // namespace gs
