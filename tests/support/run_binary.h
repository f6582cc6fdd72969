// Running the built gpustack binary from a test: its exit code, and stdout and stderr kept
// apart, in a private directory that is also its state directory and XDG_DATA_HOME, so nothing
// touches the user's.
#pragma once
#include <string>

namespace gs::testing {

struct run_output {
  int rc = -1;
  std::string out, err;
};

/// Runs `gpustack ARGS` through /bin/sh (ARGS is shell text: quote paths), feeding `input` on
/// standard input.
run_output run_gpustack(const std::string& args, const std::string& input = "");

}  // namespace gs::testing
