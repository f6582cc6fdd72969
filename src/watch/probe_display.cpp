// Human-facing lines of a probe run (see probe_display.h).
#include "watch/probe_display.h"

#include "probes/probe_options.h"
#include "card/samples_line.h"
#include "watch/probe_runner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace gs {
namespace {

std::string counter(size_t index, size_t total) {
  int w = static_cast<int>(std::to_string(total).size());
  return fmt::format("[{:>{}}/{}]", index + 1, w, total);
}

std::string seconds(double s) { return s < 10 ? fmt::format("{:.1f} s", s) : fmt::format("{:.0f} s", s); }

}  // namespace

std::string progress_live_line(size_t index, size_t total, std::string_view id,
                               std::string_view phase, double elapsed_s) {
  return fmt::format("{} {} ... {} {}", counter(index, total), id, phase, seconds(elapsed_s));
}

std::string progress_final_line(size_t index, size_t total, const probe_result& r) {
  std::string line = fmt::format("{} {} ... {}", counter(index, total), r.id, to_string(r.outcome));
  if (r.outcome == status::hang || r.outcome == status::crash) line += " in " + r.phase;
  if (r.outcome != status::skip) line += " " + seconds(r.duration_ms / 1000.0);
  // The card while it ran (watch/card_sampler.h): clocks and power beside the step's figure.
  if (std::string card = card_samples_line(r.data); !card.empty()) line += " [" + card + "]";
  if (r.outcome != status::pass && !r.detail.empty()) {
    // One screen line: the full text is in the report.
    std::string d = r.detail.size() > 120 ? r.detail.substr(0, 117) + "..." : r.detail;
    line += ": " + d;
  }
  return line;
}

std::string format_probe_list(const std::vector<const probe_spec*>& table) {
  size_t wid = 2, wdep = 10;
  auto deps = [](const probe_spec* p) {
    std::string d;
    for (const char* x : p->depends_on) {
      if (!d.empty()) d += ',';
      d += x;
    }
    return d.empty() ? std::string("-") : d;
  };
  for (const probe_spec* p : table) {
    wid = std::max(wid, std::string_view(p->id).size());
    wdep = std::max(wdep, deps(p).size());
  }
  std::string out = fmt::format("{:<{}}  {:<8}  {:<3}  {:<{}}  {}\n", "ID", wid, "ISOLATED", "GPU",
                                "DEPENDS ON", wdep, "SUMMARY");
  bool any_selftest = false;
  for (const probe_spec* p : table) {
    any_selftest = any_selftest || std::string_view(p->id).starts_with("selftest.");
    out += fmt::format("{:<{}}  {:<8}  {:<3}  {:<{}}  {}\n", p->id, wid,
                       p->isolated ? "yes" : "no", p->uses_gpu ? "yes" : "no", deps(p), wdep,
                       p->summary);
  }
  if (table.empty()) out += "(no probes)\n";
  if (any_selftest) out += "\nselftest.* probes are not in the default suite; they run only when named.\n";
  std::string opts;
  for (const probe_option_spec& o : probe_option_table()) {
    if (std::none_of(table.begin(), table.end(), [&](const probe_spec* p) { return std::string_view(p->id) == o.probe; })) continue;
    std::string range = o.integer ? fmt::format("{}..{}", o.lo, o.hi) : "text";
    opts += fmt::format("  {:<{}}  {:<14}  {}\n", std::string(o.probe) + "." + o.key, wid + 16, range, o.help);
  }
  if (!opts.empty()) out += "\nOptions (--set PROBE.KEY=VALUE, or KEY=VALUE for every selected probe with that key):\n" + opts;
  return out;
}

step_progress::step_progress(size_t total) : tty_(::isatty(STDERR_FILENO) == 1), total_(total) {}

void step_progress::event(size_t index, const runner_event& e) {
  switch (e.kind) {
    case runner_event::started:
      phase_ = "start";
      [[fallthrough]];
    case runner_event::entered:
      if (e.kind == runner_event::entered) phase_ = e.phase;
      [[fallthrough]];
    case runner_event::tick:
      if (tty_) {
        std::fprintf(stderr, "\r\033[K%s", progress_live_line(index, total_, e.spec->id, phase_, e.elapsed_s).c_str());
        std::fflush(stderr);
      }
      break;
    case runner_event::finished: {
      if (tty_) std::fputs("\r\033[K", stderr);
      std::string line = progress_final_line(index, total_, *e.result);
      if (e.result->outcome == status::pass) line += ": " + e.result->detail.substr(0, 140);
      std::fprintf(stderr, "%s\n", line.c_str());
      break;
    }
  }
}

}  // namespace gs
