// run_probes: the run order, the dependency rule, the breadcrumb around GPU probes, kernel-log
// lines, and the "is the GPU still usable" cascade after a GPU probe hangs or crashes.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <algorithm>

#include "watch/probe_runner.h"

#include "core/utc_time.h"
#include "watch/card_sampler.h"
#include "watch/probe_worker.h"

namespace gs {
namespace {

probe_result skipped(const probe_spec& spec, std::string why) { return make_result(spec.id, status::skip, std::move(why)); }

}  // namespace

void mark_interrupted(probe_result& r) {
  // A step the user stopped was killed by us, not by the stack: an error, crash or hang that
  // ends there says nothing. A result the step finished (pass, warn, or its own fail) stands.
  if (r.outcome != status::error && r.outcome != status::crash && r.outcome != status::hang) return;
  r.data["interrupted"] = true;
  r.data["interrupted_outcome"] = std::string(to_string(r.outcome));
  r.outcome = status::skip;
  r.detail = "not finished: interrupted by the user (Ctrl-C) in phase " + (r.phase.empty() ? std::string("start") : r.phase);
}

namespace {

/// "" when every dependency passed or warned, else the one-line reason to skip.
std::string dependency_problem(const probe_spec& spec, const std::map<std::string, status>& done) {
  for (const char* dep : spec.depends_on) {
    auto it = done.find(dep);
    if (it == done.end()) return std::string("depends on ") + dep + " which did not run";
    if (it->second != status::pass && it->second != status::warn)
      return std::string("depends on ") + dep + " which was " + std::string(to_string(it->second));
  }
  return {};
}

/// Keeps the breadcrumb of one GPU probe current; removes it when the probe is over.
class crumb_keeper {
 public:
  crumb_keeper(const breadcrumb_file* file, const probe_spec& spec) : file_(file) {
    if (!file_ || !spec.uses_gpu) {
      file_ = nullptr;
      return;
    }
    crumb_.probe = spec.id;
    crumb_.pid = static_cast<long>(::getpid());
    crumb_.boot_id = current_boot_id();
    set_phase("start");
  }
  ~crumb_keeper() {
    if (file_) file_->remove();
  }
  void set_phase(std::string_view phase) {
    if (!file_) return;
    crumb_.phase = std::string(phase);
    crumb_.time_utc = utc_now_iso();
    file_->write(crumb_);  // a crumb that cannot be written costs only the post-mortem
  }

 private:
  const breadcrumb_file* file_;
  breadcrumb crumb_;
};

}  // namespace

bool step_import_run_s(const probe_result& r, double* import_s, double* run_s) {
  if (!r.data.is_object() || !r.data.contains("phase_s") || !r.data["phase_s"].is_array()) return false;
  double imp = 0;
  for (const nlohmann::json& span : r.data["phase_s"]) {
    if (!span.is_array() || span.size() != 2 || !span[0].is_string() || !span[1].is_number()) continue;
    const std::string name = span[0].get<std::string>();
    if (name == "start" || name == "preload" || name == "import") imp += span[1].get<double>();
  }
  // The runner's "start" span opens a few ms before the child's clock (duration_ms) starts: keep
  // the two parts inside the step's own duration, so they add up to it.
  const double dur = r.duration_ms / 1000.0;
  *import_s = std::min(imp, dur);
  *run_s = dur - *import_s;
  return true;
}

run_summary run_probes(const std::vector<const probe_spec*>& probes, const runner_options& o) {
  run_summary s;
  // The warm worker, started now (unless --fresh or --device cpu, where the Python steps skip)
  // so that its interpreter's imports run while the native steps before the first Python one do.
  std::unique_ptr<probe_worker> own_worker;
  probe_worker* worker = o.worker;
  const bool any_warm = std::any_of(probes.begin(), probes.end(), [](const probe_spec* p) { return p->warm.has_value(); });
  if (any_warm) s.python_mode = o.fresh_python ? "fresh" : "warm";
  if (any_warm && !o.fresh_python && !worker && o.device != "cpu") {
    own_worker = std::make_unique<probe_worker>(probes, o);
    own_worker->start();
    worker = own_worker.get();
  }
  std::map<std::string, status> done;
  std::string gpu_gone;  // why GPU probes are no longer run
  bool log_noted = false;
  auto emit = [&](runner_event ev) {
    if (o.on_event) o.on_event(ev);
  };
  auto note_log = [&](const kernel_log_read& k) {
    if (k.readable || log_noted) return;
    log_noted = true;
    s.notes.push_back("the kernel log is not readable (" + k.why +
                      "), so GPU resets or faults during probes cannot be attached to them");
  };

  for (size_t i = 0; i < probes.size(); ++i) {
    const probe_spec& spec = *probes[i];
    runner_event base;
    base.index = i;
    base.total = probes.size();
    base.spec = &spec;
    std::string skip_why;
    if (s.interrupted) skip_why = "not run: the run was interrupted";
    else if (spec.uses_gpu && !gpu_gone.empty()) skip_why = gpu_gone;
    else skip_why = dependency_problem(spec, done);
    if (!skip_why.empty()) {
      s.results.push_back(skipped(spec, skip_why));
    } else {
      runner_event ev = base;
      ev.kind = runner_event::started;
      emit(ev);
      if (o.kernel_log) note_log(o.kernel_log->read_new());  // drop what came before
      probe_result r;
      // When each phase began, so the result can say where a slow step spent its time
      // (`phase_s`: [[phase, seconds], ...] in order).
      std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> phase_starts;
      {
        crumb_keeper crumb(o.breadcrumb, spec);
        // The card while the step runs, read from here (the parent), never from the child. Its
        // thread starts at the first word from the watch loop, i.e. after the step's child was
        // forked: a child forked while the sampler held NVML's lock would inherit the lock held
        // and hang in its own nvmlInit (the CUDA runtime reads the driver version through NVML).
        card_sampler sampler(spec.uses_gpu ? o.card : nullptr);
        auto on_phase = [&](std::string_view p) {
          sampler.start();
          // A step that reports "start" itself continues the runner's own "start".
          if (phase_starts.empty() || phase_starts.back().first != p)
            phase_starts.emplace_back(std::string(p), std::chrono::steady_clock::now());
          crumb.set_phase(p);
          runner_event pe = base;
          pe.kind = runner_event::entered;
          pe.phase = std::string(p);
          emit(pe);
        };
        auto on_tick = [&](double t) {
          sampler.start();
          runner_event te = base;
          te.kind = runner_event::tick;
          te.elapsed_s = t;
          emit(te);
        };
        // Fork, interpreter start and anything before the step's first phase count as "start".
        phase_starts.emplace_back("start", std::chrono::steady_clock::now());
        if (!o.fresh_python && worker && worker->serves(spec)) {
          r = worker->run(spec, o, on_phase, on_tick);
        } else {
          r = run_probe(spec, o, on_phase, on_tick);
          if (spec.warm) r.data["worker"] = {{"mode", "fresh"}};
        }
        sampler.stop();
        if (spec.uses_gpu && o.card) attach_card_samples(r, sampler.samples(), o.card->name(), sampler.period(), sampler.stuck());
        if (!phase_starts.empty() && (r.data.is_object() || r.data.is_null())) {
          const auto end = std::chrono::steady_clock::now();
          nlohmann::json spans = nlohmann::json::array();
          for (size_t p = 0; p < phase_starts.size(); ++p) {
            const auto until = p + 1 < phase_starts.size() ? phase_starts[p + 1].second : end;
            const double sec = std::chrono::duration<double>(until - phase_starts[p].second).count();
            spans.push_back({phase_starts[p].first, std::round(sec * 100) / 100});
          }
          r.data["phase_s"] = std::move(spans);
        }
        if (spec.uses_gpu && (r.outcome == status::hang || r.outcome == status::crash)) {
          // Processes stuck in the driver through SIGKILL mean the GPU is wedged; otherwise
          // ask (a quick visibility probe in its own child) before more GPU work is sent.
          bool stuck = r.data.value("unkillable", false);
          bool usable = !stuck && (!o.gpu_still_usable || o.gpu_still_usable());
          r.data["gpu_usable_after"] = usable;
          if (!usable)
            gpu_gone = "not run: the GPU stopped answering after " + std::string(spec.id) +
                       (r.outcome == status::hang ? " hung in phase " + r.phase : " crashed") +
                       "; reset the GPU or reboot, then run again";
        }
      }
      // Read after the usability check: a reset is often logged seconds after the kill.
      if (o.kernel_log) {
        kernel_log_read k = o.kernel_log->read_new();
        note_log(k);
        for (std::string& line : k.lines)
          if (is_gpu_event_line(line)) r.kernel_log.push_back(std::move(line));
      }
      if (interrupt_requested()) {
        s.interrupted = true;
        mark_interrupted(r);
      }
      double imp = 0, rest = 0;
      if (step_import_run_s(r, &imp, &rest)) {
        r.data["import_s"] = std::round(imp * 100) / 100;
        r.data["run_s"] = std::round(rest * 100) / 100;
        s.import_s += imp;
        s.run_s += rest;
        if (r.data.contains("worker") && r.data["worker"].is_object() && r.data["worker"].contains("preload_total_s") &&
            r.data["worker"]["preload_total_s"].is_number())
          s.preload_overlapped_s += r.data["worker"]["preload_total_s"].get<double>();
      }
      s.results.push_back(std::move(r));
    }
    done[spec.id] = s.results.back().outcome;
    runner_event fe = base;
    fe.kind = runner_event::finished;
    fe.result = &s.results.back();
    emit(fe);
  }
  return s;
}

}  // namespace gs
