// `gpustack bisect`: which release of a package broke (or fixed) a probe. The releases between
// --good and --bad come from the user's package index or a wheelhouse (bisect_versions.h); each
// trial installs one of them beside the user's stack (bisect_env.h), checks the stack still holds
// together, runs the probe or command under the watchdog and judges it (bisect_trial.h); the
// search (bisect_search.h) picks the next release until the boundary is pinned. Every trial is
// recorded in a journal under the state directory as soon as it ends, so an interrupted run
// resumes where it stopped; the probe's own report records each tried stack in the matrix.
// docs/bisect.md is the user's page.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bisect/bisect_search.h"
#include "bisect/bisect_trial.h"
#include "bisect/bisect_versions.h"

namespace gs {

struct bisect_request {
  std::string package;
  std::string good, bad;
  std::string python;           ///< the user's interpreter (resolved from --python/--venv/the usual search)
  std::string find_links;       ///< a wheelhouse directory: offline
  std::string index_url;        ///< overrides the configured index
  bool prereleases = false;     ///< --pre
  bool allow_conflicts = false; ///< run a version even when it conflicts with the stack
  bool keep = false;            ///< leave the scratch environments
  bool restart = false;         ///< forget an earlier journal of the same bisection
  bool allow_uv = true;
  std::vector<std::string> probe_args;  ///< after `--`: "fla --stages 4", a probe id, "train-smoke ..."
  std::string run_command;      ///< --run CMD (sh -c) instead of a probe
  std::string compile_target;   ///< --compile-only --target ARCH (probe fla only)
  std::string match;            ///< --match TEXT: only a failure whose detail says this is bad
  double timeout_s = 3600;      ///< one trial's probe or command
  double install_timeout_s = 900;
  double disk_limit_gib = 20;   ///< cache + scratch environments
  std::string state_dir;        ///< the gpustack state directory
  std::string self_exe;         ///< this gpustack, to run the probe with
  std::vector<std::string> matrix_args;  ///< --matrix FILE / --no-matrix for the probe runs
};

/// The gpustack command line of one probe trial. PROBE-ARGS: "probe ...", "fla ..." (= probe
/// fla), "train-smoke ...", else probe ids and probe options (= probe ...). bisect adds --python,
/// the report options and the matrix options itself; nullopt and *why when PROBE-ARGS name them,
/// are empty, or --compile-only is asked of anything but probe fla.
std::optional<std::vector<std::string>> probe_trial_argv(const bisect_request& r, const std::string& report_path,
                                                         std::string* why);

/// The key of a bisection: what must match for a journal to be resumed (hex, 12 digits).
std::string bisect_key(const bisect_request& r);

struct bisect_outcome {
  std::string error;            ///< set: it could not start (bad arguments, no listing): exit 2
  version_listing listing;
  bisect_range range;
  std::vector<std::optional<trial_result>> trials;  ///< one per range.line entry
  bisect_answer answer;
  std::string installer;        ///< which installer ran the trials
  std::string work_dir;
  size_t resumed = 0;           ///< trials taken from an earlier run's journal
  bool interrupted = false;
  std::string stopped;          ///< why it stopped before an answer (disk limit, free space)
  double wall_s = 0;
};

/// Progress lines for stderr ("triton 3.5.0: bad (fail) ...").
using bisect_say = std::function<void(const std::string&)>;

bisect_outcome run_bisection(const bisect_request& r, const bisect_say& say);

}  // namespace gs
