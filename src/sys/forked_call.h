// Run a function in a forked child with a deadline and take back the text it returns: for the
// vendor-library reads `check` makes (NVML, libdrm_amdgpu, rocm-smi), each of which can hang in
// the driver on a broken machine (a GPU fallen off the bus, a wedged nvidia module, rocm-smi's
// shared mutex left held by a crashed process). `check` must answer whatever the card does, so
// the call runs where a hang costs only the child. No exec: the child runs `fn` and _exits, so
// call it before any thread is started (check and the watched commands' start are single-threaded).
// The child's stdout and stderr go to /dev/null: vendor libraries print their own complaints.
#pragma once
#include <functional>
#include <string>

namespace gs {

struct forked_result {
  bool ok = false;         ///< the child returned and exited 0
  bool timed_out = false;  ///< killed at the deadline
  bool unkillable = false; ///< still there 1 s after SIGKILL (stuck in the driver); left behind
  std::string text;        ///< what fn returned
  std::string error;       ///< why there is no text
};

forked_result run_forked(const std::function<std::string()>& fn, double timeout_s);

}  // namespace gs
