// Starting a child program with its output on pipes the caller reads: the one fork/exec of
// run_captured (subprocess_capture.h) and of the Python probe scripts (python/script_runner.h).
// The child stays in the caller's process group, so a watchdog's group kill reaches it too.
#pragma once
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace gs {

/// The inherited environment as NAME=value strings, with `add` on top (a name in `add` replaces
/// the inherited one). Built before fork: the child may only exec.
std::vector<std::string> environment_with(const std::map<std::string, std::string>& add);

/// Where a spawned child's streams go and what it does before exec.
struct child_io {
  int in_fd = -1;                ///< becomes its stdin; -1: /dev/null
  int out_fd = -1;               ///< becomes its stdout
  int err_fd = -1;               ///< becomes its stderr (may be out_fd)
  const char* dir = nullptr;     ///< chdir there first (exit 126 when it cannot); null: stay
  bool default_sigpipe = false;  ///< SIGPIPE back to its default action before exec
};

/// Forks a child with the streams of `io` (stdin from /dev/null unless io.in_fd), which execs argv[0] (a path,
/// no PATH search) with exactly `env`; it exits 127 when exec fails. The child's pid, or -1
/// with fork's errno.
pid_t spawn_child(const std::vector<std::string>& argv, const std::vector<std::string>& env, const child_io& io);

}  // namespace gs
