// The steps of `gpustack probe collective` (docs/collective.md): one watched step per operation,
// ids collective.<op>, each running probes/python/collective_launch.py in the user's Python, which
// starts torchrun and watches every rank. Built at run time, as probe fla builds its steps,
// because the ranks, backend and sizes come from the command line.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "probes/probe.h"
#include "python/script_runner.h"

namespace gs {

struct collective_settings {
  std::string backend = "auto";   ///< auto (nccl when torch sees GPUs, else gloo), nccl, gloo
  int nproc = 0;                  ///< ranks; 0 = one per GPU on nccl, 2 on gloo
  std::vector<uint64_t> sizes;    ///< bytes, ascending
  double op_timeout_s = 60;       ///< no rank progress for this long inside the run: hang
  double init_timeout_s = 120;    ///< the same before every rank is up (imports, rendezvous)
  std::string fault_json;         ///< the self-test's injected fault ("" = none)
};

/// The step for `op` (its id kept alive in `ids`).
probe_spec collective_step_spec(const std::string& op, std::deque<std::string>& ids);

/// probe_context::options of the step for `op`.
std::map<std::string, std::string> collective_step_options(const collective_settings& s, const std::string& op);

/// The launcher's outcome as the step's result: its data.outcome "hang" and "crash" become those
/// statuses (the launcher watched the ranks; the script protocol lets no script claim them),
/// and each size gains nccl-tests' algbw and busbw (bus_bandwidth.h).
probe_result collective_result(const std::string& op, const python_probe_outcome& outcome);

}  // namespace gs
