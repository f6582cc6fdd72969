// fork / setpgid / signal / reap for the watchdog (see child_process.h).
#include "watch/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <thread>

#include "core/monotonic_time.h"
#include "watch/pipe_protocol.h"

namespace gs {
namespace {

[[noreturn]] void child_main(const child_body& body, int msg[2], int out[2], pid_t parent) {
  ::setpgid(0, 0);
  // If gpustack dies (killed, crashed) the child must not run on holding the GPU.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(111);
  // The parent may ignore SIGPIPE or have handlers installed; the child starts clean.
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // A crashing probe (selftest.crash, a GPU page fault) should not leave core files around.
  struct rlimit no_core = {0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  // stdin from /dev/null: the child is in a background process group, and reading the terminal
  // there would stop it with SIGTTIN, which would look exactly like a hang.
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) {
    ::dup2(devnull, 0);
    if (devnull > 2) ::close(devnull);
  }
  // stdout too goes to the capture pipe: the parent's stdout carries the report.
  ::dup2(out[1], 1);
  ::dup2(out[1], 2);
  ::close(out[0]);
  ::close(out[1]);
  ::close(msg[0]);
  pipe_reporter reporter(msg[1]);
  std::string payload;
  try {
    payload = body(reporter);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpustack child: uncaught exception: %s\n", e.what());
    std::fflush(nullptr);
    ::_exit(70);
  } catch (...) {
    std::fprintf(stderr, "gpustack child: uncaught exception\n");
    std::fflush(nullptr);
    ::_exit(70);
  }
  reporter.result(payload);
  std::fflush(nullptr);
  // _exit: the parent's atexit handlers and static destructors are not the child's to run.
  ::_exit(0);
}

void set_nonblock(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

std::string signal_name(int sig) {
  static constexpr std::array<std::pair<int, const char*>, 20> kNames{{
      {SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
      {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGTRAP, "SIGTRAP"},
      {SIGSYS, "SIGSYS"},   {SIGPIPE, "SIGPIPE"}, {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},
      {SIGHUP, "SIGHUP"},   {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGALRM, "SIGALRM"},
      {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}, {SIGSTKFLT, "SIGSTKFLT"}, {SIGVTALRM, "SIGVTALRM"}}};
  for (auto& [v, n] : kNames)
    if (v == sig) return n;
  return "signal " + std::to_string(sig);
}

spawned_child spawn_child(const child_body& body) {
  spawned_child c;
  int msg[2], out[2];
  if (::pipe2(msg, O_CLOEXEC) != 0) {
    c.error = std::string("pipe: ") + std::strerror(errno);
    return c;
  }
  if (::pipe2(out, O_CLOEXEC) != 0) {
    c.error = std::string("pipe: ") + std::strerror(errno);
    ::close(msg[0]);
    ::close(msg[1]);
    return c;
  }
  std::fflush(nullptr);  // or the child's exit would write the parent's buffered output twice
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) child_main(body, msg, out, parent);
  ::close(msg[1]);
  ::close(out[1]);
  if (pid < 0) {
    c.error = std::string("fork: ") + std::strerror(errno);
    ::close(msg[0]);
    ::close(out[0]);
    return c;
  }
  // Both sides call setpgid so the group exists before either relies on it (the classic race);
  // EACCES after the child's exec or ESRCH after its exit are harmless here.
  ::setpgid(pid, pid);
  set_nonblock(msg[0]);
  set_nonblock(out[0]);
  c.pid = pid;
  c.msg_fd = msg[0];
  c.out_fd = out[0];
  return c;
}

bool reap_group(pid_t pgid, pid_t leader, int* leader_status) {
  bool got_leader = false;
  for (;;) {
    int st = 0;
    pid_t r = ::waitpid(-pgid, &st, WNOHANG);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    if (r == leader) {
      got_leader = true;
      if (leader_status) *leader_status = st;
    }
  }
  return got_leader;
}

bool group_gone(pid_t pgid) { return ::kill(-pgid, 0) != 0 && errno == ESRCH; }

namespace {
bool wait_group_gone(pid_t pgid, pid_t leader, int* leader_status, bool* leader_reaped,
                     double seconds) {
  double until = monotonic_seconds() + seconds;
  for (;;) {
    if (reap_group(pgid, leader, leader_status) && leader_reaped) *leader_reaped = true;
    if (group_gone(pgid)) return true;
    if (monotonic_seconds() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}
}  // namespace

bool terminate_group(pid_t pgid, pid_t leader, int* leader_status, bool* leader_reaped,
                     double grace_s, double reap_limit_s) {
  if (wait_group_gone(pgid, leader, leader_status, leader_reaped, 0)) return true;
  ::kill(-pgid, SIGTERM);
  ::kill(-pgid, SIGCONT);  // a stopped process acts on SIGTERM only once continued
  if (wait_group_gone(pgid, leader, leader_status, leader_reaped, grace_s)) return true;
  ::kill(-pgid, SIGKILL);
  return wait_group_gone(pgid, leader, leader_status, leader_reaped, reap_limit_s);
}

subreaper_scope::subreaper_scope() {
  ::prctl(PR_GET_CHILD_SUBREAPER, &previous_);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
}

subreaper_scope::~subreaper_scope() { ::prctl(PR_SET_CHILD_SUBREAPER, previous_); }

}  // namespace gs
