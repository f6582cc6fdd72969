// `gpustack probe collective` (issue 20; docs/collective.md): the collectives a DDP/FSDP run makes
// (all_reduce, all_gather, reduce_scatter, broadcast), one rank per GPU launched through torchrun,
// each operation its own watched step; then the GPU-to-GPU peer-access and copy matrix. On a
// machine without GPUs (or with --backend gloo) the same run goes through gloo on the CPU.
#include <chrono>
#include <cstdio>

#include "cli/cli.h"
#include "cli/probe_collective_command.h"
#include "cli/watched_command.h"
#include "collective/collective_plan.h"
#include "collective/collective_step.h"
#include "detect/detect.h"
#include "report/report.h"
#include "rules/error_findings.h"
#include "rules/rule.h"
#include "watch/probe_display.h"
#include "watch/probe_runner.h"

namespace gs {
namespace {

struct collective_args {
  output_options out;
  detect_options detect;
  matrix_options matrix;
  std::string ops = "all";
  std::string backend = "auto";
  int nproc = 0;
  std::string min_size = "4K", max_size = "1G";
  double timeout_s = 60;
  std::string fault;  ///< hidden --selftest-fault
  bool chosen = false;
};

int run_collective(const collective_args& a) {
  std::string why;
  auto ops = parse_collective_ops(a.ops, &why);
  if (!ops) {
    std::fprintf(stderr, "gpustack: --ops: %s\n", why.c_str());
    return exit_usage;
  }
  auto lo = parse_byte_count(a.min_size, &why);
  if (!lo) {
    std::fprintf(stderr, "gpustack: --min-size: %s\n", why.c_str());
    return exit_usage;
  }
  auto hi = parse_byte_count(a.max_size, &why);
  if (!hi) {
    std::fprintf(stderr, "gpustack: --max-size: %s\n", why.c_str());
    return exit_usage;
  }
  if (*hi < *lo) {
    std::fprintf(stderr, "gpustack: --max-size (%s) is below --min-size (%s)\n", a.max_size.c_str(), a.min_size.c_str());
    return exit_usage;
  }
  collective_settings s;
  s.backend = a.backend;
  s.nproc = a.nproc;
  s.sizes = size_ladder(*lo, *hi);
  s.op_timeout_s = a.timeout_s;
  if (!a.fault.empty()) {
    auto f = parse_collective_fault(a.fault, &why);
    if (!f) {
      std::fprintf(stderr, "gpustack: --selftest-fault: %s\n", why.c_str());
      return exit_usage;
    }
    s.fault_json = *f;
  }

  const auto t0 = std::chrono::steady_clock::now();
  watched_start start = start_watched_command(a.detect);
  machine_facts& facts = start.facts;
  runner_options o;
  o.fresh_python = true;  // torchrun starts interpreters of its own: nothing for a warm worker to share
  // The launcher judges progress rank by rank (op_timeout_s, init_timeout_s) and names the
  // rank and the operation; these are the backstop if the launcher itself stops: its imports,
  // the ranks' start, and every size at its full timeout.
  o.limits.deadlines.seconds["import"] = 120;
  o.limits.deadlines.seconds["launch"] = s.init_timeout_s + 60;
  o.limits.deadlines.seconds["run"] = s.op_timeout_s * double(s.sizes.size() + 2) + 60;
  o.limits.deadlines.seconds["verify"] = 60;
  o.limits.deadlines.seconds["default"] = 120;
  o.limits.waiting_phases = {};  // ranks waiting in a collective burn no CPU: the launcher's watch decides
  o.device = "auto";
  o.facts = &facts;
  watch_sources sources;
  sources.attach(o, start);
  o.gpu_still_usable = [&o] { return gpu_still_answers(o); };
  install_interrupt_handler();

  std::deque<std::string> ids;
  std::vector<probe_spec> specs;
  for (const std::string& op : *ops) specs.push_back(collective_step_spec(op, ids));
  step_progress progress(specs.size());
  run_summary totals;
  std::vector<probe_result> results;
  bool interrupted = false;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (interrupted) {
      probe_result r = make_result(specs[i].id, status::skip, "not run: interrupted");
      progress.event(i, {runner_event::finished, i, specs.size(), &specs[i], "", 0, &r});
      results.push_back(std::move(r));
      continue;
    }
    runner_options step = o;
    step.probe_options = collective_step_options(s, (*ops)[i]);
    step.on_event = [&progress, i](const runner_event& e) { progress.event(i, e); };
    run_summary sum = run_probes({&specs[i]}, step);
    for (const std::string& n : sum.notes) facts.issues.push_back({"gpustack probe collective", n});
    totals.import_s += sum.import_s;
    totals.run_s += sum.run_s;
    if (totals.python_mode.empty()) totals.python_mode = sum.python_mode;
    interrupted = sum.interrupted;
    for (probe_result& r : sum.results) results.push_back(std::move(r));
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  say_run_timing(totals, wall_s);

  report_input in;
  in.facts = &facts;
  in.findings = run_findings(builtin_knowledge_base(), facts, results);
  in.probes = results;
  in.extra["run"] = run_timing_json(totals, wall_s);
  report_options ro;
  ro.include_identifiers = a.out.include_identifiers;
  ro.command = "probe collective";
  nlohmann::json report = build_report(in, ro);
  if (!emit_gpustack_report(a.out, report)) return exit_usage;
  return finish_watched_command(report, results, interrupted, a.matrix);
}

}  // namespace

std::function<std::optional<int>()> add_probe_collective_subcommand(CLI::App& probe) {
  auto a = std::make_shared<collective_args>();
  CLI::App* sub = probe.add_subcommand(
      "collective", "all_reduce, all_gather, reduce_scatter, broadcast through torchrun (one rank per GPU, or gloo on "
                    "the CPU): exact results, bus bandwidth, hangs named by rank; and the GPU peer-to-peer matrix");
  sub->add_option("--ops", a->ops, "operations: all_reduce, all_gather, reduce_scatter, broadcast, p2p (comma-separated) or all")
      ->capture_default_str();
  sub->add_option("--backend", a->backend, "auto (nccl/RCCL when torch sees GPUs, else gloo), nccl or gloo")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "nccl", "gloo"}));
  sub->add_option("--nproc", a->nproc, "ranks (default: one per GPU on nccl, 2 on gloo)")->check(CLI::Range(1, 1024));
  sub->add_option("--min-size", a->min_size, "smallest size (bytes, or with K, M, G)")->capture_default_str();
  sub->add_option("--max-size", a->max_size, "largest size; sizes go up 4x at a time")->capture_default_str();
  sub->add_option("--timeout", a->timeout_s, "seconds without progress of any rank before a collective is a hang")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0));
  add_python_options(*sub, a->detect, "the Python interpreter (with torch) that runs torchrun",
                     "the virtual environment whose Python runs torchrun");
  add_output_options(*sub, a->out);
  add_matrix_options(*sub, a->matrix);
  // Hidden: the tests make a rank hang before, or crash at, an operation (hang:RANK:OP, crash:RANK:OP).
  sub->add_option("--selftest-fault", a->fault, "")->group("");
  sub->callback([a] { a->chosen = true; });
  return [a]() -> std::optional<int> {
    if (!a->chosen) return std::nullopt;
    return run_collective(*a);
  };
}

}  // namespace gs
