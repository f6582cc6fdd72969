// Command table and the shared output plumbing.
#include "cli/cli.h"

#include "bisect/bisect_report.h"
#include "report/json_path.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/edit_distance.h"
#include "core/file_io.h"
#include "core/status.h"
#include "detect/detect.h"
#include "python/python_locate.h"
#include "report/report.h"
#include "sys/sysroot.h"

namespace gs {

static std::vector<command_spec> command_table() {
  return {
      check_command(),
      explain_command(),
      snapshot_command(),
      probe_command(),
      selftest_command(),
      estimate_command(),
      matrix_command(),
      report_command(),
      fix_command(),
      train_smoke_command(),
      inspect_command(),
      bisect_command(),
      mcp_command(),
  };
}

void add_output_options(CLI::App& sub, output_options& o) {
  sub.add_flag("--json", o.json, "print the report as JSON (schema_version 1)");
  sub.add_flag("--markdown", o.markdown, "print an issue-ready Markdown summary with the JSON attached");
  sub.add_option("-o,--output", o.out_file, "write the output to FILE instead of standard output");
  sub.add_flag("--include-identifiers", o.include_identifiers,
               "keep hostname, user name, paths and serials (secrets are always removed)");
  sub.add_flag("--no-color", o.no_color, "no colour in the terminal table");
}

void add_fresh_option(CLI::App& sub, bool& fresh) {
  sub.add_flag("--fresh", fresh,
               "run each Python step in a fresh interpreter of its own (slower: every step imports torch "
               "again) instead of the warm worker that imports once; for when isolation matters");
}

void add_python_options(CLI::App& sub, detect_options& d, const char* python_help, const char* venv_help) {
  CLI::Option* py = sub.add_option("--python", d.python, python_help);
  CLI::Option* venv = sub.add_option("--venv", d.venv, venv_help);
  py->excludes(venv);
  sub.parse_complete_callback([&sub, &d] {
    if (d.python.empty() && d.venv.empty()) return;
    std::string root;
    if (CLI::Option* s = sub.get_option_no_throw("--sysroot"); s && s->count() > 0) root = s->as<std::string>();
    if (!root.empty() && !std::filesystem::is_directory(root)) return;  // an archive: read once unpacked
    sysroot sys = root.empty() ? sysroot::live() : sysroot::captured(root);
    std::vector<detection_issue> issues;
    if (locate_python(sys, d, issues).found) return;
    std::string why = issues.empty() ? "cannot be used" : issues.back().message;
    std::string flag = d.python.empty() ? "--venv" : "--python";
    if (why.rfind(flag + ": ", 0) == 0) why = why.substr(flag.size() + 2);
    throw CLI::ValidationError(flag, (d.python.empty() ? d.venv : d.python) + ": " + why);
  });
}

CLI::Validator phase_timeout_check() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        char* end = nullptr;
        double s = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !(s >= 1 && s <= 86400))
          return "--timeout takes the seconds one phase may run, from 1 to 86400 (a day); got '" + v + "'";
        return {};
      },
      "SECONDS");
}

bool use_color(const output_options& o) {
  if (o.no_color || o.json || o.markdown || !o.out_file.empty()) return false;
  const char* nc = std::getenv("NO_COLOR");
  if (nc && *nc) return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

size_t output_width(const output_options& o) {
  if (!o.out_file.empty() && o.out_file != "-") return 0;
  if (::isatty(STDOUT_FILENO) != 1) return 0;
  if (const char* c = std::getenv("COLUMNS"); c && *c) {
    char* end = nullptr;
    long n = std::strtol(c, &end, 10);
    if (*end == '\0' && n >= 20 && n <= 10000) return size_t(n);
  }
  struct winsize ws {};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 80;
}

bool emit_report(const output_options& o, const std::string& json_text,
                 const std::string& markdown_text, const std::string& human_text) {
  const std::string& text = o.json ? json_text : o.markdown ? markdown_text : human_text;
  if (o.out_file.empty() || o.out_file == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return true;
  }
  std::string error;
  if (!write_file_atomically(o.out_file, text, error)) {
    std::fprintf(stderr, "gpustack: %s\n", error.c_str());
    return false;
  }
  // A file written with -o still leaves the human summary line on the terminal.
  std::fprintf(stderr, "gpustack: report written to %s\n", o.out_file.c_str());
  return true;
}

bool emit_gpustack_report(const output_options& o, const nlohmann::json& report) {
  // A bisection's report has its own shape (docs/bisect.md): its own renderers.
  if (json_text_at(report, {"tool", "command"}) == "bisect")
    return emit_report(o, report.dump(2) + "\n", o.markdown ? render_bisect_markdown(report) : "",
                       (o.json || o.markdown) ? "" : render_bisect_human(report, use_color(o)));
  return emit_report(o, report.dump(2) + "\n", o.markdown ? render_markdown(report) : "",
                     (o.json || o.markdown) ? "" : render_human(report, use_color(o), output_width(o)));
}

int run_cli(int argc, char** argv) {
  CLI::App app{"gpustack: will your GPU software stack fine-tune an LLM, and if not, why not"};
  app.set_version_flag("--version", std::string("gpustack ") + GPUSTACK_VERSION);
  app.require_subcommand(1);
  std::function<int()> action;
  std::vector<command_spec> table = command_table();
  for (command_spec& c : table) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    auto run = c.add(*sub);
    sub->callback([&action, run] { action = run; });
  }
  // "gpustack bogus" (even with --help after it) is a mistyped command, not a request for help.
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const command_spec& c : table) names.push_back(c.name);
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::vector<std::string> near = closest_names(argv[1], names);
      std::string hint;
      for (size_t i = 0; i < near.size(); ++i) hint += (i ? ", " : " (did you mean ") + near[i];
      std::fprintf(stderr, "gpustack: unknown command '%s'%s; `gpustack --help` lists them\n", argv[1],
                   near.empty() ? "" : (hint + "?)").c_str());
      return exit_usage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? exit_ok : exit_usage;
  }
  if (!action) return exit_usage;
  try {
    return action();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpustack: internal error: %s\n", e.what());
    return exit_usage;
  }
}

}  // namespace gs
