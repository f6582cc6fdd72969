// `gpustack fix triton-stages` as a function, so tests drive it without a process.
#pragma once
#include <string>

namespace gs {

struct stages_fix_args {
  int max_stages = 0;  ///< --max N; 0 = not given
  bool remove = false;
  std::string python;  ///< --python
  std::string venv;    ///< --venv
  bool dry_run = false;
};

/// Appends what a user sees to out/err; returns the exit code (0, 1 failed, 2 bad arguments).
int run_triton_stages_fix(const stages_fix_args& a, std::string& out, std::string& err);

}  // namespace gs
