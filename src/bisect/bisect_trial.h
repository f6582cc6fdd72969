// One trial of a bisection: run the probe (gpustack itself, with the trial's PYTHONPATH) or the
// user's --run command under the watchdog, and judge the outcome good, bad or skip. A probe is
// judged from its own JSON report, a command from its exit status (git bisect's convention: 0
// good, 125 skip, other codes bad; 126 and 127, "could not run", skip).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bisect/bisect_search.h"

namespace gs {

/// What a trial found; `status` is the word the report shows:
///   pass, fail, hang, crash (the probe or the command, judged)
///   other-failure (a probe failed, but its detail lacks --match's text)
///   skip (the probe skipped, or the command exited 125), error (the probe could not run)
///   not-installable, install-failed, conflict (the stack could not be built; nothing ran)
struct trial_result {
  std::string version;
  trial_verdict verdict = trial_verdict::skip;
  std::string status;
  std::string detail;  ///< one line: the failing probe and its detail, the install error, the conflict
  double install_s = 0, probe_s = 0;
  std::vector<std::string> conflicts;  ///< what bisect_check.py found (also kept with --allow-conflicts)
  nlohmann::json probes = nlohmann::json::array();  ///< [{id, status, detail}] from the probe's report
  std::string report_path, log_path;
  int exit_code = -1;

  nlohmann::json to_json() const;
  static trial_result from_json(const nlohmann::json& j);  ///< what to_json wrote (the journal)
};

/// The verdict on a gpustack report (pure): bad when a probe failed, hung or crashed; skip when
/// none did but one could not run (error), or nothing ran (all skip); else good. Derived steps
/// (fla.verdict) and self-tests are not probes of the stack.
/// `match` (--match TEXT): a failure counts as bad only when the failing probe's detail contains
/// TEXT; another failure is a skip with status "other-failure" (the release fails, but not in
/// the way being searched for).
void judge_report(const nlohmann::json& report, trial_result& t, const std::string& match = "");

/// The verdict on a command's end (pure). `signal` 0 when it exited.
void judge_exit(bool hang, int signal, int exit_code, double timeout_s, trial_result& t);

struct trial_run {
  std::vector<std::string> argv;  ///< argv[0] is a path
  std::map<std::string, std::string> env;  ///< added to the inherited environment
  double timeout_s = 3600;
  std::string log_path;  ///< the program's stdout+stderr (its last 256 KiB) are written here
};
struct program_end {
  bool hang = false, interrupted = false, spawn_failed = false;
  int signal = 0, exit_code = -1;
  double seconds = 0;
  std::string tail;  ///< its last output
};
/// Run under the watchdog (its own process group, killed whole at the deadline: SIGTERM, 10 s,
/// SIGKILL, so a gpustack child can reap its own watched steps first).
program_end run_trial_program(const trial_run& r);

}  // namespace gs
