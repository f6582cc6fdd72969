// `gpustack probe fla`: the gated delta rule (linear attention of Qwen3.5 / Qwen3-Next) at every
// pipeline depth in --stages, through up to three backends (native kernel, Triton kernel,
// flash-linear-attention itself), each (backend, stage) in its own watched child so a hang at
// num_stages 2 is reported and num_stages 3 still runs. Then the verdict: the highest safe
// num_stages per backend, whether a failure is Triton's, the knowledge-base finding, the fix.
// docs/fla.md describes it; probe_command.cpp hooks it in as a nested subcommand of `probe`.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <set>

#include "cli/cli.h"
#include "cli/watched_command.h"
#include "cli/probe_fla_command.h"
#include "detect/detect.h"
#include "fla/fla_follow_up.h"
#include "fla/fla_options.h"
#include "fla/fla_probes.h"
#include "fla/fla_verdict.h"
#include "matrix/matrix_record.h"
#include "report/redact.h"
#include "report/report.h"
#include "rules/error_findings.h"
#include "rules/rule.h"
#include "runtime/runtime.h"
#include "watch/probe_display.h"
#include "watch/probe_runner.h"
#include "watch/probe_worker.h"

namespace gs {
namespace {

struct fla_args {
  output_options out;
  std::string stages = "1..4";
  std::string backends;  ///< "" = native,triton,fla; triton with --compile-only
  bool compile_only = false;
  fla_settings settings;
  double timeout_s = 0;
  detect_options detect;
  matrix_options matrix;  ///< --matrix FILE / --no-matrix
  std::string repro_dir;  ///< --emit-repro DIR
  bool sanitize = false;  ///< --sanitize
  bool fresh = false;     ///< --fresh: each Python step in its own interpreter
  bool chosen = false;  ///< set by the subcommand's callback
};

finding finding_from_rule(const knowledge_base& kb, const std::string& id, const std::string& evidence,
                          const std::string& fix) {
  finding f;
  f.id = id;
  for (const rule& r : kb.rules()) {
    if (r.id != id) continue;
    f.level = r.level;
    f.title = r.title;
    f.refs = r.refs;
    f.rule_source = r.pos.path + ":" + std::to_string(r.pos.line);
  }
  f.evidence = evidence;
  f.remediation = fix;
  return f;
}

fla_verdict_context verdict_context(const machine_facts& facts, const std::vector<probe_result>& results,
                                    const std::string& device_arch) {
  fla_verdict_context c;
  if (!facts.gpus.empty()) {
    c.gpu_vendor = facts.gpus.front().vendor;
    c.gpu_arch = facts.gpus.front().arch;
  }
  if (!device_arch.empty()) c.gpu_arch = device_arch;
  for (const probe_result& r : results) {
    const nlohmann::json& v = r.data.value("versions", nlohmann::json::object());
    if (v.is_object() && c.triton_version.empty() && v.value("triton", nlohmann::json()).is_string())
      c.triton_version = v["triton"].get<std::string>();
    if (v.is_object() && c.fla_version.empty() && v.value("fla", nlohmann::json()).is_string())
      c.fla_version = v["fla"].get<std::string>();
    if (r.data.value("arch", nlohmann::json()).is_string() && c.gpu_arch.empty())
      c.gpu_arch = r.data["arch"].get<std::string>();
  }
  auto pkg = [&](const char* name) -> std::string {
    auto it = facts.python.packages.find(name);
    return it == facts.python.packages.end() ? "" : it->second.version;
  };
  if (c.triton_version.empty()) c.triton_version = pkg("triton");
  if (c.fla_version.empty()) c.fla_version = pkg("flash-linear-attention");
  return c;
}

std::vector<finding> gather(const machine_facts& facts, std::vector<probe_result>& results, const fla_verdict& v) {
  const knowledge_base& kb = builtin_knowledge_base();
  std::vector<finding> out = run_findings(kb, facts, results);
  bool named = std::any_of(out.begin(), out.end(), [&v](const finding& f) { return f.id == v.finding_id; });
  if (!v.finding_id.empty() && !named) {
    std::string evidence;
    for (const std::string& l : v.lines) evidence += (evidence.empty() ? "" : "; ") + l;
    out.push_back(finding_from_rule(kb, v.finding_id, "gpustack probe fla: " + evidence, v.fix));
  }
  return out;
}

int run_fla(const fla_args& a) {
  fla_settings s = a.settings;
  std::string why;
  auto stages = parse_stage_range(a.stages, &why);
  if (!stages) {
    std::fprintf(stderr, "gpustack: --stages: %s\n", why.c_str());
    return exit_usage;
  }
  if (a.compile_only != !s.compile_target.empty()) {
    std::fprintf(stderr, "gpustack: %s\n", a.compile_only ? "--compile-only needs --target ARCH (for example gfx1201 or 90)"
                                                          : "--target names the arch --compile-only compiles for: add --compile-only");
    return exit_usage;
  }
  if (a.compile_only) {
    for (const auto& [flag, bad] : {std::pair<const char*, std::string>{"--target", check_compile_target(s.compile_target)},
                                    {"--kernels", check_compile_kernels(s.compile_kernels)}})
      if (!bad.empty()) {
        std::fprintf(stderr, "gpustack: %s: %s\n", flag, bad.c_str());
        return exit_usage;
      }
    if (!a.backends.empty() && a.backends != "triton") {
      std::fprintf(stderr, "gpustack: --compile-only compiles gpustack's Triton kernels only: leave out --backends "
                           "or give --backends triton\n");
      return exit_usage;
    }
    if (a.sanitize || !a.repro_dir.empty()) {
      std::fprintf(stderr, "gpustack: --sanitize and --emit-repro follow up a run on the GPU, not --compile-only "
                           "(scripts/triton-cross-compile.py is the standalone form of a compile failure)\n");
      return exit_usage;
    }
    s.device = "cpu";  // nothing touches a GPU: no device session, no card sampler
  }
  auto backends = parse_backends(a.backends.empty() ? (a.compile_only ? "triton" : "native,triton,fla") : a.backends, &why);
  if (!backends) {
    std::fprintf(stderr, "gpustack: --backends: %s\n", why.c_str());
    return exit_usage;
  }
  if (std::string bad = s.shape.invalid(); !bad.empty()) {
    std::fprintf(stderr, "gpustack: bad shape: %s\n", bad.c_str());
    return exit_usage;
  }
  if (s.dtype != "bf16") {
    std::fprintf(stderr, "gpustack: --dtype: only bf16 is supported (what Qwen3.5 trains in)\n");
    return exit_usage;
  }
  s.stages = *stages;
  s.backends = *backends;
  if (!a.repro_dir.empty()) {  // before anything runs: a bad DIR must not cost the user the run
    std::error_code ec;
    std::filesystem::create_directories(a.repro_dir, ec);
    if (ec || !std::filesystem::is_directory(a.repro_dir)) {
      std::fprintf(stderr, "gpustack: --emit-repro: cannot use %s as a directory: %s\n", a.repro_dir.c_str(),
                   ec ? ec.message().c_str() : "it is a file");
      return exit_usage;
    }
  }

  const auto t0 = std::chrono::steady_clock::now();
  watched_start start = start_watched_command(a.detect);
  machine_facts& facts = start.facts;

  runner_options o;
  o.fresh_python = a.fresh;
  // A first FLA call spends 17-40 s compiling (more with the backward); an import of torch a
  // few seconds; the fp64 reference on the CPU a few more. Generous, but a hang still ends.
  o.limits.deadlines.seconds["import"] = 120;
  o.limits.deadlines.seconds["compile"] = 240;
  o.limits.deadlines.seconds["run"] = 60;
  o.limits.deadlines.seconds["verify"] = 180;
  o.limits.deadlines.seconds["backward"] = 240;
  o.limits.deadlines.seconds["default"] = 240;  // fla: FLA timed at its own configs, re-autotuned
  o.limits.waiting_phases = {"launch", "sync", "run"};
  if (a.timeout_s > 0) o.limits.deadlines.override_all(a.timeout_s);
  o.device = s.device;
  o.facts = &facts;
  watch_sources sources;
  sources.attach(o, start);
  install_interrupt_handler();

  std::deque<std::string> ids;
  std::vector<probe_spec> specs;
  for (int stage : s.stages)
    for (const std::string& b : s.backends)
      specs.push_back(a.compile_only ? fla_compile_step_spec(stage, ids) : fla_step_spec(b, stage, ids));
  step_progress progress(specs.size());
  // One warm worker for every Python step of the run (each run_probes call below is one step).
  std::vector<const probe_spec*> spec_ptrs;
  for (const probe_spec& sp : specs) spec_ptrs.push_back(&sp);
  std::unique_ptr<probe_worker> worker;
  if (!a.fresh && s.device != "cpu" && std::any_of(specs.begin(), specs.end(), [](const probe_spec& sp) { return sp.warm.has_value(); })) {
    worker = std::make_unique<probe_worker>(spec_ptrs, o);
    worker->start();
    o.worker = worker.get();
  }
  run_summary totals;
  std::vector<probe_result> results;
  std::string gpu_gone, device_arch;
  bool interrupted = false;
  int backward_refused_at = 0;  // the depth where FLA refused its backward as FLA#640, if any
  for (size_t i = 0; i < specs.size(); ++i) {
    int stage = s.stages[i / s.backends.size()];
    if (!gpu_gone.empty() || interrupted) {
      probe_result r = make_result(specs[i].id, status::skip, interrupted ? "not run: interrupted" : gpu_gone);
      r.data = {{"backend", s.backends[i % s.backends.size()]}, {"stage", stage}};
      progress.event(i, {runner_event::finished, i, specs.size(), &specs[i], "", 0, &r});
      results.push_back(std::move(r));
      continue;
    }
    runner_options step = o;
    step.probe_options = fla_step_options(s, stage);
    // FLA's refusal of its gated backward (FLA#640) depends on the GPU and the Triton version,
    // not on the depth: once seen, later depths report it without the ~25 s of compiling that
    // precede the refusal.
    if (backward_refused_at) step.probe_options["fla.backward_refused_at"] = std::to_string(backward_refused_at);
    step.on_event = [&progress, i](const runner_event& e) { progress.event(i, e); };
    run_summary sum = run_probes({&specs[i]}, step);
    for (const std::string& n : sum.notes) facts.issues.push_back({"gpustack probe fla", n});
    totals.import_s += sum.import_s;
    totals.run_s += sum.run_s;
    totals.preload_overlapped_s += sum.preload_overlapped_s;
    if (totals.python_mode.empty()) totals.python_mode = sum.python_mode;
    interrupted = sum.interrupted;
    for (probe_result& r : sum.results) {
      // The runner knows nothing of stages: make sure the verdict can place every result.
      if (!r.data.is_object()) r.data = nlohmann::json::object();
      r.data["backend"] = s.backends[i % s.backends.size()];
      r.data["stage"] = stage;
      if (!backward_refused_at) backward_refused_at = fla_backward_refused_stage(r);
      if (r.data.contains("device") && r.data["device"].is_object() && device_arch.empty())
        device_arch = r.data["device"].value("arch", "");
      if ((r.outcome == status::hang || r.outcome == status::crash) && !gpu_still_answers(o))
        gpu_gone = "not run: the GPU stopped answering after " + r.id + " " + std::string(to_string(r.outcome)) +
                   "; reset the GPU or reboot, then run again";
      results.push_back(std::move(r));
    }
  }

  if (!interrupted) {
    fla_follow_up_options fo;
    fo.repro_dir = a.repro_dir;
    fo.sanitize = a.sanitize;
    fo.python = facts.python.interpreter;
    redactor scrub = redactor::for_facts(facts, a.out.include_identifiers);
    for (const std::string& l : follow_up_fla_failures(results, fo, scrub)) std::fprintf(stderr, "%s\n", l.c_str());
  }

  worker.reset();  // the interpreter goes before the verdict's lines are printed
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  say_run_timing(totals, wall_s);
  fla_verdict_context vc = verdict_context(facts, results, device_arch);
  if (a.compile_only) {  // the verdict is about the arch compiled for, not this machine's GPU
    vc.gpu_arch = s.compile_target;
    vc.gpu_vendor = s.compile_target.rfind("gfx", 0) == 0 ? "amd" : "nvidia";
  }
  fla_verdict v = decide_fla_verdict(results, vc);
  if (a.compile_only)
    v.lines.push_back("compiled for " + s.compile_target + " only (--compile-only): a failure is Triton's compiler "
                      "refusing the kernel; a pass says nothing about running it on the card");
  for (const std::string& l : v.lines) std::fprintf(stderr, "verdict: %s\n", l.c_str());
  probe_result vr;
  vr.id = "fla.verdict";
  bool any_bad = std::any_of(results.begin(), results.end(), [](const probe_result& r) { return is_failure(r.outcome); });
  vr.outcome = any_bad ? status::fail : status::pass;
  vr.phase = "verdict";
  for (const std::string& l : v.lines) vr.detail += (vr.detail.empty() ? "" : "; ") + l;
  vr.data = v.to_json();
  if (!v.finding_id.empty()) vr.finding_ids.push_back(v.finding_id);

  report_input in;
  in.facts = &facts;
  in.findings = gather(facts, results, v);
  in.probes = results;
  in.probes.push_back(vr);
  in.extra["run"] = run_timing_json(totals, wall_s);
  // A compile for another arch is no cell of this machine's stack: its own fingerprint.
  if (a.compile_only) in.settings["compile_only_target"] = s.compile_target;
  report_options ro;
  ro.include_identifiers = a.out.include_identifiers;
  ro.command = "probe fla";
  nlohmann::json report = build_report(in, ro);
  if (!emit_gpustack_report(a.out, report)) return exit_usage;
  return finish_watched_command(report, results, interrupted, a.matrix);  // every step is one cell
}

}  // namespace

std::function<std::optional<int>()> add_probe_fla_subcommand(CLI::App& probe) {
  auto a = std::make_shared<fla_args>();
  CLI::App* sub = probe.add_subcommand(
      "fla", "linear attention (gated delta rule) at every Triton pipeline depth: native, Triton and FLA, hang-watched");
  sub->add_option("--stages", a->stages, "pipeline depths (num_stages) to test: N, A..B or a list such as 1,3")
      ->capture_default_str();
  sub->add_option("--backends", a->backends,
                  "which backends: native, triton, fla (comma-separated; default all three, triton with --compile-only)");
  gdn_shape& sh = a->settings.shape;
  sub->add_option("--batch", sh.B, "batch size B")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--seq", sh.T, "sequence length T")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--heads", sh.H, "q/k heads H (Qwen3.5: linear_num_key_heads = 16)")
      ->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--value-heads", sh.HV, "value heads HV, a multiple of H (Qwen3.5-9B: 32, Qwen3.5-0.8B: 16)")
      ->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--head-dim-k", sh.K, "q/k head dimension K (<= 256)")->capture_default_str()->check(CLI::Range(1, 256));
  sub->add_option("--head-dim-v", sh.V, "value head dimension V")->capture_default_str()->check(CLI::Range(1, 1024));
  sub->add_option("--dtype", a->settings.dtype, "input dtype (bf16)")->capture_default_str();
  sub->add_flag("--backward", a->settings.backward, "also run FLA's backward where the installed versions support it");
  sub->add_option("--seed", a->settings.seed, "seed of the random inputs (every backend and stage sees the same)")
      ->capture_default_str();
  sub->add_option("--timeout", a->timeout_s,
                  "seconds any one phase may take (default: import 120, compile 240, run 60, verify 180, backward 240)")
      ->check(phase_timeout_check());
  sub->add_option("--device", a->settings.device, "where the native kernel runs: cpu, auto, N, cuda:N or hip:N")
      ->capture_default_str()
      ->check([](const std::string& v) -> std::string { return parse_device(v).valid ? "" : "must be cpu, auto, N, cuda:N or hip:N"; });
  sub->add_option("--native-kernel", a->settings.native_kernel,
                  "the native backend's kernel: v2 (matrix unit, async copies) or v1 (the simple CUDA-core one)")
      ->capture_default_str()
      ->check(CLI::IsMember({"v1", "v2"}));
  sub->add_flag("--compile-only", a->compile_only,
                "compile the triton backend's kernels for --target with Triton's own compiler at each depth; no GPU needed");
  sub->add_option("--target", a->settings.compile_target, "the arch --compile-only compiles for: gfx1201, gfx942, 90 ...")
      ->type_name("ARCH");
  sub->add_option("--kernels", a->settings.compile_kernels, "with --compile-only: which kernels (prep, state, out)")
      ->capture_default_str();
  add_fresh_option(*sub, a->fresh);
  add_python_options(*sub, a->detect, "the Python interpreter the triton and fla backends run",
                     "the virtual environment whose Python they run");
  // Hidden: the H200 self-test makes the Triton backend launch a kernel that never ends at this
  // depth, to show `hang` in phase run and the next depth still running.
  sub->add_option("--selftest-spin-stage", a->settings.spin_stage, "")->group("");
  sub->add_option("--emit-repro", a->repro_dir,
                  "write each failing triton/fla step as a standalone Python script into DIR (for an upstream issue)")
      ->type_name("DIR");
  sub->add_flag("--sanitize", a->sanitize,
                "re-run a step that failed with a memory fault under compute-sanitizer and attach what it finds");
  add_output_options(*sub, a->out);
  add_matrix_options(*sub, a->matrix);
  sub->callback([a] { a->chosen = true; });
  return [a]() -> std::optional<int> {
    if (!a->chosen) return std::nullopt;
    return run_fla(*a);
  };
}

}  // namespace gs
