// spawn_child and environment_with (child_spawn.h).
#include "sys/child_spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <string_view>

extern char** environ;

namespace gs {

std::vector<std::string> environment_with(const std::map<std::string, std::string>& add) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    if (add.count(std::string(kv.substr(0, kv.find('='))))) continue;
    out.emplace_back(kv);
  }
  for (const auto& [k, v] : add) out.push_back(k + "=" + v);
  return out;
}

pid_t spawn_child(const std::vector<std::string>& argv_in, const std::vector<std::string>& env_in,
                  const child_io& io) {
  // Every allocation before fork: after it the child only redirects and execs.
  std::vector<std::string> args = argv_in, env_strings = env_in;
  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(io.out_fd, STDOUT_FILENO);
    ::dup2(io.err_fd, STDERR_FILENO);
    if (io.in_fd >= 0) {
      ::dup2(io.in_fd, STDIN_FILENO);
    } else {
      int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    }
    if (io.dir && ::chdir(io.dir) != 0) ::_exit(126);
    if (io.default_sigpipe) ::signal(SIGPIPE, SIG_DFL);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;  // -1: errno is fork's (free() leaves errno alone since glibc 2.33, as POSIX asks)
}

}  // namespace gs
