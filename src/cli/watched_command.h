// What the commands that run watched steps (`probe`, `probe fla`, `train-smoke`) do before and
// after their steps, written once so they cannot drift: the stale-breadcrumb check and
// detection first, the exit code last.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "core/facts.h"
#include "core/probe_result.h"
#include "detect/detect.h"
#include "watch/breadcrumb.h"

namespace gs {

struct watched_start {
  breadcrumb_file crumbs;  ///< where this run leaves its own breadcrumbs
  machine_facts facts;
};

/// A breadcrumb left by a run that never finished (the machine hung or was reset mid-step) is
/// removed and said on stderr and as a detection issue, so the report of the run after a hang
/// names it; then the machine is detected.
watched_start start_watched_command(const detect_options& detect);

/// The report's exit code, with the steps' own verdict as a floor so a hang exits 3 whatever
/// else the report holds (3 > 1 > 0 is also the GUIDE's order of precedence).
int watched_exit_code(const nlohmann::json& report, const std::vector<probe_result>& results);

}  // namespace gs
