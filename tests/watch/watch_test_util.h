// Helpers shared by the watchdog tests: short limits so a hang costs a second, not half a
// minute, and a CPU-time source the test scripts.
#pragma once
#include <signal.h>

#include <atomic>
#include <functional>

#include "watch/watch.h"

namespace gs::testing {

/// Every phase gets `deadline_s`; a short grace and no-progress window.
inline watch_limits fast_limits(double deadline_s = 1.0) {
  watch_limits l;
  l.deadlines.override_all(deadline_s);
  l.grace_s = 0.3;
  l.no_progress_window_s = 0.4;
  l.poll_s = 0.01;
  l.cpu_sample_s = 0.05;
  l.reap_limit_s = 3.0;
  return l;
}

/// CPU time as the test decides: a constant (a process blocked in a driver) or a function of
/// the number of samples taken (a process that works).
class scripted_cpu final : public cpu_time_source {
 public:
  explicit scripted_cpu(std::function<std::optional<double>(int)> f) : f_(std::move(f)) {}
  std::optional<double> group_cpu_seconds(pid_t) override { return f_(calls++); }
  std::atomic<int> calls{0};

 private:
  std::function<std::optional<double>(int)> f_;
};

/// The process (or group, when negative) no longer exists.
inline bool gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace gs::testing
