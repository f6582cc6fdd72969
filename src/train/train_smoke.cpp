// train_smoke.h: the script's arguments and deadlines, the watched run, and the result's wording.
#include "train/train_smoke.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "python/script_runner.h"
#include "watch/probe_runner.h"

namespace gs {
namespace {

constexpr const char* kArgsKey = "train_smoke.args";

/// The watched child's body: the request travels as JSON in the context's options, since a
/// probe_spec's run is a plain function.
probe_result run_script_step(const probe_context& ctx) {
  probe_result r;
  r.id = "train_smoke";
  std::string why;
  if (!ctx.facts || !probe_interpreter(*ctx.facts, &why)) {
    r.outcome = status::skip;
    r.detail = ctx.facts ? why : "no machine facts: cannot tell which Python to use";
    return r;
  }
  python_probe_request req;
  req.script = "probes/python/train_smoke.py";
  auto it = ctx.options.find(kArgsKey);
  req.args = it == ctx.options.end() ? nlohmann::json::object() : nlohmann::json::parse(it->second);
  ctx.phase("start");
  return to_probe_result("train_smoke", run_python_script(ctx, req));
}

const probe_spec train_smoke_spec = {
    "train_smoke", "one mini QLoRA training run of a registry model in the user's Python", {}, true, true,
    run_script_step,
    // Forked from the warm worker: its own process and GPU context, so its peak memory is its own.
    warm_python{{"torch", "transformers"}, false}};

std::string step_words(const step_phase& s) { return fmt::format("step {} {}", s.step, s.part); }

}  // namespace

nlohmann::json train_smoke_args(const train_smoke_request& r) {
  return {{"model", r.model},       {"model_type", r.model_type}, {"hf_config", r.hf_config},
          {"target_modules", r.target_modules}, {"seq", r.seq}, {"batch", r.batch},
          {"steps", r.steps},       {"grad_ckpt", r.grad_ckpt},   {"lr", r.lr},
          {"seed", r.seed},         {"weights", r.weights},       {"device", r.device}};
}

watch_limits train_smoke_limits(int steps, double timeout_s) {
  watch_limits l;
  phase_deadlines& d = l.deadlines;
  d.seconds.clear();
  d.fallback_s = 120;
  d.seconds["start"] = 30;
  d.seconds["import"] = 120;
  d.seconds["build"] = 300;
  d.seconds["quantize"] = 300;
  d.seconds["lora"] = 120;
  d.seconds["verify"] = 60;
  l.waiting_phases.clear();
  for (int s = 0; s < steps; ++s)
    for (const char* part : {"forward", "backward", "optimizer"}) {
      std::string name = fmt::format("step{}.{}", s, part);
      d.seconds[name] = s == 0 ? 600 : 180;
      l.waiting_phases.push_back(name);
    }
  if (timeout_s > 0) d.override_all(timeout_s);
  return l;
}

std::optional<step_phase> parse_step_phase(std::string_view p) {
  if (!p.starts_with("step")) return std::nullopt;
  size_t dot = p.find('.');
  if (dot == std::string_view::npos || dot == 4 || dot + 1 >= p.size()) return std::nullopt;
  int n = 0;
  for (size_t i = 4; i < dot; ++i) {
    if (p[i] < '0' || p[i] > '9' || n > 100000) return std::nullopt;
    n = n * 10 + (p[i] - '0');
  }
  return step_phase{n, std::string(p.substr(dot + 1))};
}

bool train_progress::take_phase(std::string_view name) {
  if (name.starts_with("loss.")) {
    std::string v(name.substr(5));
    char* end = nullptr;
    double x = std::strtod(v.c_str(), &end);  // "nan" and "inf" parse too
    if (end && *end == '\0' && !v.empty()) last_loss = x;
    ++losses_seen;
    return false;
  }
  phase = std::string(name);
  return true;
}

std::string train_progress::line(double elapsed_s) const {
  std::optional<step_phase> s = parse_step_phase(phase);
  std::string where = s ? step_words(*s) : phase;
  std::string out = fmt::format("train-smoke: {} {:.0f} s", where, elapsed_s);
  if (last_loss) out += fmt::format(", last loss {:.3f}", *last_loss);
  return out;
}

probe_result run_train_smoke(const train_smoke_request& r, const machine_facts& facts, cpu_time_source* cpu,
                             const std::function<void(std::string_view)>& on_phase,
                             const std::function<void(double)>& on_tick, run_summary* summary) {
  runner_options o;
  o.limits = train_smoke_limits(r.steps, r.timeout_s);
  o.facts = &facts;
  o.cpu = cpu;
  o.device = r.device;
  o.probe_options[kArgsKey] = train_smoke_args(r).dump();
  o.fresh_python = r.fresh;
  o.on_event = [&](const runner_event& e) {
    if (e.kind == runner_event::entered && on_phase) on_phase(e.phase);
    if (e.kind == runner_event::tick && on_tick) on_tick(e.elapsed_s);
  };
  run_summary s = run_probes({&train_smoke_spec}, o);
  if (summary) *summary = s;
  return s.results.at(0);
}

std::optional<double> predicted_peak_bytes(const nlohmann::json& e) {
  for (const char* path : {"/peak_gpu_bytes", "/gpu/peak_bytes", "/peak_bytes"}) {
    nlohmann::json::json_pointer p(path);
    if (e.is_object() && e.contains(p) && e.at(p).is_number()) return e.at(p).get<double>();
  }
  return std::nullopt;
}

void finish_train_smoke_result(probe_result& r, const train_smoke_request& req,
                               const std::optional<nlohmann::json>& estimate) {
  r.id = "train_smoke." + req.model;
  r.data["args"] = train_smoke_args(req);  // the script's exact arguments: the run can be repeated by hand
  // A loss phase lasts microseconds; if a run ended there, it ended after that step's optimizer.
  if (r.phase.starts_with("loss.")) {
    int done = r.data.contains("loss") && r.data["loss"].is_array() ? int(r.data["loss"].size()) : 0;
    r.phase = done > 0 ? fmt::format("step{}.optimizer", done - 1) : "lora";
  }
  std::optional<step_phase> s = parse_step_phase(r.phase);
  if (s && (r.outcome == status::hang || r.outcome == status::crash)) {
    r.data["hang_step"] = s->step;
    r.data["hang_part"] = s->part;
    r.detail = fmt::format("{} in {}: {}", r.outcome == status::hang ? "hung" : "crashed", step_words(*s), r.detail);
  } else if (r.outcome == status::hang || r.outcome == status::crash) {
    r.detail = fmt::format("{} in {}: {}", r.outcome == status::hang ? "hung" : "crashed", r.phase, r.detail);
  }
  // A script failure names the phase that raised (data.last_phase).
  if (r.outcome == status::fail && r.data.contains("last_phase") && r.data["last_phase"].is_string()) {
    std::string lp = r.data["last_phase"].get<std::string>();
    r.phase = lp;
    if (std::optional<step_phase> f = parse_step_phase(lp))
      r.detail = fmt::format("failed in {}: {}", step_words(*f), r.detail);
  }
  if (!estimate) return;
  r.data["estimate"] = *estimate;
  std::optional<double> predicted = predicted_peak_bytes(*estimate);
  if (predicted && *predicted > 0 && r.data.contains("peak_alloc_bytes") && r.data["peak_alloc_bytes"].is_number()) {
    double measured = r.data["peak_alloc_bytes"].get<double>();
    double ratio = measured / *predicted;
    r.data["peak_vs_estimate"] = ratio;
    r.data["estimate_within_15pct"] = std::fabs(ratio - 1.0) <= 0.15;
    if (r.outcome == status::pass)
      r.detail += fmt::format("; estimate {:.2f} GiB ({:+.0f} %)", *predicted / double(1ull << 30), (ratio - 1.0) * 100.0);
  }
}

}  // namespace gs
