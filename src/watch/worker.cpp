// watched_worker (worker.h): requests go down a socket pair as "N\n" + N bytes; answers come back
// on the watchdog pipe as the `result` message, one per request. A socket, not a pipe, so that a
// write to a worker that just died fails with EPIPE (MSG_NOSIGNAL) instead of killing gpustack
// with SIGPIPE.
#include "watch/worker.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/monotonic_time.h"
#include "watch/pipe_protocol.h"
#include "sys/fd_io.h"

namespace gs {
namespace {

/// The next request, or false at EOF (the parent closed the channel: time to go).
bool read_request(int fd, std::string& into) {
  std::string len;
  char ch = 0;
  while (read_exact(fd, &ch, 1)) {
    if (ch == '\n') {
      size_t n = 0;
      for (char d : len) {
        if (d < '0' || d > '9' || n > (64u << 20)) return false;
        n = n * 10 + static_cast<size_t>(d - '0');
      }
      into.assign(n, '\0');
      return read_exact(fd, into.data(), n);
    }
    len += ch;
    if (len.size() > 20) return false;
  }
  return false;
}

std::string wait_status_text(int st) {
  if (WIFSIGNALED(st)) return "died of " + signal_name(WTERMSIG(st));
  if (WIFEXITED(st)) return "exited with code " + std::to_string(WEXITSTATUS(st));
  return "ended";
}

}  // namespace

bool watched_worker::start(std::string* error) {
  if (running()) return true;
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    if (error) *error = std::string("socketpair: ") + std::strerror(errno);
    return false;
  }
  const int child_end = sv[1], parent_end = sv[0];
  const worker_handlers& h = handlers_;
  child_body body = [&h, child_end, parent_end](child_reporter& rep) -> std::string {
    ::close(parent_end);
    if (h.on_start) h.on_start();
    auto* pipe = dynamic_cast<pipe_reporter*>(&rep);
    std::string request;
    while (read_request(child_end, request)) {
      std::string answer = h.on_request(request, rep);
      if (pipe) pipe->result(answer);
      std::fflush(nullptr);
    }
    // EOF: the parent is done with us. _exit, as every watched child ends.
    std::fflush(nullptr);
    ::_exit(0);
  };
  spawned_child c = spawn_child(body);
  ::close(child_end);
  if (!c.error.empty()) {
    ::close(parent_end);
    if (error) *error = c.error;
    return false;
  }
  child_ = c;
  request_fd_ = parent_end;
  ++starts_;
  return true;
}

void watched_worker::forget() {
  for (int* fd : {&child_.msg_fd, &child_.out_fd, &request_fd_})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
  child_.pid = -1;
}

bool watched_worker::check_alive() {
  if (!running()) return false;
  int st = 0;
  if (!reap_group(child_.pid, child_.pid, &st)) return true;
  died_between_ = "the worker (pid " + std::to_string(child_.pid) + ") " + wait_status_text(st) + " between steps";
  terminate_group(child_.pid, child_.pid, nullptr, nullptr, 2.0, 5.0);  // whatever it left behind
  forget();
  return false;
}

watch_outcome watched_worker::run(std::string_view request, const watch_limits& limits, cpu_time_source* cpu,
                                  const watch_events& events) {
  died_between_.clear();
  watch_outcome o;
  for (int attempt = 0; attempt < 2; ++attempt) {
    check_alive();
    std::string error;
    if (!start(&error)) {
      o.end = watch_end::spawn_failed;
      o.error = error;
      return o;
    }
    std::string frame = std::to_string(request.size()) + "\n";
    frame += request;
    if (send_all(request_fd_, frame)) break;
    // It died after check_alive() looked: note how, and try once more in a new one.
    if (attempt == 1) {
      o.end = watch_end::spawn_failed;
      o.error = "the worker closed its request channel";
      return o;
    }
  }
  o = watch_spawned(child_, limits, cpu, events, true);
  if (o.end != watch_end::finished) {
    forget();  // watch_spawned has reaped (or given up on) the whole group
  } else if (reap_group(child_.pid, child_.pid, nullptr) && group_gone(child_.pid)) {
    forget();  // answered, then exited: the next run() starts a new one
  }
  return o;
}

void watched_worker::stop(double grace_s) {
  if (!running()) return;
  ::close(request_fd_);  // its read loop sees EOF and the worker exits on its own
  request_fd_ = -1;
  const double until = monotonic_seconds() + grace_s;
  for (;;) {
    reap_group(child_.pid, child_.pid, nullptr);
    if (group_gone(child_.pid) || monotonic_seconds() >= until) break;
    ::usleep(10000);
  }
  terminate_group(child_.pid, child_.pid, nullptr, nullptr, grace_s, 5.0);  // what did not leave
  forget();
}

}  // namespace gs
