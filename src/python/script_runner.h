// Running a probe script in the user's own Python (issues 5, 6, 7). The script is an embedded
// asset (probes/python/*.py) written with its helpers to a private temp dir and run as
// `<interpreter> -u <script>` inside the probe's watched child, so the watchdog's process-group
// kill reaches Python and everything it started. Protocol on the script's stdout, one per line:
//   @gs phase <name>        enter a phase (load, compile, launch, sync, verify)
//   @gs heartbeat           still alive (long host-side work)
//   @gs result <json>       the final result: {"status": "...", "detail": "...", "data": {...}}
// Any other line is the script's log; the last lines are kept for the report. The arguments go
// in as JSON in the GPUSTACK_ARGS environment variable. probes/python/gs_protocol.py is the
// Python side.
// This is no probe: the py.* probes are in probes/python_probes.cpp, and they, `probe fla` and
// `train-smoke` start their scripts through run_python_script() here.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/probe_result.h"
#include "probes/probe.h"

namespace gs {

struct python_probe_request {
  std::string script;                       ///< asset path: "probes/python/torch_basic.py"
  std::vector<std::string> extra_assets;    ///< placed beside it: "kernels/triton/gdn_chunk.py"
  nlohmann::json args = nlohmann::json::object();
  std::map<std::string, std::string> env;   ///< added to the inherited environment
  double timeout_s = 0;                     ///< 0 = the watchdog's phase deadlines alone
};

struct python_probe_outcome {
  bool started = false;                     ///< the interpreter could be executed
  int exit_code = -1;                       ///< -1 when killed by a signal
  int signal = 0;
  std::optional<nlohmann::json> result;     ///< the @gs result payload, when one arrived
  std::vector<std::string> log_tail;        ///< last lines of non-protocol output (stderr too)
  std::string error;                        ///< why it could not start / no result
  /// Set when a warm worker ran it (python_worker.h): how (forked/inline), which process, its
  /// place in the worker's sequence, why a new interpreter started; becomes data.worker.
  nlohmann::json worker;
};

/// The interpreter probes use: --python/--venv as detection resolved it, else nullopt (with why).
std::optional<std::string> probe_interpreter(const machine_facts& facts, std::string* why);

/// Run the script, relaying its phases and heartbeats to ctx.
python_probe_outcome run_python_script(const probe_context& ctx, const python_probe_request& req);

/// The outcome a finished run with this output would give (recorded outputs in tests, and the
/// fixture runs of docs/python-probes.md): the same line handling as run_python_script.
python_probe_outcome outcome_from_output(std::string_view stdout_text, std::string_view stderr_text,
                                         int exit_code, int signal);

/// A probe_result from an outcome: the script's status/detail/data when it sent a result, else
/// `error` (or `crash` with the signal) with the log tail as evidence.
probe_result to_probe_result(std::string id, const python_probe_outcome& outcome);

}  // namespace gs
