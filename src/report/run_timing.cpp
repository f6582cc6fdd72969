// run_timing_text (report.h): one sentence from the report's `run` block
// (docs/report-format.md), so every view words the run's time the same way.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace gs {

std::string run_timing_text(const nlohmann::json& run) {
  if (!run.is_object() || !run.contains("wall_s")) return {};
  auto num = [&run](const char* k) { return run.contains(k) && run[k].is_number() ? run[k].get<double>() : 0.0; };
  std::string s = fmt::format("{:.1f} s in all; the steps spent {:.1f} s starting and importing, {:.1f} s running",
                              num("wall_s"), num("import_s"), num("run_s"));
  const std::string mode = run.value("python_steps", "");
  if (mode == "warm")
    s += fmt::format(" (Python steps in a warm worker, whose {:.1f} s of imports ran beside the steps before them; "
                     "--fresh gives each its own interpreter)", num("preload_overlapped_s"));
  else if (mode == "fresh")
    s += " (Python steps each in a fresh interpreter: --fresh)";
  return s;
}

}  // namespace gs
