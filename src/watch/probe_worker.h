// The warm worker for Python steps (issue 16; docs/watchdog.md "Warm workers"): one
// watched_worker (watch/worker.h) whose process holds two warm interpreters
// (python/python_worker.h) and runs, on request, one of the steps it was made with, its scripts
// going to one of them instead of a fresh interpreter: the fork server, which imports only
// GPU-free modules and forks a child per step, and the shared interpreter, which imports
// everything its steps need (bitsandbytes, peft: they initialise the GPU) and runs them inside
// itself. Both start importing at once, beside the steps that come before the first Python one. The worker is forked from gpustack with the list of steps
// in memory (so also the steps probe fla and train-smoke build at run time); a request names the
// step and carries what may differ per step (its --set options, the device). A step that hangs,
// crashes or kills the worker ends that worker; the next step gets a new one.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "watch/probe_runner.h"
#include "watch/worker.h"

namespace gs {

class python_worker;

class probe_worker {
 public:
  /// `steps` and `base` (facts, interpreter) must outlive the worker.
  probe_worker(std::vector<const probe_spec*> steps, const runner_options& base);
  ~probe_worker();
  probe_worker(const probe_worker&) = delete;
  probe_worker& operator=(const probe_worker&) = delete;

  /// Starts the worker now, so the interpreter's imports overlap the steps before the first
  /// Python one.
  void start();
  /// Whether `spec` is one of the worker's steps.
  bool serves(const probe_spec& spec) const;
  /// `spec` in the worker, with o's options, device, deadlines and CPU-time source; the result
  /// carries data.worker (how and where it ran).
  probe_result run(const probe_spec& spec, const runner_options& o,
                   const std::function<void(std::string_view)>& on_phase,
                   const std::function<void(double)>& on_tick);

  /// What one interpreter imports once: the preload of every warm step that runs forked
  /// (`in_worker` false) or inside it (true), in order.
  static std::vector<std::string> preload_of(const std::vector<const probe_spec*>& steps, bool in_worker);

 private:
  std::vector<const probe_spec*> steps_;
  const runner_options& base_;
  std::unique_ptr<python_worker> python_[2];  ///< [in_worker]: in the worker process only
  watched_worker worker_;
};

}  // namespace gs
