// Helpers shared by the runtime tests: every kernel to compile (each embedded kernels/*.cu plus
// the tests' own axpy.cu), and a forked child for calls into vendor libraries that may abort.
#pragma once
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/assets.h"
#include "runtime/runtime.h"

namespace gs::test {

/// Each kernel source the JIT tests compile: the embedded kernels/*.cu (so a new kernel is
/// covered without touching a test) and tests/runtime/kernels/axpy.cu.
inline std::vector<compile_request> all_kernel_sources() {
  std::vector<compile_request> out;
  for (const asset& a : assets_under("kernels/")) {
    std::string_view rel = std::string_view(a.path).substr(8);
    if (rel.find('/') != std::string_view::npos || !rel.ends_with(".cu")) continue;
    out.push_back({std::string(rel), std::string(a.text), {}});
  }
  std::ifstream in(std::string(GPUSTACK_SOURCE_DIR) + "/tests/runtime/kernels/axpy.cu");
  std::stringstream ss;
  ss << in.rdbuf();
  out.push_back({"axpy.cu", ss.str(), {}});
  return out;
}

/// Whether a kernel source calls a matrix helper of kernels/gs_mma.h: an identifier starting
/// with gs_mma (gs_mma16, gs_mma16_kmajor, any later gs_mma*) followed by '(' (after template
/// arguments, if any) outside comments.
/// The clang-19 gfx test and the NVRTC test hold such sources to the matrix unit.
inline bool calls_matrix_helpers(std::string_view source) {
  // Comments out, so a kernel that only mentions gs_mma16 in prose is not counted.
  std::string code;
  code.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source.compare(i, 2, "//") == 0) {
      i = source.find('\n', i);
      if (i == std::string_view::npos) break;
      code += '\n';
    } else if (source.compare(i, 2, "/*") == 0) {
      i = source.find("*/", i + 2);
      if (i == std::string_view::npos) break;
      ++i;
      code += ' ';
    } else {
      code += source[i];
    }
  }
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = code.find("gs_mma"); at != std::string::npos; at = code.find("gs_mma", at + 1)) {
    if (at > 0 && ident(code[at - 1])) continue;
    size_t end = at;
    while (end < code.size() && ident(code[end])) ++end;
    auto skip_space = [&] {
      while (end < code.size() && (code[end] == ' ' || code[end] == '\t' || code[end] == '\n')) ++end;
    };
    skip_space();
    if (end < code.size() && code[end] == '<') {  // template arguments: gs_mma16<E>(...)
      end = code.find('>', end);
      if (end == std::string::npos) return false;
      ++end;
      skip_space();
    }
    if (end < code.size() && code[end] == '(') return true;
  }
  return false;
}

/// A kernel that calls gs_mma16_kmajor and keeps a 64-float local array read at a run-time
/// index: the negative case of the matrix-unit and scratch checks (built for an arch below the
/// matrix lowering it has no matrix instruction; where the array stays, it is scratch / a stack
/// frame in a matrix kernel).
inline compile_request matrix_kernel_with_stack_array() {
  return {"mma_negative.cu", R"(#include "gs_device.h"
#include "gs_mma.h"
GS_KERNEL void mma_negative(const gs_u16* a, const gs_u16* b, float* out, int pick) {
  float local[64];
  for (int i = 0; i < 64; ++i) local[i] = out[i * 7 % 64];
  gs_acc16 acc;
  gs_acc_zero(acc);
  gs_mma16_kmajor(acc, a, 16, b, 16);
  for (int i = 0; i < GS_ACC_N; ++i)
    out[gs_acc_row(gs_lane(), i) * 16 + gs_acc_col(gs_lane(), i)] = acc.x[i] + local[pick & 63];
}
)", {}};
}

/// Outcome of run_in_child.
struct child_result {
  bool exited = false;   ///< exited normally (not by a signal)
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  std::string output;    ///< what the child wrote to the pipe
};

/// Run `fn` in a forked child that reports through `write` (the returned string), so that a
/// vendor library that aborts or hangs costs the child, not the test binary.
inline child_result run_in_child(const std::function<std::string()>& fn, int timeout_s = 60) {
  child_result r;
  int fds[2];
  if (pipe(fds) != 0) return r;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string out = fn();
    size_t off = 0;
    while (off < out.size()) {
      ssize_t w = write(fds[1], out.data() + off, out.size() - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  fcntl(fds[0], F_SETFL, O_NONBLOCK);  // drain while waiting: a chatty child must not block on a full pipe
  char buf[4096];
  ssize_t n;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    while ((n = read(fds[0], buf, sizeof buf)) > 0) r.output.append(buf, static_cast<size_t>(n));
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  while ((n = read(fds[0], buf, sizeof buf)) > 0) r.output.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  if (WIFEXITED(status)) {
    r.exited = true;
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
  return r;
}

}  // namespace gs::test
