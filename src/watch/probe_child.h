// The pieces of running one probe that the fresh child (probe_child.cpp: run_probe) and the warm
// worker (probe_worker.cpp) share, so a probe is called, and its end is read, one way.
#pragma once
#include "probes/probe.h"
#include "watch/probe_runner.h"
#include "watch/watch.h"

namespace gs {

/// A probe's progress, sent over the watchdog pipe of the child it runs in.
class reporter_sink final : public phase_sink {
 public:
  explicit reporter_sink(child_reporter& r) : r_(r) {}
  void phase(std::string_view name) override { r_.phase(name); }
  void heartbeat() override { r_.heartbeat(); }

 private:
  child_reporter& r_;
};

/// The context spec.run gets: facts, device, and its own `--set` options under their short names.
probe_context make_context(const probe_spec& spec, const runner_options& o, phase_sink* sink);
/// spec.run, with an escaped exception as an `error` result.
probe_result call_probe(const probe_spec& spec, const probe_context& ctx);
/// How a watched child ended, as the probe's result (docs/watchdog.md's table).
probe_result from_outcome(const probe_spec& spec, const watch_outcome& w);

}  // namespace gs
