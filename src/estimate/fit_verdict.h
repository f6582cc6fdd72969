// Does an estimate fit a machine: GPU (VRAM minus the CUDA context, with headroom), host RAM
// while loading, disk. Verdict fits / marginal / does not fit, each with the reason and what to
// change (shorter --seq, --prequant, eval off).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "estimate/memory_model.h"

namespace gs {

/// Ordered by how bad: `unknown` (nothing to judge against: no GPU found and no --vram) is worse
/// than fits and better than marginal, so a run with one unknown part never reads "fits".
enum class fit { fits, unknown, marginal, does_not_fit };
std::string_view fit_name(fit f);  ///< "fits" | "unknown" | "marginal" | "does not fit"

struct machine_budget {
  uint64_t vram_bytes = 0;       ///< 0 = unknown (no GPU found and no --vram)
  uint64_t ram_bytes = 0;        ///< host RAM total
  uint64_t disk_free_bytes = 0;  ///< free space where the HF cache lives, 0 = unknown
  std::string gpu_name;          ///< "NVIDIA H200", "--vram 24 GiB"
  std::string disk_path;
};

struct fit_part {
  std::string what;  ///< "gpu" | "ram" | "disk"
  fit verdict = fit::fits;
  std::string reason;
  std::vector<std::string> fixes;
};

struct fit_report {
  fit overall = fit::fits;
  std::vector<fit_part> parts;
  int max_seq_that_fits = 0;  ///< largest --seq (multiple of 128) whose train peak fits, 0 = none
  nlohmann::json to_json() const;
};

/// Judge `e` (estimated for `m` and `r`) against the machine. Re-estimates at shorter sequences
/// to say how long a sequence would fit.
fit_report judge_fit(const model_spec& m, const run_shape& r, const memory_estimate& e, const machine_budget& mb);

}  // namespace gs
