// The command line: a table of subcommands (check, snapshot, probe, ...), each in its own file
// under src/cli/, registered in cli.cpp.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json_fwd.hpp>
#include <functional>
#include <string>

namespace gs {

/// A subcommand: `add` declares its options on `sub` and returns the action to run when chosen.
/// The action returns the process exit code (core/status.h exit_code).
struct command_spec {
  const char* name;
  const char* summary;
  std::function<std::function<int()>(CLI::App& sub)> add;
};

/// Options every output-producing command shares.
struct output_options {
  bool json = false;
  bool markdown = false;
  std::string out_file;
  bool include_identifiers = false;
  bool no_color = false;
};
void add_output_options(CLI::App& sub, output_options& o);
/// --python and --venv, the same on every command that reads or runs a Python environment. What
/// the user names must be usable: a missing file, a directory that is no environment, or a file
/// that is no interpreter is a usage error (exit 2, with the reason) when the command line is
/// parsed, read under the command's --sysroot where it has one.
/// `--fresh`, the same on every command that runs Python steps: each in a fresh interpreter
/// instead of the run's warm worker (docs/watchdog.md "Warm workers").
void add_fresh_option(CLI::App& sub, bool& fresh);
void add_python_options(CLI::App& sub, struct detect_options& d, const char* python_help, const char* venv_help);
/// Print (or write to -o) a rendered report; returns false (and says why) when the file cannot be written.
bool emit_report(const struct output_options& o, const std::string& json_text,
                 const std::string& markdown_text, const std::string& human_text);
/// emit_report for a gpustack report (build_report's JSON): rendered as JSON, Markdown or the
/// terminal view, whichever the output options chose (only that one is rendered).
bool emit_gpustack_report(const struct output_options& o, const nlohmann::json& report);
/// --timeout on every command that runs watched phases: whole seconds of one phase, 1 to 86400
/// (a day), said in those words (CLI11's PositiveNumber printed a 309-digit range for 0).
CLI::Validator phase_timeout_check();

/// Colour on a terminal unless NO_COLOR is set or --no-color.
bool use_color(const output_options& o);
/// Columns to wrap the terminal view at: $COLUMNS, else the terminal's own width, else 80; 0
/// (whole lines) when the output is a pipe or a file, so nothing a user copies is cut.
size_t output_width(const output_options& o);

command_spec check_command();
command_spec snapshot_command();
command_spec probe_command();
command_spec selftest_command();
command_spec estimate_command();
command_spec matrix_command();
command_spec report_command();
command_spec fix_command();
command_spec train_smoke_command();
command_spec inspect_command();
command_spec explain_command();
command_spec bisect_command();
command_spec mcp_command();

int run_cli(int argc, char** argv);

}  // namespace gs
