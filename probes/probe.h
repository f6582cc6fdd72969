// The probe contract (GUIDE habit 3): a probe is a small struct in one table (probes/registry.cpp):
// id, one-line summary, dependencies, and run(). run() executes inside a watched child process
// when `isolated` is set (everything that touches a GPU, a vendor library or Python), and reports
// its progress through the context so the parent can tell a JIT that takes 40 s from a kernel
// that never returns. A failing vendor call becomes a result, never an exit.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"
#include "core/probe_result.h"

namespace gs {

class python_worker;  // python/python_worker.h

/// Where a probe's progress goes: the watchdog's pipe in a child, a no-op in tests.
class phase_sink {
 public:
  virtual ~phase_sink() = default;
  /// Enter a phase: "load", "compile", "launch", "sync", "verify" (deadlines are per phase).
  virtual void phase(std::string_view name) = 0;
  /// "Still alive": resets the no-progress clock inside long host-side work.
  virtual void heartbeat() = 0;
};

struct probe_context {
  phase_sink* progress = nullptr;   ///< never null while run() executes
  const machine_facts* facts = nullptr;
  std::string device = "auto";      ///< --device: "cpu", "auto" or an ordinal "0"
  std::string probe_id;             ///< the probe being run (its options: probes/probe_options.h)
  std::map<std::string, std::string> options;  ///< this probe's --set key=value (ID.KEY given as KEY too)
  /// The run's warm Python worker when this step runs in one (its scripts go there instead of a
  /// fresh interpreter; watch/probe_worker.h), and whether the script runs inside the worker
  /// process (warm_python::in_worker) rather than in a child forked from it.
  python_worker* python = nullptr;
  bool python_in_worker = false;
  void phase(std::string_view p) const { if (progress) progress->phase(p); }
  void heartbeat() const { if (progress) progress->heartbeat(); }
};

/// How a Python step may use the run's warm worker (issue 16; docs/watchdog.md "Warm workers").
struct warm_python {
  /// Modules its interpreter imports once, before the first step, beside the steps before it.
  /// For a forked step only modules that leave the GPU uninitialised (torch, transformers,
  /// triton): a child cannot use a GPU its parent initialised.
  std::vector<std::string> preload;
  /// Run inside the worker's shared interpreter, with its imports and its GPU context: for
  /// scripts whose imports initialise the GPU (bitsandbytes, and peft through it), which can
  /// then be preloaded too. Otherwise the script runs in a child forked from the fork server,
  /// with a process and a GPU context of its own.
  bool in_worker = false;
};

struct probe_spec {
  const char* id;                      ///< stable dotted id: "gemm.bf16"
  const char* summary;                 ///< one line for --list
  std::vector<const char*> depends_on; ///< ids that must pass (or warn) first, else this is `skip`
  bool isolated;                       ///< run in a watched child process
  bool uses_gpu;                       ///< a hang here may leave the GPU unusable
  probe_result (*run)(const probe_context& ctx);
  /// Set: a Python step that may run in the run's warm worker (unless --fresh); unset: its own
  /// child and interpreter, always.
  std::optional<warm_python> warm = std::nullopt;
};

/// The one table of probes, in run order.
const std::vector<const probe_spec*>& all_probes();
/// nullptr when no probe has this id.
const probe_spec* find_probe(std::string_view id);

}  // namespace gs
