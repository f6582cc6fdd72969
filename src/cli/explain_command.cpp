// gpustack explain [FILE...|-]: diagnose pasted text (docs/explain.md).
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/cli.h"
#include "core/status.h"
#include "explain/explain_report.h"
#include "report/report.h"
#include "rules/error_findings.h"

namespace gs {
namespace {

struct explain_args {
  std::vector<std::string> files;
  std::vector<std::string> rule_files;
  output_options out;
};

bool read_input(const std::string& path, std::string& out) {
  if (path == "-") {
    if (::isatty(STDIN_FILENO) == 1)
      std::fprintf(stderr, "gpustack explain: paste the text, then press Ctrl-D on an empty line\n");
    std::stringstream ss;
    ss << std::cin.rdbuf();
    out += ss.str();
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "gpustack: cannot read %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  out += ss.str();
  if (!out.empty() && out.back() != '\n') out += '\n';
  return true;
}

int run_explain(const explain_args& a) {
  knowledge_base kb;
  if (!load_knowledge_base(a.rule_files, kb)) return exit_usage;
  std::string text;
  std::vector<std::string> files = a.files.empty() ? std::vector<std::string>{"-"} : a.files;
  for (const std::string& f : files)
    if (!read_input(f, text)) return exit_usage;
  if (text.size() > kMaxPasteBytes)
    std::fprintf(stderr, "gpustack explain: read the first %zu MiB of %zu MiB\n", kMaxPasteBytes >> 20, text.size() >> 20);
  explain_result r = explain_text(text, kb);
  nlohmann::json report = explain_report(r, a.out.include_identifiers);
  std::string human = (a.out.json || a.out.markdown) ? "" : render_explain_human(report, use_color(a.out), output_width(a.out));
  if (!emit_report(a.out, report.dump(2) + "\n", a.out.markdown ? render_explain_markdown(report) : "", human))
    return exit_usage;
  return exit_code_for(report);
}

}  // namespace

command_spec explain_command() {
  return {"explain", "diagnose pasted text: tracebacks, logs, collect_env, pip list, rocminfo, nvidia-smi, env, dmesg, issues",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<explain_args>();
            sub.add_option("files", a->files,
                           "files to read ('-' or none: standard input); any mix of error text, logs, tool outputs, "
                           "an issue body or a gpustack JSON report");
            sub.add_option("--rules", a->rule_files, "extra knowledge-base TOML file (repeat for more)")->allow_extra_args(false);
            add_output_options(sub, a->out);
            sub.footer(
                "Examples:\n"
                "  python train.py 2>&1 | tail -50 | gpustack explain\n"
                "  gpustack explain error.log collect_env.txt\n"
                "  gpustack explain --markdown issue.md -o answer.md\n"
                "Exit codes: 0 nothing failing found, 1 a finding is fail, 2 bad arguments or unreadable input.");
            return [a] { return run_explain(*a); };
          }};
}

}  // namespace gs
