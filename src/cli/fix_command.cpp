// `gpustack fix ...`: changes gpustack makes to the user's environment on request, each one
// reversible by the same command. Today: `fix triton-stages`, a num_stages cap for every Triton
// launch in one Python (src/fix/triton_stages_fix.h, docs/fix.md). Exit 0 done (or nothing to
// do), 1 the change could not be made (permissions, a file gpustack did not write), 2 bad
// arguments or no Python found.
#include "cli/fix_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "core/status.h"
#include "detect/detect.h"
#include "fix/triton_stages_fix.h"
#include "python/python_locate.h"
#include "sys/subprocess_capture.h"
#include "sys/sysroot.h"

namespace gs {
namespace {

std::string where_flag(const stages_fix_args& a) {
  if (!a.python.empty()) return " --python " + a.python;
  if (!a.venv.empty()) return " --venv " + a.venv;
  return "";
}

/// Start the interpreter normally (site.py on, so the .pth runs) and ask the module what it
/// capped; "N False" = active at start-up, triton not imported (the hook is lazy).
std::string check_active(const std::string& interpreter) {
  captured_run r = run_captured(
      {interpreter, "-c",
       "import sys, gpustack_triton_stages as m; print(m.limit()[0], 'triton' in sys.modules)"},
      20.0, {{"GPUSTACK_TRITON_STAGES_CAP", ""}});
  std::string out = r.output;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  size_t nl = out.rfind('\n');
  return r.exit_code == 0 ? out.substr(nl == std::string::npos ? 0 : nl + 1) : "";
}

}  // namespace

int run_triton_stages_fix(const stages_fix_args& a, std::string& out, std::string& err) {
  if (a.remove == (a.max_stages > 0)) {
    err += "gpustack fix triton-stages: give either --max N (N >= 1) or --remove\n";
    return exit_usage;
  }
  if (!a.python.empty() && !a.venv.empty()) {
    err += "gpustack fix triton-stages: give --python or --venv, not both\n";
    return exit_usage;
  }
  detect_options opts;
  opts.python = a.python;
  opts.venv = a.venv;
  std::vector<detection_issue> issues;
  python_location loc = locate_python(sysroot::live(), opts, issues);
  if (!loc.found) {
    err += "gpustack fix triton-stages: no Python environment found";
    for (const detection_issue& i : issues) err += "; " + i.source + ": " + i.message;
    err += " (use --python PATH or --venv DIR)\n";
    return exit_usage;
  }
  std::string why;
  std::optional<python_site> site = python_site_of(loc.interpreter, &why);
  if (!site) {
    err += "gpustack fix triton-stages: " + why + "\n";
    return exit_usage;
  }
  const std::string undo = "gpustack fix triton-stages --remove" + where_flag(a);

  if (a.remove) {
    removal_plan p = plan_removal(site->purelib);
    for (const std::string& f : p.refused)
      err += fmt::format("gpustack fix triton-stages: {} was not written by gpustack (no \"{}\" first line); "
                         "left alone\n", f, kStagesMarker);
    if (p.remove.empty()) {
      out += fmt::format("No gpustack num_stages cap in {} ({}).\n", site->purelib, loc.interpreter);
      return p.refused.empty() ? exit_ok : exit_failed;
    }
    for (const std::string& f : p.remove) out += fmt::format("  {} {}\n", a.dry_run ? "would remove" : "removed", f);
    if (a.dry_run) return p.refused.empty() ? exit_ok : exit_failed;
    if (!remove_files(p, &why)) {
      err += "gpustack fix triton-stages: " + why + "\n";
      return exit_failed;
    }
    out += fmt::format("Triton's num_stages are no longer capped in {} (Python {}).\n", loc.interpreter,
                       site->version);
    return p.refused.empty() ? exit_ok : exit_failed;
  }

  if (!site->on_sys_path) {
    err += fmt::format("gpustack fix triton-stages: {}'s purelib {} is not one of its site directories, so a "
                       ".pth file there would never run\n", loc.interpreter, site->purelib);
    return exit_failed;
  }
  std::vector<fix_file> files = triton_stages_files(site->purelib, a.max_stages);
  out += fmt::format("{} Triton's num_stages at {} in {} (Python {}, {}):\n",
                     a.dry_run ? "Would cap" : "Capping", a.max_stages, loc.interpreter, site->version, loc.how_found);
  if (a.dry_run) {
    for (const fix_file& f : files) {
      file_state st = managed_state(f.path);
      out += fmt::format("--- {} ({}, {} bytes)\n", f.path,
                         !st.exists ? "new" : st.ours ? "replaces gpustack's" : "EXISTS, NOT gpustack's: refused",
                         f.content.size());
      if (f.path.size() >= 4 && f.path.compare(f.path.size() - 4, 4, ".pth") == 0) out += f.content;
    }
    out += "(the module is probes/python/gpustack_triton_stages.py from gpustack's assets)\n";
    return exit_ok;
  }
  if (!write_fix_files(files, &why)) {
    err += "gpustack fix triton-stages: " + why + "\n";
    return exit_failed;
  }
  for (const fix_file& f : files) out += "  wrote " + f.path + "\n";
  std::string check = check_active(loc.interpreter);
  std::string expect = std::to_string(a.max_stages) + " False";
  if (check == expect)
    out += "Checked: a fresh interpreter starts with the cap in force and Triton not yet imported.\n";
  else
    out += fmt::format("Warning: a fresh interpreter did not report the cap (got \"{}\"); is site disabled "
                       "(python -S) in your launcher?\n", check);
  out += fmt::format("Every Triton kernel this Python launches now compiles with num_stages <= {} "
                     "(flash-linear-attention, SageAttention, your own). It survives reinstalling triton.\n"
                     "Off for one run: GPUSTACK_TRITON_STAGES_CAP=off. Remove: {}\n", a.max_stages, undo);
  return exit_ok;
}

command_spec fix_command() {
  return {"fix", "make (and undo) a change to your environment that works around a known problem",
          [](CLI::App& sub) -> std::function<int()> {
            sub.require_subcommand(1);
            auto a = std::make_shared<stages_fix_args>();
            CLI::App* ts = sub.add_subcommand(
                "triton-stages",
                "cap num_stages of every Triton launch in one Python (Triton 3.6.0's AMD pipeliner bug)");
            ts->add_option("--max", a->max_stages,
                           "the highest num_stages any Triton kernel may compile with (1 = no software pipelining)")
                ->check(CLI::Range(1, 16));
            ts->add_flag("--remove", a->remove, "remove a cap written earlier (only files gpustack wrote)");
            ts->add_option("--python", a->python, "the Python interpreter whose site-packages get the cap");
            ts->add_option("--venv", a->venv, "the virtual environment whose site-packages get the cap");
            ts->add_flag("--dry-run", a->dry_run, "say what would be written or removed, change nothing");
            return [a] {
              std::string out, err;
              int rc = run_triton_stages_fix(*a, out, err);
              std::fwrite(out.data(), 1, out.size(), stdout);
              std::fwrite(err.data(), 1, err.size(), stderr);
              return rc;
            };
          }};
}

}  // namespace gs
