// run_watched: the watching loop. One poll() every poll_s over the child's message and output
// pipes; each turn reaps what exited, samples the group's CPU time, and checks the phase
// deadline. A deadline ends in SIGTERM, a grace period, SIGKILL, and reaping the whole group.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>

#include "core/monotonic_time.h"
#include "watch/child_process.h"
#include "watch/pipe_protocol.h"
#include "watch/progress_monitor.h"
#include "watch/watch.h"

namespace gs {
namespace {

std::atomic<bool> g_interrupt{false};

void on_interrupt(int sig) {
  g_interrupt.store(true);
  // The next Ctrl-C kills gpustack outright; its child then dies through PR_SET_PDEATHSIG.
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(sig, &dfl, nullptr);
}

/// Read everything available from a non-blocking fd.
void drain_fd(int fd, std::string& into) {
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // EAGAIN (nothing more for now) or EOF
    into.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

double phase_deadlines::for_phase(std::string_view phase) const {
  auto it = seconds.find(phase);
  return it == seconds.end() ? fallback_s : it->second;
}

phase_deadlines phase_deadlines::defaults() {
  // Compile is long because a first Triton/FLA compile was seen taking 17-40 s on an H200
  // (GUIDE), and hiprtc/comgr on a cold cache is of the same order: 120 s is 3x the worst seen.
  // Launch/sync of a probe kernel take milliseconds; 30 s is far past any honest kernel yet
  // short enough that a deadlocked one costs little. Verify compares on the CPU (a 4096^3 GEMM
  // reference is ~137 GFLOP, tens of seconds on one core), hence 60 s.
  phase_deadlines d;
  d.seconds = {{"start", 30}, {"load", 30}, {"compile", 120}, {"launch", 30}, {"sync", 30},
               {"verify", 60}};
  d.fallback_s = 60;
  return d;
}

void phase_deadlines::override_all(double s) {
  for (auto& [name, v] : seconds) v = s;
  fallback_s = s;
}

void install_interrupt_handler() {
  struct sigaction sa = {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll() returns EINTR and the loop notices at once
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

bool interrupt_requested() { return g_interrupt.load(); }
void clear_interrupt() { g_interrupt.store(false); }

watch_outcome watch_spawned(const spawned_child& c, const watch_limits& limits, cpu_time_source* cpu,
                            const watch_events& events, bool until_result) {
  watch_outcome o;
  double t0 = monotonic_seconds();
  const pid_t pid = c.pid;
  o.pgid = pid;
  progress_monitor mon(limits, t0);
  message_reader reader;
  std::vector<child_message> msgs;

  auto drain = [&] {
    std::string bytes;
    drain_fd(c.msg_fd, bytes);
    reader.feed(bytes, msgs);
    for (child_message& m : msgs) {
      double t = monotonic_seconds();
      if (m.kind == child_message::phase) {
        mon.enter_phase(m.text, t);
        if (events.on_phase) events.on_phase(m.text);
      } else if (m.kind == child_message::beat) {
        mon.heartbeat(t);
      } else if (!o.payload) {
        o.payload = std::move(m.text);
      }
    }
    msgs.clear();
    drain_fd(c.out_fd, o.output_tail);
    if (o.output_tail.size() > limits.output_tail_bytes)
      o.output_tail.erase(0, o.output_tail.size() - limits.output_tail_bytes);
  };

  int status = 0;
  bool exited = false, deadline = false, interrupted = false;
  double last_sample = -1e300;
  const int poll_ms = std::max(1, static_cast<int>(limits.poll_s * 1000));
  for (;;) {
    struct pollfd fds[2] = {{c.msg_fd, POLLIN, 0}, {c.out_fd, POLLIN, 0}};
    ::poll(fds, 2, poll_ms);
    drain();
    // A worker answered and lives on: this episode is over, the process is not.
    if (until_result && o.payload) break;
    if (reap_group(pid, pid, &status)) {
      exited = true;
      break;
    }
    double t = monotonic_seconds();
    if (cpu && t - last_sample >= limits.cpu_sample_s) {
      mon.cpu_sample(t, cpu->group_cpu_seconds(pid));
      last_sample = t;
    }
    if (interrupt_requested()) {
      interrupted = true;
      break;
    }
    if (mon.deadline_passed(t)) {
      deadline = true;
      break;
    }
    if (events.on_tick) events.on_tick(t - t0);
  }
  double t_end = monotonic_seconds();
  o.phase = mon.phase();
  o.phase_elapsed_s = mon.phase_elapsed(t_end);
  o.deadline_s = mon.deadline();

  bool leader_reaped = exited;
  bool gone = true;
  const bool answered_alive = until_result && o.payload && !exited;
  if (deadline || interrupted) {
    gone = terminate_group(pid, pid, &status, &leader_reaped, limits.grace_s, limits.reap_limit_s);
  } else if (!answered_alive && !group_gone(pid)) {
    // The child is gone but processes it started live on in its group: orphans holding the
    // GPU are exactly what must not survive a probe.
    o.left_processes = true;
    gone = terminate_group(pid, pid, nullptr, nullptr, limits.grace_s, limits.reap_limit_s);
  }
  o.unkillable = !gone;
  if (!answered_alive) drain();  // a result or output written just before the exit

  o.cpu_seconds = mon.cpu_seconds();
  o.no_progress = mon.no_progress();
  o.no_progress_phase = mon.no_progress_phase();
  o.no_progress_s = mon.no_progress_s();
  o.elapsed_s = monotonic_seconds() - t0;
  if (leader_reaped && WIFSIGNALED(status)) o.signal = WTERMSIG(status);
  if (leader_reaped && WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);

  if (interrupted) o.end = watch_end::interrupted;
  else if (deadline) o.end = watch_end::hang;
  else if (o.payload) o.end = watch_end::finished;  // a signal after the result is reported by the caller
  else if (o.signal != 0) o.end = watch_end::crashed;
  else o.end = watch_end::no_result;
  return o;
}

watch_outcome run_watched(const child_body& body, const watch_limits& limits,
                          cpu_time_source* cpu, const watch_events& events) {
  subreaper_scope reaper;  // orphaned grandchildren come to us, so we can reap them
  double t0 = monotonic_seconds();
  spawned_child c = spawn_child(body);
  if (!c.error.empty()) {
    watch_outcome o;
    o.end = watch_end::spawn_failed;
    o.error = c.error;
    return o;
  }
  watch_outcome o = watch_spawned(c, limits, cpu, events, false);
  ::close(c.msg_fd);
  ::close(c.out_fd);
  o.elapsed_s = monotonic_seconds() - t0;
  return o;
}

}  // namespace gs
