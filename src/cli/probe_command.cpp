// `gpustack probe [IDS...]`: detect the machine, run the probes (each isolated one in its own
// watched child, docs/watchdog.md), and report. With no ids, the default suite (every probe
// not named selftest.*); named probes bring their dependencies along. Exit 3 when any hung.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "cli/cli.h"
#include "cli/watched_command.h"
#include "probes/probe_options.h"
#include "cli/probe_collective_command.h"
#include "cli/probe_fla_command.h"
#include "detect/detect.h"
#include "matrix/matrix_record.h"
#include "report/report.h"
#include "rules/error_findings.h"
#include "runtime/runtime.h"
#include "watch/probe_display.h"
#include "watch/probe_runner.h"

namespace gs {
namespace {

struct probe_args {
  output_options out;
  std::vector<std::string> ids;
  bool list = false;
  double timeout_s = 0;  ///< 0: the per-phase defaults
  std::string device = "auto";
  std::vector<std::string> sets;
  bool fresh = false;     ///< --fresh: every Python step in its own interpreter
  detect_options detect;  ///< --python / --venv: the interpreter the py.* probes run
  matrix_options matrix;  ///< --matrix FILE / --no-matrix
};

/// Live progress on stderr (stdout carries the report): redrawn in place on a terminal, one
/// plain line per finished probe otherwise.
class progress_display {
 public:
  progress_display() : tty_(::isatty(STDERR_FILENO) == 1) {}
  void on_event(const runner_event& e) {
    using clock = std::chrono::steady_clock;
    switch (e.kind) {
      case runner_event::started:
        start_ = clock::now();
        phase_ = "start";
        draw(e);
        break;
      case runner_event::entered:
        phase_ = e.phase;
        draw(e);
        break;
      case runner_event::tick:
        if (clock::now() - last_draw_ > std::chrono::milliseconds(200)) draw(e);
        break;
      case runner_event::finished:
        if (tty_) std::fputs("\r\033[K", stderr);
        std::fprintf(stderr, "%s\n", progress_final_line(e.index, e.total, *e.result).c_str());
        break;
    }
  }

 private:
  void draw(const runner_event& e) {
    if (!tty_) return;
    last_draw_ = std::chrono::steady_clock::now();
    double t = std::chrono::duration<double>(last_draw_ - start_).count();
    std::fprintf(stderr, "\r\033[K%s", progress_live_line(e.index, e.total, e.spec->id, phase_, t).c_str());
    std::fflush(stderr);
  }
  bool tty_;
  std::string phase_;
  std::chrono::steady_clock::time_point start_{}, last_draw_{};
};

bool report_unknown(const std::vector<std::string>& unknown) {
  for (const std::string& id : unknown) {
    std::string msg = "gpustack: unknown probe '" + id + "'";
    std::vector<std::string> near = close_matches(all_probes(), id);
    for (size_t i = 0; i < near.size(); ++i) msg += (i == 0 ? " (did you mean " : ", ") + near[i];
    if (!near.empty()) msg += "?)";
    std::fprintf(stderr, "%s; `gpustack probe --list` shows them all\n", msg.c_str());
  }
  return unknown.empty();
}

int run_probe_command(const probe_args& a) {
  const std::vector<const probe_spec*>& table = all_probes();
  if (a.list) {
    std::fputs(format_probe_list(table).c_str(), stdout);
    return exit_ok;
  }
  std::vector<std::string> unknown;
  std::vector<const probe_spec*> run =
      a.ids.empty() ? default_suite(table) : select_probes(table, a.ids, &unknown);
  if (!report_unknown(unknown)) return exit_usage;
  std::vector<std::string> run_ids;
  for (const probe_spec* p : run) run_ids.push_back(p->id);
  std::string set_error;
  std::map<std::string, std::string> settings = resolve_probe_settings(a.sets, run_ids, set_error);
  if (!set_error.empty()) {
    std::fprintf(stderr, "gpustack: %s\n", set_error.c_str());
    return exit_usage;
  }

  const auto t0 = std::chrono::steady_clock::now();
  watched_start start = start_watched_command(a.detect);
  machine_facts& facts = start.facts;

  runner_options o;
  o.fresh_python = a.fresh;
  if (a.timeout_s > 0) o.limits.deadlines.override_all(a.timeout_s);
  o.device = a.device;
  o.probe_options = settings;
  o.facts = &facts;
  watch_sources sources;
  sources.attach(o, start);
  o.gpu_still_usable = [&o] { return gpu_still_answers(o); };
  progress_display display;
  o.on_event = [&display](const runner_event& e) { display.on_event(e); };
  install_interrupt_handler();
  run_summary s = run_probes(run, o);
  for (const std::string& n : s.notes) facts.issues.push_back({"gpustack probe", n});
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  say_run_timing(s, wall_s);

  report_input in;
  in.facts = &facts;
  in.findings = run_findings(builtin_knowledge_base(), facts, s.results);
  in.probes = s.results;
  in.extra["run"] = run_timing_json(s, wall_s);
  report_options ro;
  ro.include_identifiers = a.out.include_identifiers;
  ro.command = "probe";
  nlohmann::json report = build_report(in, ro);
  if (!emit_gpustack_report(a.out, report)) return exit_usage;
  return finish_watched_command(report, s.results, s.interrupted, a.matrix);
}

}  // namespace

command_spec probe_command() {
  return {"probe", "run probes, each risky one in a watched child process (hang-safe)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<probe_args>();
            sub.add_option("ids", a->ids, "probe ids to run (default: every probe but selftest.*)");
            sub.add_flag("--list", a->list, "list the probes, their flags and dependencies");
            sub.add_option("--timeout", a->timeout_s,
                           "seconds any one phase may take (default per phase: compile 120, "
                           "load 30, launch 30, sync 30, verify 60)")
                ->check(phase_timeout_check());
            sub.add_option("--device", a->device,
                           "where kernels run: cpu, auto, a GPU ordinal N, cuda:N or hip:N")
                ->check([](const std::string& v) -> std::string {
                  if (parse_device(v).valid) return {};
                  return "must be cpu, auto, N, cuda:N or hip:N";
                });
            sub.add_option("--set", a->sets,
                           "a probe option, PROBE.KEY=VALUE or KEY=VALUE for every selected probe with that key "
                           "(repeatable; --list shows them)");
            add_fresh_option(sub, a->fresh);
            add_python_options(sub, a->detect, "the Python interpreter the py.* probes run",
                               "the virtual environment whose Python the py.* probes run");
            add_output_options(sub, a->out);
            add_matrix_options(sub, a->matrix);
            auto fla = add_probe_fla_subcommand(sub);  // `gpustack probe fla` (probe_fla_command.cpp)
            auto collective = add_probe_collective_subcommand(sub);  // probe_collective_command.cpp
            return [a, fla, collective] {
              if (std::optional<int> rc = fla()) return *rc;
              if (std::optional<int> rc = collective()) return *rc;
              return run_probe_command(*a);
            };
          }};
}

}  // namespace gs
