// Terminal and Markdown views of a report diff: the ranked suspects first (the answer to "what
// broke it"), then probe status changes, findings, versions, settings.
#include <fmt/format.h>

#include "core/text_scan.h"
#include "report/markdown_cell.h"
#include "report/report_diff.h"

namespace gs {
namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::string render_diff_human(const report_diff& d, bool color) {
  auto paint = [color](const std::string& s, const char* code) { return color ? "\x1b[" + std::string(code) + "m" + s + "\x1b[0m" : s; };
  std::string o;
  size_t newly = 0;
  for (const probe_change& p : d.probes) newly += p.newly_failing;
  if (!d.suspects.empty()) {
    o += paint("Suspects", "1") + fmt::format(" (changed components ranked against {} probe{} that started failing)\n", newly, newly == 1 ? "" : "s");
    int i = 0;
    for (const suspect& s : d.suspects)
      o += fmt::format("  {}. {} {} -> {}: {}\n", ++i, s.component, scan::or_none(s.before), scan::or_none(s.after), joined(s.explains));
  } else if (newly) {
    o += paint("Suspects", "1") + "  none of the changed components is a known dependency of the probes that started failing\n";
  }
  if (!d.probes.empty()) {
    o += paint("Probes", "1") + "\n";
    for (const probe_change& p : d.probes) {
      std::string line = fmt::format("  {:<28} {:>5} -> {:<5}", p.id, scan::or_none(p.before), scan::or_none(p.after));
      if (p.newly_failing) line = paint(line, "31");
      o += line + (p.detail.empty() ? "" : "  " + p.detail) + "\n";
    }
  }
  if (!d.findings_added.empty() || !d.findings_removed.empty()) {
    o += paint("Findings", "1") + "\n";
    for (const auto& [id, title] : d.findings_added) o += "  + " + id + "  " + title + "\n";
    for (const auto& [id, title] : d.findings_removed) o += "  - " + id + "  " + title + "\n";
  }
  for (const auto* group : {&d.versions, &d.settings}) {
    if (group->empty()) continue;
    o += paint(group == &d.versions ? "Versions" : "Settings", "1") + "\n";
    for (const value_change& c : *group) o += fmt::format("  {:<28} {} -> {}\n", c.name, scan::or_none(c.before), scan::or_none(c.after));
  }
  if (o.empty()) o = "no differences in versions, settings, findings or probe statuses\n";
  o += d.regressed() ? paint("Verdict", "1") + "  REGRESSED: a probe that passed now fails\n"
                     : paint("Verdict", "1") + "  no probe went from pass to failing\n";
  return o;
}

std::string render_diff_markdown(const report_diff& d) {
  std::string o = "## gpustack report diff\n\n";
  o += d.regressed() ? "**Regressed:** a probe that passed now fails.\n\n" : "No probe went from pass to failing.\n\n";
  if (!d.suspects.empty()) {
    o += "### Suspects\n\n| rank | component | before | after | explains |\n|---:|---|---|---|---|\n";
    int i = 0;
    for (const suspect& s : d.suspects)
      o += fmt::format("| {} | `{}` | {} | {} | {} |\n", ++i, md_cell(s.component), md_cell(scan::or_none(s.before)), md_cell(scan::or_none(s.after)), md_cell(joined(s.explains)));
    o += "\n";
  }
  if (!d.probes.empty()) {
    o += "### Probes\n\n| probe | before | after | detail |\n|---|---|---|---|\n";
    for (const probe_change& p : d.probes)
      o += "| `" + md_cell(p.id) + "` | " + md_cell(scan::or_none(p.before)) + " | " + (p.newly_failing ? "**" + md_cell(p.after) + "**" : md_cell(scan::or_none(p.after))) +
           " | " + md_cell(p.detail) + " |\n";
    o += "\n";
  }
  if (!d.findings_added.empty() || !d.findings_removed.empty()) {
    o += "### Findings\n\n";
    for (const auto& [id, title] : d.findings_added) o += "- added `" + md_cell(id) + "` " + md_cell(title) + "\n";
    for (const auto& [id, title] : d.findings_removed) o += "- removed `" + md_cell(id) + "` " + md_cell(title) + "\n";
    o += "\n";
  }
  for (const auto* group : {&d.versions, &d.settings}) {
    if (group->empty()) continue;
    o += std::string("### ") + (group == &d.versions ? "Versions" : "Settings") + "\n\n| name | before | after |\n|---|---|---|\n";
    for (const value_change& c : *group) o += "| `" + md_cell(c.name) + "` | " + md_cell(scan::or_none(c.before)) + " | " + md_cell(scan::or_none(c.after)) + " |\n";
    o += "\n";
  }
  return o;
}

}  // namespace gs
