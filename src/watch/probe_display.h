// The text a probe run shows a person: the in-place line on a terminal, the one line per
// finished probe ("[ 3/13] gemm.bf16 ... pass 1.2 s"), and the `gpustack probe --list` table.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "probes/probe.h"

namespace gs {

struct runner_event;  // watch/probe_runner.h

/// "[ 3/13] gemm.bf16 ... compile 12.3 s" (redrawn in place while the probe runs).
std::string progress_live_line(size_t index, size_t total, std::string_view id,
                               std::string_view phase, double elapsed_s);
/// "[ 3/13] gemm.bf16 ... pass 1.2 s", and for anything but pass ": <detail>".
std::string progress_final_line(size_t index, size_t total, const probe_result& r);
/// The progress of a run whose steps go through run_probes one call each (probe fla, probe
/// collective): an in-place line on a terminal, then one line per finished step, numbered across
/// the whole run, a passing step with its detail (where its figures are).
class step_progress {
 public:
  explicit step_progress(size_t total);
  void event(size_t index, const runner_event& e);

 private:
  bool tty_;
  size_t total_;
  std::string phase_;
};

/// id, isolated/gpu flags, dependencies and summary of every probe, one row each.
std::string format_probe_list(const std::vector<const probe_spec*>& table);

}  // namespace gs
