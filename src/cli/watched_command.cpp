#include "cli/watched_command.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "core/status.h"
#include "report/report.h"
#include "sys/sysroot.h"

namespace gs {

watched_start start_watched_command(const detect_options& detect) {
  sysroot sys = sysroot::live();
  watched_start w{breadcrumb_file(breadcrumb_file::default_dir(sys.environment())), {}};
  std::optional<std::string> stale = take_stale_breadcrumb(w.crumbs, current_boot_id());
  if (stale) std::fprintf(stderr, "gpustack: %s\n", stale->c_str());
  w.facts = detect_machine(sys, detect);
  if (stale) w.facts.issues.push_back({w.crumbs.path(), *stale});
  return w;
}

int watched_exit_code(const nlohmann::json& report, const std::vector<probe_result>& results) {
  int from_steps = exit_ok;
  for (const probe_result& r : results)
    from_steps = std::max(from_steps, r.outcome == status::hang ? int(exit_hang)
                                      : is_failure(r.outcome)   ? int(exit_failed)
                                                                : int(exit_ok));
  return std::max(exit_code_for(report), from_steps);
}

}  // namespace gs
