// Running a shell command from a test (a tool such as tar, nvcc or python3, never gpustack
// itself: run_binary.h isolates that one).
#pragma once
#include <string>
#include <vector>

namespace gs::test {

/// Runs `cmd` through /bin/sh with stderr joined to stdout; its exit status (-1: killed by a
/// signal). The output goes to `output` when given.
int shell(const std::string& cmd, std::string* output = nullptr);
/// True when `cmd` exits 0.
inline bool run(const std::string& cmd, std::string* output = nullptr) { return shell(cmd, output) == 0; }
/// Whether `python` imports torch: tests of the no-torch path skip on a machine that has it.
bool python_has_torch(const std::string& python);
/// Processes (not this one) whose environment carries `entry` ("NAME=value"): what a test that
/// marks its children's environment looks for to show none survived.
std::vector<int> processes_with_env(const std::string& entry);
/// `python` itself when it has no torch; else a venv of it made without its system site-packages
/// (once per test process, removed at exit), which has none: Debian's python3-torch is
/// installed into /usr/bin/python3 for the warm-worker tests, and the torch-less paths of every
/// step are still tested with a real Python.
std::string torchless(const std::string& python);
/// The real Pythons of this machine to run probe scripts with, torch-less (torchless()): the
/// first python3 on PATH (here the pyenv shim) and /usr/bin/python3, each when it exists, without
/// repeats.
std::vector<std::string> real_pythons();

}  // namespace gs::test
