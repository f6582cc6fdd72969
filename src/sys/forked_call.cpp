// run_forked (forked_call.h): fork, run, write the answer to a pipe, reap within the deadline.
#include "sys/forked_call.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace gs {

forked_result run_forked(const std::function<std::string()>& fn, double timeout_s) {
  forked_result out;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.error = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    out.error = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return out;
  }
  if (pid == 0) {
    ::close(fds[0]);
    // Vendor libraries print their own complaints (rocm-smi: "Exception caught: rsmi_init.");
    // what matters comes back as text, so their stdout and stderr go nowhere.
    int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd >= 0) {
      ::dup2(null_fd, 1);
      ::dup2(null_fd, 2);
    }
    std::string text = fn();
    const char* p = text.data();
    size_t left = text.size();
    while (left > 0) {
      ssize_t n = ::write(fds[1], p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ::_exit(3);
      p += n;
      left -= static_cast<size_t>(n);
    }
    ::_exit(0);  // no atexit handlers: the vendor libraries' teardown is not ours to run twice
  }
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  int status = 0;
  bool reaped = false, open = true;
  char buf[16384];
  while (!reaped || open) {
    pollfd p{open ? fds[0] : -1, POLLIN, 0};
    ::poll(&p, 1, 20);
    while (open) {
      ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) {
        out.text.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) open = false;
      break;
    }
    if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) reaped = true;
    if (!reaped && elapsed() > timeout_s) {
      out.timed_out = true;
      ::kill(pid, SIGKILL);
      // A process in uninterruptible sleep in the driver outlives SIGKILL: wait a moment, then
      // leave it (init reaps it if it ever returns) rather than hang with it.
      for (int i = 0; i < 50 && !reaped; ++i) {
        if (::waitpid(pid, &status, WNOHANG) == pid) reaped = true;
        else ::usleep(20000);
      }
      out.unkillable = !reaped;
      reaped = true;
      open = false;
    }
  }
  ::close(fds[0]);
  if (out.timed_out) {
    out.text.clear();
    out.error = "no answer within " + std::to_string(static_cast<int>(timeout_s)) + " s" +
                (out.unkillable ? " (the process is stuck in the driver and outlived SIGKILL)" : "");
    return out;
  }
  if (WIFSIGNALED(status)) {
    out.error = std::string("crashed: ") + strsignal(WTERMSIG(status));
    return out;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    out.error = "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace gs
