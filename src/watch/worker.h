// A watched worker (issue 16): one child process, leading its own process group like every
// watched child, that serves requests one after another instead of running one body and exiting.
// Each request is watched exactly as run_watched watches a child: the phases it reports, their
// deadlines counted from entering each, the no-progress check on the group's CPU time, and at a
// deadline the kill and reaping of the whole group. A request that ends any other way than with
// an answer (hang, crash, exit, Ctrl-C) ends the worker too; the next request starts a fresh one,
// so a hang costs one request, never the ones after it. Like the watchdog, it knows nothing about
// probes or Python: requests and answers are opaque bytes (watch/probe_worker.h gives them meaning).
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>

#include "watch/child_process.h"
#include "watch/watch.h"

namespace gs {

struct worker_handlers {
  /// Runs once in each new worker process before its first request (e.g. start and preload an
  /// interpreter). May be empty.
  std::function<void()> on_start;
  /// Runs in the worker for each request; its return value is the answer.
  std::function<std::string(std::string_view request, child_reporter& reporter)> on_request;
};

class watched_worker {
 public:
  explicit watched_worker(worker_handlers handlers) : handlers_(std::move(handlers)) {}
  ~watched_worker() { stop(); }
  watched_worker(const watched_worker&) = delete;
  watched_worker& operator=(const watched_worker&) = delete;

  /// Starts the worker now (so its on_start overlaps the caller's other work); run() starts
  /// it too when needed. False with *error when fork failed.
  bool start(std::string* error = nullptr);
  /// Sends one request and watches it until the answer (end `finished`, the worker lives on) or
  /// until the worker is gone (hang, crash, no_result, interrupted: it has been reaped).
  watch_outcome run(std::string_view request, const watch_limits& limits, cpu_time_source* cpu,
                    const watch_events& events = {});
  /// Ends the worker: closes its request channel (its loop returns), then SIGTERM/SIGKILL to
  /// the group after `grace_s`. Safe to call when nothing runs.
  void stop(double grace_s = 2.0);

  bool running() const { return child_.pid > 0; }
  pid_t pid() const { return child_.pid; }
  /// Worker processes started so far (1 after the first start, 2 after a replacement ...).
  int starts() const { return starts_; }
  /// How the previous worker ended when it died between requests ("" when it did not): set by
  /// the run() that found it gone, so that request's result can say why it ran in a new one.
  const std::string& died_between() const { return died_between_; }

 private:
  bool check_alive();  ///< reaps a worker that exited on its own; false when none runs
  void forget();       ///< closes the fds of a worker that is gone

  worker_handlers handlers_;
  spawned_child child_;
  int request_fd_ = -1;
  int starts_ = 0;
  std::string died_between_;
  subreaper_scope reaper_;  // what the worker's requests start and orphan comes back to us
};

}  // namespace gs
