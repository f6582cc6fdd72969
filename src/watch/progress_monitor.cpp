// Deadline and no-progress bookkeeping (see progress_monitor.h).
#include "watch/progress_monitor.h"

#include <algorithm>

namespace gs {

progress_monitor::progress_monitor(const watch_limits& limits, double t0) : limits_(limits) {
  phase_start_ = t0;
  deadline_ = limits_.deadlines.for_phase("start");
  re_anchor(t0);
}

void progress_monitor::re_anchor(double t) {
  anchor_t_ = t;
  anchor_cpu_ = last_cpu_;
}

bool progress_monitor::waiting_phase() const {
  return std::find(limits_.waiting_phases.begin(), limits_.waiting_phases.end(), phase_) !=
         limits_.waiting_phases.end();
}

double progress_monitor::window() const {
  return std::min(limits_.no_progress_window_s, deadline_ / 2);
}

void progress_monitor::enter_phase(const std::string& phase, double t) {
  phase_ = phase;
  phase_start_ = t;
  deadline_ = limits_.deadlines.for_phase(phase);
  re_anchor(t);
}

void progress_monitor::heartbeat(double t) { re_anchor(t); }

void progress_monitor::cpu_sample(double t, std::optional<double> cpu) {
  if (!cpu) return;
  last_cpu_ = cpu;
  if (!anchor_cpu_) {
    re_anchor(t);
    return;
  }
  // "Not moving" allows 1 % of one core plus two clock ticks (USER_HZ = 100, so 20 ms) of
  // jitter: a thread that wakes now and then is still stuck, while a host-side spin (100 %)
  // or real work re-anchors at every sample.
  double stood = t - anchor_t_;
  double moved = *cpu - *anchor_cpu_;
  if (moved > 0.01 * stood + 0.02) {
    re_anchor(t);
    return;
  }
  if (!no_progress_ && waiting_phase() && stood >= window()) {
    no_progress_ = true;
    no_progress_phase_ = phase_;
    no_progress_s_ = stood;
  }
}

}  // namespace gs
