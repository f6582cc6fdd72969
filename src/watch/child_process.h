// Process plumbing for the watchdog: fork a child that leads its own process group with its
// output captured, signal and reap the whole group, and act as the "subreaper" of the run so
// grandchildren orphaned by the child are re-parented to us and can be reaped, not left as
// zombies under an init that may never reap them (a container's pid 1 is often a shell).
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>

#include "watch/watch.h"

namespace gs {

struct spawned_child {
  pid_t pid = -1;    ///< also the process group id
  int msg_fd = -1;   ///< read end of the message pipe (non-blocking)
  int out_fd = -1;   ///< read end of the child's stdout+stderr (non-blocking)
  std::string error; ///< set when fork or pipe failed
};

/// Fork; the child calls setpgid(0,0), dies with its parent (PR_SET_PDEATHSIG), writes no core
/// file, sends stdout/stderr to out_fd, runs `body` and _exit()s. Never returns in the child.
spawned_child spawn_child(const child_body& body);

/// Reap every exited process of group `pgid` that is our child (WNOHANG). When the leader
/// `leader` is among them, its wait status goes to *leader_status and true is returned.
bool reap_group(pid_t pgid, pid_t leader, int* leader_status);

/// No process of the group exists (zombies count as existing: reap first).
bool group_gone(pid_t pgid);

/// SIGTERM the group, wait up to grace_s (reaping), SIGKILL what is left, wait up to
/// reap_limit_s. `leader_status` receives the leader's wait status if it is reaped here.
/// Returns false when members outlived SIGKILL (uninterruptible sleep in a driver).
bool terminate_group(pid_t pgid, pid_t leader, int* leader_status, bool* leader_reaped,
                     double grace_s, double reap_limit_s);

/// Watches a child that spawn_child started: relays its phases, enforces the per-phase deadlines
/// and the no-progress check, and kills and reaps its whole group at a deadline or Ctrl-C
/// (docs/watchdog.md). With `until_result` the watch ends as soon as the child sends a result and
/// the child lives on (a worker that serves the next request, watch/worker.h); otherwise it ends
/// when the child's group is gone. The fds stay open either way.          (watch/watchdog.cpp)
watch_outcome watch_spawned(const spawned_child& c, const watch_limits& limits, cpu_time_source* cpu,
                            const watch_events& events, bool until_result);

/// Makes this process the child subreaper for its lifetime, restoring the previous setting.
class subreaper_scope {
 public:
  subreaper_scope();
  ~subreaper_scope();
  subreaper_scope(const subreaper_scope&) = delete;
  subreaper_scope& operator=(const subreaper_scope&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace gs
