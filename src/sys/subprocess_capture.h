// Run a program with a deadline and capture what it prints (stdout and stderr together): a probe
// asking a tool about itself (`llama-server --version`), `check --sysroot` unpacking a snapshot
// with tar, `fix triton-stages` asking the user's Python. The program stays in the caller's
// process group, so when the caller is a probe's watched child a watchdog kill reaches it too.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace gs {

struct captured_run {
  bool started = false;
  bool timed_out = false;  ///< killed at the deadline
  int exit_code = -1;      ///< -1 when killed by a signal
  int signal = 0;
  std::string output;      ///< stdout+stderr interleaved, at most max_bytes
  std::string error;       ///< why it could not start
};

/// argv[0] is a path (no PATH search). `env` is added to the inherited environment.
captured_run run_captured(const std::vector<std::string>& argv, double timeout_s,
                          const std::map<std::string, std::string>& env = {}, size_t max_bytes = 1u << 20);

}  // namespace gs
