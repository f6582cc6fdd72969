// `gpustack report show FILE` and `gpustack report diff A B` (docs/matrix.md).
// Exit codes: show 0, or 2 for an unreadable file. diff: 0 no probe regressed, 1 a probe went
// from pass/warn to fail/hang/crash/error (usable in CI: "did the upgrade break anything?"),
// 2 unreadable input.
#include <cstdio>

#include "cli/cli.h"
#include "core/status.h"
#include "report/report.h"
#include "report/report_diff.h"
#include "report/report_file.h"

namespace gs {
namespace {

struct report_args {
  output_options out;
  std::string file;
  std::string a, b;
};

int run_show(const report_args& a) {
  nlohmann::json r;
  std::string why;
  if (!read_report_file(a.file, r, why)) {
    std::fprintf(stderr, "gpustack: %s\n", why.c_str());
    return exit_usage;
  }
  return emit_gpustack_report(a.out, r) ? exit_ok : exit_usage;
}

int run_diff(const report_args& a) {
  nlohmann::json ra, rb;
  std::string why;
  for (auto [path, r] : {std::pair{&a.a, &ra}, std::pair{&a.b, &rb}})
    if (!read_report_file(*path, *r, why)) {
      std::fprintf(stderr, "gpustack: %s\n", why.c_str());
      return exit_usage;
    }
  report_diff d = diff_reports(ra, rb);
  bool ok = emit_report(a.out, diff_json(d).dump(2) + "\n", a.out.markdown ? render_diff_markdown(d) : "",
                        (a.out.json || a.out.markdown) ? "" : render_diff_human(d, use_color(a.out)));
  if (!ok) return exit_usage;
  return d.regressed() ? exit_failed : exit_ok;
}

/// The output flags report show/diff take (no --include-identifiers: a saved report is already redacted).
void add_view_options(CLI::App& sub, output_options& o) {
  sub.add_flag("--json", o.json, "print JSON");
  sub.add_flag("--markdown", o.markdown, "print Markdown for an issue");
  sub.add_option("-o,--output", o.out_file, "write the output to FILE instead of standard output");
  sub.add_flag("--no-color", o.no_color, "no colour in the terminal view");
}

}  // namespace

command_spec report_command() {
  return {"report", "work with saved reports: render one, or diff two (what changed, and the likely culprit)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<report_args>();
            auto which = std::make_shared<std::function<int()>>();
            sub.require_subcommand(1);
            CLI::App* show = sub.add_subcommand("show", "render a saved report (JSON, or a Markdown report with its JSON block)");
            show->add_option("file", a->file, "the report file (- for standard input)")->required();
            add_view_options(*show, a->out);
            show->callback([a, which] { *which = [a] { return run_show(*a); }; });
            CLI::App* diff = sub.add_subcommand(
                "diff", "what changed from report A to report B: versions, settings, findings, probe statuses, ranked suspects; "
                        "exits 1 when a probe went from pass/warn to fail/hang/crash/error");
            diff->add_option("a", a->a, "the earlier report (the one that worked)")->required();
            diff->add_option("b", a->b, "the later report")->required();
            add_view_options(*diff, a->out);
            diff->callback([a, which] { *which = [a] { return run_diff(*a); }; });
            return [which] { return *which ? (*which)() : int(exit_usage); };
          }};
}

}  // namespace gs
