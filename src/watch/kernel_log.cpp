// Kernel-log capture for probes (see kernel_log.h).
#include "watch/kernel_log.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <regex>

#include "sys/sysroot.h"

namespace gs {
namespace {

class kmsg_source final : public kernel_log_source {
 public:
  explicit kmsg_source(int fd) : fd_(fd) {}
  ~kmsg_source() override { ::close(fd_); }
  kernel_log_read read_new() override {
    kernel_log_read r;
    // Each read() returns exactly one record; a record is < 1 KiB of text plus dictionary.
    char buf[8192];
    for (;;) {
      ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n < 0 && (errno == EINTR || errno == EPIPE)) continue;  // EPIPE: records overwritten
      if (n <= 0) break;                                          // EAGAIN: nothing new
      if (auto line = format_kmsg_record(std::string_view(buf, static_cast<size_t>(n))))
        r.lines.push_back(std::move(*line));
    }
    return r;
  }

 private:
  int fd_;
};

/// Runs `dmesg`; nullopt when it fails (dmesg_restrict without CAP_SYSLOG, not installed).
std::optional<std::vector<std::string>> run_dmesg() {
  FILE* p = ::popen("dmesg 2>/dev/null", "r");
  if (!p) return std::nullopt;
  std::vector<std::string> lines;
  std::string cur;
  char buf[8192];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) {
    for (size_t i = 0; i < n; ++i) {
      if (buf[i] == '\n') {
        lines.push_back(std::move(cur));
        cur.clear();
      } else {
        cur += buf[i];
      }
    }
  }
  if (!cur.empty()) lines.push_back(std::move(cur));
  int st = ::pclose(p);
  if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return std::nullopt;
  return lines;
}

class dmesg_source final : public kernel_log_source {
 public:
  explicit dmesg_source(std::vector<std::string> start) : last_(std::move(start)) {}
  kernel_log_read read_new() override {
    kernel_log_read r;
    auto now = run_dmesg();
    if (!now) {
      r.readable = false;
      r.why = "dmesg stopped working";
      return r;
    }
    r.lines = lines_after(last_, *now);
    last_ = std::move(*now);
    return r;
  }

 private:
  std::vector<std::string> last_;
};

class unreadable_source final : public kernel_log_source {
 public:
  explicit unreadable_source(std::string why) : why_(std::move(why)) {}
  kernel_log_read read_new() override { return {false, why_, {}}; }

 private:
  std::string why_;
};

}  // namespace

std::unique_ptr<kernel_log_source> open_kernel_log() {
  int fd = ::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) {
    ::lseek(fd, 0, SEEK_END);  // only what is logged from now on
    return std::make_unique<kmsg_source>(fd);
  }
  std::string why = "/dev/kmsg: " + errno_name(errno);
  if (auto start = run_dmesg()) return std::make_unique<dmesg_source>(std::move(*start));
  return std::make_unique<unreadable_source>(why + "; dmesg: not permitted or not installed");
}

std::optional<std::string> format_kmsg_record(std::string_view rec) {
  // "PRIORITY,SEQUENCE,TIMESTAMP_US,FLAGS[,...];MESSAGE\n[ KEY=VALUE\n]..."
  size_t semi = rec.find(';');
  if (semi == std::string_view::npos) return std::nullopt;
  std::string_view head = rec.substr(0, semi);
  std::string_view msg = rec.substr(semi + 1);
  msg = msg.substr(0, msg.find('\n'));
  size_t c1 = head.find(',');
  size_t c2 = c1 == std::string_view::npos ? c1 : head.find(',', c1 + 1);
  if (c2 == std::string_view::npos) return std::nullopt;
  std::string_view ts = head.substr(c2 + 1, head.find(',', c2 + 1) - (c2 + 1));
  unsigned long long us = 0;
  auto [p, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), us);
  if (ec != std::errc() || p != ts.data() + ts.size()) return std::nullopt;
  char stamp[40];
  std::snprintf(stamp, sizeof stamp, "[%5llu.%06llu] ", us / 1000000, us % 1000000);
  return std::string(stamp) + std::string(msg);
}

bool is_gpu_event_line(std::string_view line) {
  // Worded as the drivers print them (amdgpu_job_timedout, amdgpu_device_gpu_recover,
  // gmc_v*_process_interrupt, mes_v*_submit_pkt_and_poll_completion; NVRM's Xid).
  static const std::regex kPatterns(
      R"(gpu (reset|recover|hang)|ring \S+ timeout|job timed ?out|amdgpu_job_timedout|)"
      R"(page fault|protection_fault|\bmes\b.*(fail|timeout|timed out|not respond)|)"
      R"(\bkfd\b.*(reset|fault|hang|timeout|fail)|amdgpu.*\b(hang|hung|reset|recover)|)"
      R"(hws hang|nvrm: xid|fallen off the bus)",
      std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
  return std::regex_search(line.begin(), line.end(), kPatterns);
}

std::vector<std::string> lines_after(const std::vector<std::string>& before,
                                     const std::vector<std::string>& after) {
  if (before.empty()) return after;
  const std::string& last = before.back();
  for (size_t i = after.size(); i-- > 0;)
    if (after[i] == last) return {after.begin() + static_cast<long>(i) + 1, after.end()};
  return after;
}

}  // namespace gs
