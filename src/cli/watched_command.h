// What the commands that run watched steps (`probe`, `probe fla`, `train-smoke`) do before and
// after their steps, written once so they cannot drift: the stale-breadcrumb check and
// detection first; recording in the matrix and the exit code last.
#pragma once
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "core/facts.h"
#include "core/probe_result.h"
#include "detect/detect.h"
#include "matrix/matrix_record.h"
#include "watch/breadcrumb.h"
#include "watch/kernel_log.h"
#include "watch/probe_runner.h"
#include "watch/watch.h"

namespace gs {

struct watched_start {
  breadcrumb_file crumbs;  ///< where this run leaves its own breadcrumbs
  machine_facts facts;
};

/// A breadcrumb left by a run that never finished (the machine hung or was reset mid-step) is
/// removed and said on stderr and as a detection issue, so the report of the run after a hang
/// names it; then the machine is detected.
watched_start start_watched_command(const detect_options& detect);

/// The machine's watch sources a run's steps are checked with: CPU time (the no-progress check)
/// and the kernel log. Kept alive while the runner_options that point at them run.
struct watch_sources {
  std::unique_ptr<cpu_time_source> cpu = proc_cpu_time_source();
  std::unique_ptr<kernel_log_source> klog = open_kernel_log();
  /// The card the run probes (NVML or amdgpu sysfs), opened by attach() once o.device is known.
  mutable std::unique_ptr<card_sample_source> card;
  /// Point `o` at these sources and at the run's breadcrumbs; o.device must be set.
  void attach(runner_options& o, const watched_start& start) const;
};

/// Whether the GPU still answers after a step hung or crashed: `device.visible` run with `o`
/// under a 20 s deadline (a healthy GPU lists itself in well under a second) passes or warns.
/// True when there is no such probe to ask with.
bool gpu_still_answers(const runner_options& o);

/// The report's `run` block: how the Python steps ran (warm worker or --fresh) and where the
/// time went: the steps' imports and the rest, summed, the worker's preload that ran beside the
/// native steps, and the wall time (docs/report-format.md).
nlohmann::json run_timing_json(const run_summary& s, double wall_s);
/// The same as one line on stderr, after the steps' own lines; nothing when no Python step ran.
void say_run_timing(const run_summary& s, double wall_s);

/// The report's exit code, with the steps' own verdict as a floor so a hang exits 3 whatever
/// else the report holds (3 > 1 > 0 is also the GUIDE's order of precedence).
int watched_exit_code(const nlohmann::json& report, const std::vector<probe_result>& results);

/// After the report is out: a run the user stopped (SIGINT) exits 130, the shell's convention,
/// and is no cell of the matrix; any other run is recorded (`m`) and exits watched_exit_code.
int finish_watched_command(const nlohmann::json& report, const std::vector<probe_result>& results,
                           bool interrupted, const matrix_options& m);

}  // namespace gs
