// run_probe: one probe, in a watched child (isolated) or in this process, and the translation
// of how the child ended into a probe_result: deadline -> hang in its phase, a signal we did not
// send -> crash with the signal's name, no result -> error (docs/watchdog.md).
#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <exception>

#include "watch/probe_child.h"
#include "watch/probe_runner.h"
#include "watch/result_codec.h"

namespace gs {
namespace {

class local_sink final : public phase_sink {
 public:
  explicit local_sink(const std::function<void(std::string_view)>& on_phase) : on_phase_(on_phase) {}
  void phase(std::string_view name) override {
    last = name;
    if (on_phase_) on_phase_(name);
  }
  void heartbeat() override {}
  std::string last;

 private:
  const std::function<void(std::string_view)>& on_phase_;
};

}  // namespace

probe_context make_context(const probe_spec& spec, const runner_options& o, phase_sink* sink) {
  probe_context ctx;
  ctx.progress = sink;
  ctx.facts = o.facts;
  ctx.device = o.device;
  ctx.probe_id = spec.id;
  ctx.options = o.probe_options;
  // `--set tensor.vector_add.n=1000` reaches that probe as "n" and no other probe.
  const std::string prefix = std::string(spec.id) + ".";
  for (const auto& [k, v] : o.probe_options)
    if (k.size() > prefix.size() && k.compare(0, prefix.size(), prefix) == 0) ctx.options[k.substr(prefix.size())] = v;
  return ctx;
}

namespace {

probe_result error_result(const probe_spec& spec, std::string detail) {
  return make_result(spec.id, status::error, std::move(detail));
}

}  // namespace

probe_result call_probe(const probe_spec& spec, const probe_context& ctx) {
  try {
    probe_result r = spec.run(ctx);
    if (r.id.empty()) r.id = spec.id;
    return r;
  } catch (const std::exception& e) {
    return error_result(spec, std::string("the probe threw: ") + e.what());
  } catch (...) {
    return error_result(spec, "the probe threw an unknown exception");
  }
}

namespace {

std::string phase_or_start(const std::string& p) { return p.empty() ? "start" : p; }

std::string describe_end(const watch_outcome& w) {
  std::string phase = phase_or_start(w.phase);
  switch (w.end) {
    case watch_end::hang: {
      std::string d = fmt::format("no end to phase {} after {:.1f} s (deadline {:g} s); killed",
                                  phase, w.phase_elapsed_s, w.deadline_s);
      if (w.no_progress)
        d += fmt::format("; its CPU time stood still for {:.1f} s in {}, the signature of a "
                         "GPU wait that never completes", w.no_progress_s, w.no_progress_phase);
      return d;
    }
    case watch_end::crashed:
      if (w.signal == SIGKILL)
        return fmt::format("killed by SIGKILL in phase {}, not sent by gpustack (the kernel's "
                           "out-of-memory killer, or another process)", phase);
      return fmt::format("died of {} in phase {}", signal_name(w.signal), phase);
    case watch_end::no_result:
      return fmt::format("exited with code {} in phase {} without sending a result",
                         w.exit_code, phase);
    case watch_end::interrupted:
      return fmt::format("interrupted in phase {} (Ctrl-C)", phase);
    case watch_end::spawn_failed:
      return "could not start a child process: " + w.error;
    case watch_end::finished:
      break;
  }
  return {};
}

}  // namespace

probe_result from_outcome(const probe_spec& spec, const watch_outcome& w) {
  probe_result r;
  bool bad_payload = false;
  if (w.end == watch_end::finished) {
    std::string why;
    if (auto decoded = decode_probe_result(*w.payload, &why)) {
      r = std::move(*decoded);
      if (r.phase.empty()) r.phase = w.phase;
      if (w.signal != 0) {
        // The result arrived, then the child died on its way out (a runtime's teardown
        // crashing is common enough to report, not to discard a good measurement).
        r.detail += fmt::format(" (then died of {} while exiting)", signal_name(w.signal));
        r.data["exit_signal"] = signal_name(w.signal);
        if (r.outcome == status::pass) r.outcome = status::warn;
      }
    } else {
      bad_payload = true;
      r = error_result(spec, "the probe sent an unreadable result: " + why);
      r.phase = w.phase;
    }
  } else {
    r.outcome = w.end == watch_end::hang      ? status::hang
                : w.end == watch_end::crashed ? status::crash
                                              : status::error;
    r.phase = phase_or_start(w.phase);
    r.detail = describe_end(w);
    if (w.signal != 0 && w.end == watch_end::crashed) r.data["signal"] = signal_name(w.signal);
    if (w.end == watch_end::no_result) r.data["exit_code"] = w.exit_code;
  }
  r.id = spec.id;
  r.duration_ms = w.elapsed_s * 1000.0;
  bool troubled = bad_payload || w.end != watch_end::finished;
  if (troubled || w.no_progress) {
    if (w.cpu_seconds) r.data["cpu_seconds"] = *w.cpu_seconds;
    r.data["no_progress"] = w.no_progress;
  }
  if (w.end == watch_end::hang) {
    r.data["deadline_s"] = w.deadline_s;
    r.data["phase_elapsed_s"] = w.phase_elapsed_s;
    r.data["pgid"] = w.pgid;  // the group that was killed: `kill -0 -PGID` shows it is gone
  }
  if (troubled && !w.output_tail.empty()) r.data["output_tail"] = w.output_tail;
  if (w.left_processes) r.data["left_processes"] = true;
  if (w.unkillable) {
    r.data["unkillable"] = true;
    r.detail += "; processes of its group outlived SIGKILL (stuck inside the kernel driver)";
  }
  return r;
}

probe_result run_probe(const probe_spec& spec, const runner_options& o,
                       const std::function<void(std::string_view)>& on_phase,
                       const std::function<void(double)>& on_tick) {
  if (!spec.run) return error_result(spec, "the probe has no run function");
  if (!spec.isolated) {
    auto t0 = std::chrono::steady_clock::now();
    local_sink sink(on_phase);
    probe_result r = call_probe(spec, make_context(spec, o, &sink));
    r.id = spec.id;
    if (r.phase.empty()) r.phase = sink.last;
    r.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }
  child_body body = [&spec, &o](child_reporter& rep) {
    reporter_sink sink(rep);
    return encode_probe_result(call_probe(spec, make_context(spec, o, &sink)));
  };
  watch_events ev;
  ev.on_phase = on_phase;
  ev.on_tick = on_tick;
  return from_outcome(spec, run_watched(body, o.limits, o.cpu, ev));
}

}  // namespace gs
