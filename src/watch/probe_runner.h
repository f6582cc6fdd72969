// The probe runner: the layer between the probe table (probes/probe.h) and the watchdog
// (watch.h). It runs each probe, isolated ones under run_watched, applies the dependency rule
// (a dependency that did not pass or warn makes its dependents `skip`: one root cause, one
// failure), keeps the breadcrumb, attaches kernel-log lines, and after a GPU probe hangs or
// crashes asks the caller whether the GPU still answers; if not, the remaining GPU probes are
// `skip` with the reason. It names no probe: which one checks the GPU is the caller's choice.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "card/card_source.h"
#include "probes/probe.h"
#include "watch/breadcrumb.h"
#include "watch/kernel_log.h"
#include "watch/watch.h"

namespace gs {

class probe_worker;  // watch/probe_worker.h

struct runner_event {
  enum kind_t { started, entered, tick, finished } kind = started;
  size_t index = 0;  ///< 0-based position in the run
  size_t total = 0;
  const probe_spec* spec = nullptr;
  std::string phase;                     ///< entered: the phase
  double elapsed_s = 0;                  ///< tick: time since the probe started
  const probe_result* result = nullptr;  ///< finished: the result (skips included)
};

struct runner_options {
  watch_limits limits;
  std::string device = "auto";                      ///< probe_context::device
  std::map<std::string, std::string> probe_options; ///< probe_context::options
  const machine_facts* facts = nullptr;
  cpu_time_source* cpu = nullptr;                   ///< null: no no-progress check
  kernel_log_source* kernel_log = nullptr;          ///< null: no kernel-log capture
  const breadcrumb_file* breadcrumb = nullptr;      ///< null: no breadcrumb
  /// The probed card, read about ten times a second in this process while each GPU step runs
  /// (watch/card_sampler.h: data.card); null: no sampling.
  card_sample_source* card = nullptr;
  /// --fresh: every Python step in its own child and interpreter, as before issue 16. Otherwise
  /// the steps with probe_spec::warm run in the run's warm worker (watch/probe_worker.h).
  bool fresh_python = false;
  /// A warm worker that outlives this run_probes call (probe fla runs its steps one call each);
  /// null: run_probes makes its own for the steps it is given.
  probe_worker* worker = nullptr;
  /// Asked after a uses_gpu probe hangs or crashes; null means "assume usable".
  std::function<bool()> gpu_still_usable;
  std::function<void(const runner_event&)> on_event;
};

struct run_summary {
  std::vector<probe_result> results;  ///< one per probe, in run order
  std::vector<std::string> notes;     ///< run-level notes for the report (kernel log unreadable)
  bool interrupted = false;           ///< Ctrl-C: the rest was not run
  /// "warm" or "fresh": how the Python steps ran ("" when the run had none).
  std::string python_mode;
  /// Seconds the steps spent starting and importing (phases start, preload, import) and the rest
  /// of their time, summed over the steps that ran; the worker's preload while native steps ran
  /// is counted apart, since it overlapped them.
  double import_s = 0, run_s = 0, preload_overlapped_s = 0;
};

/// A step's own import and run seconds from its phase_s; false when it has none.
bool step_import_run_s(const probe_result& r, double* import_s, double* run_s);

/// Runs `probes` in order.                                               (watch/probe_runner.cpp)
run_summary run_probes(const std::vector<const probe_spec*>& probes, const runner_options& o);

/// The step that was running when the user pressed Ctrl-C: an error, crash or hang there is
/// our own kill, so it becomes `skip` (data.interrupted) and is neither a pass nor a fail in
/// verdicts, the matrix or `report diff`. A finished result (pass, warn, fail) is kept.
void mark_interrupted(probe_result& r);

/// One probe, in a watched child when spec.isolated, else in this process; no dependency,
/// breadcrumb or kernel-log handling (the GPU usability check uses it).  (watch/probe_child.cpp)
probe_result run_probe(const probe_spec& spec, const runner_options& o,
                       const std::function<void(std::string_view)>& on_phase = {},
                       const std::function<void(double)>& on_tick = {});

/// `ids` plus everything they depend on, in table order; ids not in the table go to *unknown.
///                                                                       (watch/probe_select.cpp)
std::vector<const probe_spec*> select_probes(const std::vector<const probe_spec*>& table,
                                             const std::vector<std::string>& ids,
                                             std::vector<std::string>* unknown);
/// Every probe whose id does not start with "selftest." (those run only when named).
std::vector<const probe_spec*> default_suite(const std::vector<const probe_spec*>& table);
/// Ids in `table` that look like a mistyped `id`, closest first (at most 5).
std::vector<std::string> close_matches(const std::vector<const probe_spec*>& table,
                                       std::string_view id);

}  // namespace gs
