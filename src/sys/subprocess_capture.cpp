// run_captured (subprocess_capture.h): fork, exec, read until EOF or the deadline, reap.
#include "sys/subprocess_capture.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "sys/child_spawn.h"

namespace gs {

captured_run run_captured(const std::vector<std::string>& argv_in, double timeout_s,
                          const std::map<std::string, std::string>& env, size_t max_bytes) {
  captured_run out;
  if (argv_in.empty()) {
    out.error = "no program";
    return out;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.error = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  pid_t pid = spawn_child(argv_in, environment_with(env), {.out_fd = fds[1], .err_fd = fds[1]});
  if (pid < 0) {
    out.error = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return out;
  }
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  out.started = true;
  auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  bool reaped = false, open = true;
  char buf[16384];
  while (open || !reaped) {
    pollfd p{open ? fds[0] : -1, POLLIN, 0};
    ::poll(&p, 1, 50);
    while (open) {
      ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) {
        size_t room = max_bytes - std::min(max_bytes, out.output.size());
        out.output.append(buf, std::min<size_t>(room, static_cast<size_t>(n)));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) open = false;
      break;
    }
    if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) reaped = true;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!reaped && elapsed > timeout_s) {
      ::kill(pid, SIGKILL);
      out.timed_out = true;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      reaped = true;
    }
    // Exited, but a grandchild holds the pipe: stop listening after a grace moment.
    if (reaped && open && elapsed > timeout_s + 1) open = false;
    if (reaped && open) {
      pollfd q{fds[0], POLLIN, 0};
      if (::poll(&q, 1, 200) <= 0) open = false;
    }
  }
  ::close(fds[0]);
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  if (out.exit_code == 127 && out.output.empty()) out.error = "could not execute " + argv_in[0];
  return out;
}

}  // namespace gs
