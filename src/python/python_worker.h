// The warm interpreter (issue 16): one `python -u gs_worker.py` that imports the GPU-free modules
// the run's steps need once (GPUSTACK_PRELOAD) and then runs the steps' scripts one at a time,
// each in a child forked from it or inside it (probes/python/gs_worker.py says how and what each
// isolates). It lives inside the run's watched worker process (watch/probe_worker.h) and in its
// process group, so a step's deadline kills it with everything it started, exactly as a fresh
// interpreter is killed. Here are the C++ side's own duties: start it, send a request, relay the
// step's @gs lines to the probe context, and start a new interpreter before the next step when
// the last one died between steps, or ran an inline step that failed or left the GPU context in
// error (a GPU fault in one step must not be blamed on the next).
#pragma once
#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probes/probe.h"
#include "python/script_io.h"
#include "python/script_runner.h"

namespace gs {

class python_worker {
 public:
  python_worker(std::string interpreter, std::vector<std::string> preload)
      : interpreter_(std::move(interpreter)), preload_(std::move(preload)) {}
  ~python_worker() { stop(); }
  python_worker(const python_worker&) = delete;
  python_worker& operator=(const python_worker&) = delete;

  /// Starts the interpreter now, so its preload runs while the caller does other work.
  bool start(std::string* error);
  /// One step's script, forked from the worker or inline (ctx.python_in_worker).
  python_probe_outcome run(const probe_context& ctx, const python_probe_request& req);
  /// Kills the interpreter and everything it forked (SIGKILL; it holds nothing to save).
  void stop();

  pid_t pid() const { return pid_; }

 private:
  void close_fds();
  bool alive();  ///< false (and cleaned up) when it exited since the last look

  std::string interpreter_;
  std::vector<std::string> preload_;
  std::unique_ptr<temp_dir> home_;  ///< gs_worker.py lives here for the interpreter's lifetime
  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  bool ready_ = false;
  nlohmann::json ready_info_;       ///< the `ready` message: preload times, failures
  int processes_ = 0;               ///< interpreters started so far
  int served_ = 0;                  ///< steps the current interpreter served
  int seq_ = 0;
  std::string new_because_;         ///< why the next step gets a new interpreter
};

}  // namespace gs
