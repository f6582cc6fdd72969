// The watchdog's clock logic, free of processes and syscalls so tests can drive it with made-up
// times and CPU samples: which phase the child is in, whether its deadline passed, and whether
// its CPU time stood still (no heartbeat either) for the no-progress window.
#pragma once
#include <optional>
#include <string>

#include "watch/watch.h"

namespace gs {

class progress_monitor {
 public:
  progress_monitor(const watch_limits& limits, double t0);

  void enter_phase(const std::string& phase, double t);
  void heartbeat(double t);
  /// A CPU-time reading of the child's group; nullopt = unreadable (no judgement then).
  void cpu_sample(double t, std::optional<double> cpu_seconds);

  const std::string& phase() const { return phase_; }  ///< "" before the first phase
  double phase_elapsed(double t) const { return t - phase_start_; }
  double deadline() const { return deadline_; }
  bool deadline_passed(double t) const { return phase_elapsed(t) >= deadline_; }
  /// The no-progress window for the current phase: min(window, deadline / 2).
  double window() const;

  bool no_progress() const { return no_progress_; }  ///< latched: seen at least once
  const std::string& no_progress_phase() const { return no_progress_phase_; }
  double no_progress_s() const { return no_progress_s_; }
  std::optional<double> cpu_seconds() const { return last_cpu_; }

 private:
  void re_anchor(double t);
  bool waiting_phase() const;

  const watch_limits& limits_;
  std::string phase_;
  double phase_start_ = 0;
  double deadline_ = 0;
  // The last moment progress was seen (phase entered, heartbeat, CPU time moved) and the CPU
  // time at that moment.
  double anchor_t_ = 0;
  std::optional<double> anchor_cpu_;
  std::optional<double> last_cpu_;
  bool no_progress_ = false;
  std::string no_progress_phase_;
  double no_progress_s_ = 0;
};

}  // namespace gs
