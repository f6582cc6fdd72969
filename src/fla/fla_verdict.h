// The verdict of `gpustack probe fla`: from the (backend, stage) results, the highest safe
// num_stages per backend; whether a failure is Triton's (the native kernel, pipelined to the same
// depth by gpustack's own compiler path, passes where a Triton backend fails: a compiler bug, not
// the driver or the card); the knowledge-base finding that names it; and the fix.
#pragma once
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/probe_result.h"

namespace gs {

/// Where the results came from, for choosing the finding and the fix.
struct fla_verdict_context {
  std::string gpu_vendor;      ///< "nvidia" | "amd" | ""
  std::string gpu_arch;        ///< "sm_90", "gfx1201"
  std::string triton_version;  ///< as the Python side reported it, "" when unknown
  std::string fla_version;
};

/// How the depths a backend ran fall, which decides the advice.
enum class stage_pattern {
  not_run,     ///< nothing ran (all skipped or not selected)
  all_pass,    ///< every depth that ran passed
  fails_above, ///< every failure sits above every pass: a cap at the highest pass avoids them
  isolated,    ///< a failure below or between passes: a cap cannot help, avoid those depths
  all_fail,    ///< no depth that ran passed
};
const char* to_string(stage_pattern p);

struct fla_backend_verdict {
  std::string backend;
  std::vector<int> passed, failed, skipped;  ///< failed: fail, hang, crash or error
  /// Largest N such that every stage <= N that ran passed; 0 when the lowest one failed;
  /// -1 when nothing ran (all skipped or not selected).
  int highest_safe = -1;
  stage_pattern pattern = stage_pattern::not_run;
  std::map<int, std::string> how;  ///< failed stage -> "hang in phase run", "fail in phase run: CUDA error: ..."
  std::string skip_reason;  ///< the first skip's detail, when every stage was skipped
};

struct fla_verdict {
  std::vector<fla_backend_verdict> backends;
  bool triton_fault = false;          ///< native passed at a stage where triton or fla failed
  std::vector<int> fault_stages;      ///< those stages
  bool native_fault = false;          ///< the native kernel failed too: not (only) Triton
  std::string finding_id;             ///< GS-TRITON-001/002/003 or GS-FLA-001, "" when none
  std::string fix;                    ///< a command or a version, "" when nothing to fix
  int cap = 0;                        ///< the num_stages cap the fix applies (0: none)
  std::vector<int> avoid;             ///< depths that fail below or between passing ones (no cap helps)
  /// The depths FLA itself compiled with at its own configs (its autotuner's candidates on this
  /// arch, recorded by the fla backend as fla_default_stages_seen); empty when unknown.
  std::vector<int> fla_own_stages;
  /// Whether a Triton backend's failing depth is among fla_own_stages (the user's own training
  /// would hit it); nullopt when FLA's depths are unknown.
  std::optional<bool> fla_affected;
  std::vector<std::string> lines;     ///< the verdict in words, one statement a line
  bool backward_refused = false;      ///< FLA refused its backward (GS-FLA-001 on Hopper)
  nlohmann::json to_json() const;
};

/// Results carry data.backend and data.stage (ids fla.<backend>.stages<N>).
fla_verdict decide_fla_verdict(const std::vector<probe_result>& results, const fla_verdict_context& ctx);

/// True when FLA's refusal of its backward matches GS-FLA-001: Hopper (sm_90*) with Triton
/// >= 3.4.0, < 3.7.1, or a refusal text naming Triton 3.7.1 / issue 640.
bool fla_backward_refusal_is_known(const fla_verdict_context& ctx, const std::string& detail);

}  // namespace gs
