// Running the built gpustack binary from a test: its exit code, stdout and stderr kept apart,
// and how long it took. It runs in a directory that is also its state directory and
// XDG_DATA_HOME, so nothing touches the user's: a private one removed afterwards, or the
// test's own when the test wants to see what the run left there.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace gs::testing {

struct run_output {
  int rc = -1;  ///< -1: killed by a signal (a crash)
  std::string out, err;
  double seconds = 0;  ///< wall time, for "answers within N seconds" checks
};

struct run_options {
  // Each member has an initializer so a designated `{.dir = d}` may leave the others out
  // (g++ -Wextra warns otherwise).
  std::string input{};          ///< fed on standard input
  std::filesystem::path dir{};  ///< working and state directory; empty: a private one
  std::string env{};            ///< more assignments, shell text: "GPUSTACK_CACHE_DIR='/x' A=b"
};

/// Runs `gpustack ARGS` through /bin/sh (ARGS is shell text: quote paths), feeding `input` on
/// standard input.
run_output run_gpustack(const std::string& args, const std::string& input = "");
run_output run_gpustack(const std::string& args, const run_options& options);

/// The system Python the torch-less paths of the commands are tested with: /usr/bin/python3, or a
/// venv of it without its site-packages when it has torch (test::torchless()).
std::string torchless_python();
/// `gpustack ARGS --python <torchless_python()> --json`, for a test of a command on a Python
/// without torch; nullopt, run nothing, when that Python has torch after all (the test skips).
std::optional<run_output> run_without_torch(const std::string& args);

}  // namespace gs::testing
