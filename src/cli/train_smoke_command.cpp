// `gpustack train-smoke --model NAME`: will my QLoRA training run? Builds the registry model
// (shrunk with --layers/--width-scale, or a local checkpoint with --weights) in the user's Python,
// quantizes it to NF4, attaches LoRA and runs a few optimizer steps, all in a watched child; the
// report has one probe entry `train_smoke.<model>` with the losses, step times, peak GPU and host
// memory, the linear-attention path, and the estimator's prediction beside the measured peak.
// docs/train-smoke.md. Exit codes as GUIDE: 0 pass/skip, 1 fail, 2 bad arguments, 3 hang.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cli/cli.h"
#include "cli/watched_command.h"
#include "detect/detect.h"
#include "matrix/matrix_record.h"
#include "report/report.h"
#include "rules/error_findings.h"
#include "train/train_plan.h"
#include "train/train_smoke.h"
#include "watch/probe_runner.h"

namespace gs {
namespace {

/// --model, --layers, --width-scale, --seq, --batch, --steps, --no-grad-ckpt, --weights,
/// --timeout, --lr, each with help text and range checks (train_smoke_cli is what they fill).
void add_train_smoke_options(CLI::App& sub, train_smoke_cli& o) {
  sub.add_option("--model", o.model, "registry model to train (`gpustack estimate --list-models` shows them)")->required();
  sub.add_option("--layers", o.layers,
                 "shrink to N decoder layers, a multiple of the layer pattern (4 for Qwen3.5, 6 for Gemma)")
      ->check([](const std::string& v) -> std::string {
        try {
          if (std::stoi(v) > 0) return {};
        } catch (const std::exception&) {
        }
        return "must be a positive number of layers (a multiple of the model's layer pattern), got " + v;
      });
  sub.add_option("--width-scale", o.width_scale,
                 "scale hidden/intermediate sizes and head counts by F in (0, 1]; head dims and vocab stay real")
      ->check(CLI::Range(1e-6, 1.0));
  sub.add_option("--seq", o.seq, "tokens per sequence (default 512)")->check(CLI::Range(8, 1 << 20));
  sub.add_option("--batch", o.batch, "sequences per step (default 1)")->check(CLI::Range(1, 4096));
  sub.add_option("--steps", o.steps, "optimizer steps (default 5; the loss must fall from the first to the last)")
      ->check(CLI::Range(1, 1000));
  sub.add_flag("--no-grad-ckpt", o.no_grad_ckpt, "turn gradient checkpointing off (it is on by default)");
  sub.add_option("--weights", o.weights,
                 "a local checkpoint directory (config.json + *.safetensors) instead of random weights");
  sub.add_option("--timeout", o.timeout_s, "seconds any one phase may take (default per phase: docs/train-smoke.md)")
      ->check(phase_timeout_check());
  sub.add_option("--lr", o.lr, "AdamW learning rate (default 1e-3)")->check(CLI::Range(1e-9, 10.0));
}

struct cli_args {
  train_smoke_cli opts;
  output_options out;
  matrix_options matrix;
  detect_options detect;
};

/// One line on stderr, redrawn in place on a terminal; one line per phase otherwise (a CI log).
class live_line {
 public:
  live_line() : tty_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}
  void phase(std::string_view p) {
    progress_.take_phase(p);
    if (tty_) return draw();
    std::fprintf(stderr, "%s\n", progress_.line(elapsed()).c_str());
  }
  void tick() {
    auto now = std::chrono::steady_clock::now();
    if (tty_ && now - last_ > std::chrono::milliseconds(200)) draw();
  }
  void done() {
    if (tty_) std::fputs("\r\033[K", stderr);
  }

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  void draw() {
    last_ = std::chrono::steady_clock::now();
    std::fprintf(stderr, "\r\033[K%s", progress_.line(elapsed()).c_str());
    std::fflush(stderr);
  }
  bool tty_;
  train_progress progress_;
  std::chrono::steady_clock::time_point start_, last_{};
};

int run(const cli_args& a) {
  std::string error;
  std::optional<train_smoke_plan> plan = plan_train_smoke(a.opts, &error);
  if (!plan) {
    std::fprintf(stderr, "gpustack: %s\n", error.c_str());
    return exit_usage;
  }
  for (const std::string& note : plan->notes) std::fprintf(stderr, "gpustack: %s\n", note.c_str());

  const auto t0 = std::chrono::steady_clock::now();
  watched_start start = start_watched_command(a.detect);
  machine_facts& facts = start.facts;
  std::unique_ptr<cpu_time_source> cpu = proc_cpu_time_source();
  run_summary timing;
  live_line line;
  install_interrupt_handler();
  probe_result r = run_train_smoke(
      plan->request, facts, cpu.get(), [&line](std::string_view p) { line.phase(p); },
      [&line](double) { line.tick(); }, &timing);
  line.done();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  say_run_timing(timing, wall_s);
  finish_train_smoke_result(r, plan->request, plan->estimate);
  r.data["model"] = plan->model_json;
  if (plan->quant_check) r.data["quant_config_check"] = *plan->quant_check;
  bool interrupted = interrupt_requested();
  if (interrupted) mark_interrupted(r);

  report_input in;
  in.facts = &facts;
  in.probes = {r};
  in.findings = run_findings(builtin_knowledge_base(), facts, in.probes);
  in.extra["run"] = run_timing_json(timing, wall_s);
  report_options ro;
  ro.include_identifiers = a.out.include_identifiers;
  ro.command = "train-smoke";
  nlohmann::json report = build_report(in, ro);
  if (!emit_gpustack_report(a.out, report)) return exit_usage;
  return finish_watched_command(report, in.probes, interrupted, a.matrix);
}

}  // namespace

command_spec train_smoke_command() {
  return {"train-smoke", "run a mini QLoRA training step of a model in your Python stack (hang-safe)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<cli_args>();
            add_train_smoke_options(sub, a->opts);
            add_fresh_option(sub, a->opts.fresh);
            add_python_options(sub, a->detect, "the Python interpreter to train in",
                               "the virtual environment whose Python to train in");
            add_output_options(sub, a->out);
            add_matrix_options(sub, a->matrix);
            return [a] { return run(*a); };
          }};
}

}  // namespace gs
