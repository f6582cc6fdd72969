// `gpustack train-smoke` (issue 7): one mini QLoRA run of a registry model in the user's Python
// stack (probes/python/train_smoke.py), under the watchdog, with a deadline per phase so a hang
// names its step and phase ("step 0 backward"). This file is the orchestration without the
// command line: the script's arguments, the deadlines, the run, and the result's finishing
// touches (hang wording, the estimator's prediction beside the measured peak). docs/train-smoke.md.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"
#include "core/probe_result.h"
#include "watch/probe_runner.h"
#include "watch/watch.h"

namespace gs {

struct train_smoke_request {
  std::string model;                        ///< registry name, "qwen3.5-0.8b"
  std::string model_type;                   ///< HF model_type, "qwen3_5_text"
  nlohmann::json hf_config = nlohmann::json::object();  ///< AutoConfig.for_model fields (no model_type)
  std::vector<std::string> target_modules;  ///< LoRA targets
  int seq = 512, batch = 1, steps = 5;
  bool grad_ckpt = true;
  double lr = 1e-3;  ///< Adam moves each adapter weight ~lr per step: 5 steps visibly lower the loss
  int seed = 0;
  std::string weights;    ///< a local checkpoint dir, "" = random weights from hf_config
  std::string device = "auto";  ///< "cpu" only in tests
  bool fresh = false;     ///< --fresh: a fresh interpreter, not the warm worker (docs/watchdog.md)
  double timeout_s = 0;   ///< --timeout: every phase deadline; 0 = train_smoke_deadlines
};

/// GPUSTACK_ARGS for the script.
nlohmann::json train_smoke_args(const train_smoke_request& r);

/// Deadlines per phase: import 120 s (a cold torch + transformers + peft + bitsandbytes import),
/// build 300 s and quantize 300 s (random init and NF4 of a 31B model on one GPU), lora 120 s,
/// step0.* 600 s (the first step JIT-compiles: FLA's Triton kernels took 17-40 s each on an
/// H200, and its backward has more of them), later step phases 180 s, anything else 120 s.
/// The step phases are also the waiting phases, where a CPU that stands still is recorded.
watch_limits train_smoke_limits(int steps, double timeout_s);

/// Live progress from the script: the phase it is in and the last loss ("loss.12.3456" phases
/// carry the loss of the step just done; docs/train-smoke.md).
struct train_progress {
  std::string phase = "start";
  std::optional<double> last_loss;
  int losses_seen = 0;
  /// Feeds one phase name; false for a loss phase (not a phase to show or to blame for a hang).
  bool take_phase(std::string_view name);
  /// "step 2 backward 34 s, last loss 11.982".
  std::string line(double elapsed_s) const;
};

/// "step0.backward" -> {0, "backward"}; nullopt for other phases.
struct step_phase { int step; std::string part; };
std::optional<step_phase> parse_step_phase(std::string_view phase);

/// Runs the script through the probe runner: forked from a warm worker, or with r.fresh in a
/// fresh interpreter, watched either way. nullopt interpreter: a `skip` saying why. The callbacks
/// (either may be empty) see every phase and a tick about every 50 ms; `summary`, when given,
/// gets the run's import/run seconds.
probe_result run_train_smoke(const train_smoke_request& r, const machine_facts& facts,
                             cpu_time_source* cpu, const std::function<void(std::string_view)>& on_phase,
                             const std::function<void(double)>& on_tick, run_summary* summary = nullptr);

/// The finishing touches on a result (also applied to recorded outputs in tests): id
/// "train_smoke.<model>", a hang or crash named by its step and phase, a `loss.*` phase replaced
/// by the step it ended, and, when `estimate` is given, data.estimate (the prediction for the
/// same shape) with data.peak_vs_estimate = measured peak / predicted peak.
void finish_train_smoke_result(probe_result& r, const train_smoke_request& req,
                               const std::optional<nlohmann::json>& estimate);

/// The predicted peak in bytes from an estimate's JSON ("peak_gpu_bytes" or
/// "gpu.peak_bytes"), nullopt when absent.
std::optional<double> predicted_peak_bytes(const nlohmann::json& estimate);

}  // namespace gs
