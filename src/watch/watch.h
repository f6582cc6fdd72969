// The watchdog: run a function in a child process that leads its own process group, listen to
// the phases and heartbeats it reports over a pipe, enforce a deadline per phase, notice when
// its CPU time stops moving (the 0%-CPU signature of a GPU deadlock), and kill and reap the
// whole group at a deadline. It knows nothing about GPUs or probes: the child's result is an
// opaque payload (the probe runner sends a probe_result as JSON). Details in docs/watchdog.md.
#pragma once
#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

/// Seconds each phase may take, measured from entering it (heartbeats do not extend it).
struct phase_deadlines {
  std::map<std::string, double, std::less<>> seconds;
  double fallback_s = 60;  ///< a phase not in the map, and "start" (before the first phase)
  double for_phase(std::string_view phase) const;
  /// start 30, load 30, compile 120, launch 30, sync 30, verify 60 (docs/watchdog.md says why).
  static phase_deadlines defaults();
  /// `--timeout S`: every phase deadline becomes S.
  void override_all(double s);
};

struct watch_limits {
  phase_deadlines deadlines = phase_deadlines::defaults();
  double grace_s = 2.0;               ///< SIGTERM to SIGKILL
  double no_progress_window_s = 10.0; ///< capped at half the phase deadline
  std::vector<std::string> waiting_phases{"launch", "sync"};  ///< where no-progress is judged
  double poll_s = 0.05;               ///< how often the child's exit and the clock are checked
  double cpu_sample_s = 0.25;         ///< how often the group's CPU time is read
  double reap_limit_s = 5.0;          ///< after SIGKILL: how long to wait for the group to vanish
  size_t output_tail_bytes = 4096;    ///< how much of the child's stdout+stderr is kept
};

/// Reads the CPU time of a process group; an interface so tests can feed values.
class cpu_time_source {
 public:
  virtual ~cpu_time_source() = default;
  /// user+system seconds of every live member of group `pgid` (plus their reaped children),
  /// nullopt when unreadable.
  virtual std::optional<double> group_cpu_seconds(pid_t pgid) = 0;
};
/// /proc/<pid>/stat of every process whose pgrp is `pgid`; `root` "" = the live /proc, else a
/// captured tree holding proc/ (tests).                                     (watch/cpu_time.cpp)
std::unique_ptr<cpu_time_source> proc_cpu_time_source(std::string root = "");
/// utime+stime+cutime+cstime in clock ticks and the pgrp from one /proc/<pid>/stat text;
/// nullopt when malformed.                                                     (watch/cpu_time.cpp)
struct proc_stat_times { long pgrp = 0; unsigned long long ticks = 0; };
std::optional<proc_stat_times> parse_proc_stat(std::string_view text);

/// What the child uses to talk to the parent (the probe runner adapts it to phase_sink).
class child_reporter {
 public:
  virtual ~child_reporter() = default;
  virtual void phase(std::string_view name) = 0;
  virtual void heartbeat() = 0;
};

/// Runs in the child; returns the payload sent back as the result. Exceptions become
/// "exited without a result" (the message goes to the child's captured stderr).
using child_body = std::function<std::string(child_reporter&)>;

enum class watch_end {
  finished,   ///< exited after sending a payload
  hang,       ///< a phase deadline passed; we killed the group
  crashed,    ///< died by a signal we did not send (SIGSEGV, SIGABRT, an OOM SIGKILL ...)
  no_result,  ///< exited (any code) without sending a payload
  interrupted,///< the user pressed Ctrl-C; we killed the group
  spawn_failed,
};

struct watch_outcome {
  watch_end end = watch_end::spawn_failed;
  pid_t pgid = 0;               ///< the child's pid = its process group (gone when we return)
  std::string phase;            ///< last phase entered ("" = none reported)
  std::optional<std::string> payload;  ///< what the child sent as its result
  int signal = 0;               ///< the signal that ended the child, 0 when it exited
  int exit_code = -1;           ///< when it exited normally
  double elapsed_s = 0;         ///< fork to reaped
  double phase_elapsed_s = 0;   ///< time spent in the last phase
  double deadline_s = 0;        ///< that phase's deadline
  std::optional<double> cpu_seconds;  ///< the group's CPU time at the last sample
  bool no_progress = false;     ///< CPU time stood still, with no heartbeat, for the window
  std::string no_progress_phase;
  double no_progress_s = 0;     ///< how long it stood still when first noticed
  bool left_processes = false;  ///< the child exited but members of its group lived on (killed)
  bool unkillable = false;      ///< members outlived SIGKILL by reap_limit_s (stuck in the kernel)
  std::string output_tail;      ///< the last bytes the child wrote to stdout/stderr
  std::string error;            ///< why spawning failed
};

/// Parent-side observers, called from the watching loop.
struct watch_events {
  std::function<void(std::string_view phase)> on_phase;
  std::function<void(double elapsed_s)> on_tick;  ///< about every poll_s
};

/// Fork, run `body` in the child, watch it, and return once every process of its group is
/// gone (or is unkillable). `cpu` may be null (no no-progress check).      (watch/watchdog.cpp)
watch_outcome run_watched(const child_body& body, const watch_limits& limits,
                          cpu_time_source* cpu, const watch_events& events = {});

/// "SIGSEGV" for SIGSEGV etc., "signal N" for others.                       (watch/child_process.cpp)
std::string signal_name(int sig);

/// Ctrl-C / SIGTERM during a watched run: kill the child's group and end the run as
/// `interrupted` instead of dying and leaving the group behind. A second signal kills at once.
void install_interrupt_handler();
/// True once SIGINT/SIGTERM arrived after install_interrupt_handler().
bool interrupt_requested();
/// Forget an interrupt (tests).
void clear_interrupt();

}  // namespace gs
