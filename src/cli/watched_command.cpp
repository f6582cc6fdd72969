#include "cli/watched_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "card/card_record.h"
#include "card/card_source.h"
#include "core/status.h"
#include "probes/probe.h"
#include "report/report.h"
#include <nlohmann/json.hpp>
#include "sys/sysroot.h"

namespace gs {

watched_start start_watched_command(const detect_options& detect) {
  sysroot sys = sysroot::live();
  watched_start w{breadcrumb_file(breadcrumb_file::default_dir(sys.environment())), {}};
  std::optional<std::string> stale = take_stale_breadcrumb(w.crumbs, current_boot_id());
  if (stale) std::fprintf(stderr, "gpustack: %s\n", stale->c_str());
  w.facts = detect_machine(sys, detect);
  detect_card_state(sys, w.facts);  // the card's state before the steps (clocks, power, memory held)
  if (stale) w.facts.issues.push_back({w.crumbs.path(), *stale});
  return w;
}

void watch_sources::attach(runner_options& o, const watched_start& start) const {
  o.cpu = cpu.get();
  o.kernel_log = klog.get();
  o.breadcrumb = &start.crumbs;
  std::string why;  // no card to watch (cpu, no GPU, no NVML): the steps run without data.card
  if (!card) card = open_card_source(sysroot::live(), start.facts, o.device, &why);
  o.card = card.get();
}

bool gpu_still_answers(const runner_options& o) {
  const probe_spec* visible = find_probe("device.visible");
  if (!visible) return true;  // nothing to ask with: assume usable
  runner_options q = o;
  q.limits.deadlines.override_all(20);
  q.gpu_still_usable = nullptr;
  probe_result r = run_probe(*visible, q);
  return r.outcome == status::pass || r.outcome == status::warn;
}

nlohmann::json run_timing_json(const run_summary& s, double wall_s) {
  auto r2 = [](double v) { return std::round(v * 100) / 100; };
  nlohmann::json j = {{"wall_s", r2(wall_s)}, {"import_s", r2(s.import_s)}, {"run_s", r2(s.run_s)}};
  if (!s.python_mode.empty()) {
    j["python_steps"] = s.python_mode;
    j["preload_overlapped_s"] = r2(s.preload_overlapped_s);
  }
  return j;
}

void say_run_timing(const run_summary& s, double wall_s) {
  if (s.python_mode.empty()) return;
  std::fprintf(stderr, "gpustack: %s\n", run_timing_text(run_timing_json(s, wall_s)).c_str());
}

int watched_exit_code(const nlohmann::json& report, const std::vector<probe_result>& results) {
  int from_steps = exit_ok;
  for (const probe_result& r : results)
    from_steps = std::max(from_steps, r.outcome == status::hang ? int(exit_hang)
                                      : is_failure(r.outcome)   ? int(exit_failed)
                                                                : int(exit_ok));
  return std::max(exit_code_for(report), from_steps);
}

int finish_watched_command(const nlohmann::json& report, const std::vector<probe_result>& results,
                           bool interrupted, const matrix_options& m) {
  if (interrupted) return 130;
  record_report_in_matrix(report, m);
  return watched_exit_code(report, results);
}

}  // namespace gs
