// `gpustack bisect PACKAGE --good V1 --bad V2 [options] -- PROBE-ARGS | --run CMD`: which release
// of PACKAGE broke (or, with --good newer than --bad, fixed) a probe; src/bisect/bisect.h does the
// work, docs/bisect.md is the user's page. Exit 0 an answer, 1 none (an end is not what it should
// be, untestable releases hide it, the run stopped early), 2 bad arguments or no listing, 130
// interrupted (run it again to resume).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "bisect/bisect.h"
#include "bisect/bisect_report.h"
#include "cli/cli.h"
#include "core/status.h"
#include "detect/detect.h"
#include "fla/fla_options.h"
#include "matrix/matrix_record.h"
#include "python/python_locate.h"
#include "sys/sysroot.h"
#include "watch/breadcrumb.h"

namespace gs {
namespace {

struct bisect_args {
  bisect_request req;
  detect_options detect;
  output_options out;
  matrix_options matrix;
  bool compile_only = false;
  bool no_uv = false;
};

int run_bisect(bisect_args& a) {
  bisect_request& r = a.req;
  auto usage = [](const std::string& why) {
    std::fprintf(stderr, "gpustack bisect: %s\n", why.c_str());
    return int(exit_usage);
  };
  if (a.compile_only != !r.compile_target.empty())
    return usage(a.compile_only ? "--compile-only needs --target ARCH (for example gfx1201)"
                                : "--target goes with --compile-only");
  if (!r.compile_target.empty())
    if (std::string bad = check_compile_target(r.compile_target); !bad.empty()) return usage("--target: " + bad);
  if (!r.run_command.empty() && !r.probe_args.empty())
    return usage("give either --run CMD or a probe after --, not both");
  if (!r.run_command.empty() && a.compile_only) return usage("--compile-only applies to the probe, not to --run");
  if (!r.run_command.empty() && !r.match.empty()) return usage("--match reads a probe's report, not --run's exit code");
  if (!r.find_links.empty() && !r.index_url.empty()) return usage("--find-links is offline: leave out --index-url");
  if (!r.find_links.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(r.find_links, ec)) return usage("--find-links: " + r.find_links + " is no directory");
    r.find_links = std::filesystem::absolute(r.find_links).string();
  }
  std::vector<detection_issue> issues;
  python_location loc = locate_python(sysroot::live(), a.detect, issues);
  if (!loc.found) {
    std::string why = "no Python environment found";
    for (const detection_issue& i : issues) why += "; " + i.message;
    return usage(why + " (use --python PATH or --venv DIR)");
  }
  r.python = loc.interpreter;
  r.allow_uv = !a.no_uv;
  r.state_dir = breadcrumb_file::default_dir(sysroot::live().environment());
  if (r.state_dir.empty()) return usage("no state directory: set GPUSTACK_STATE_DIR, XDG_STATE_HOME or HOME");
  std::error_code ec;
  r.self_exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return usage("cannot find this gpustack's own path (/proc/self/exe): " + ec.message());
  if (a.matrix.disabled) r.matrix_args = {"--no-matrix"};
  else if (!a.matrix.path.empty()) r.matrix_args = {"--matrix", a.matrix.path};
  if (r.run_command.empty()) {
    std::string why;
    if (!probe_trial_argv(r, "REPORT", &why)) return usage(why);
  }

  bisect_outcome o = run_bisection(r, [](const std::string& line) {
    std::fprintf(stderr, "bisect: %s\n", line.c_str());
    std::fflush(stderr);
  });
  if (!o.error.empty() && o.trials.empty()) return usage(o.error);
  nlohmann::json report = bisect_report(r, o, a.out.include_identifiers);
  if (!emit_gpustack_report(a.out, report)) return exit_usage;
  return bisect_exit_code(o);
}

}  // namespace

command_spec bisect_command() {
  return {"bisect", "find the first release of a package that broke (or fixed) a probe",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<bisect_args>();
            bisect_request& r = a->req;
            sub.add_option("package", r.package, "the package whose releases are searched (as pip names it: triton)")
                ->required();
            sub.add_option("probe", r.probe_args,
                           "after --: the probe each release is judged by: `fla --stages 4`, probe ids such as "
                           "`gemm.bf16 py.sdpa`, `train-smoke --model ...`");
            sub.add_option("--good", r.good, "a release where the probe passes")->required()->type_name("VERSION");
            sub.add_option("--bad", r.bad, "a release where it fails (older than --good: find the release that fixed it)")
                ->required()->type_name("VERSION");
            sub.add_option("--run", r.run_command,
                           "judge each release by this shell command instead of a probe (exit 0 good, 125 skip, other bad)")
                ->type_name("CMD");
            sub.add_option("--match", r.match,
                           "a release is bad only when a failing probe's detail contains TEXT (another failure: skip)")
                ->type_name("TEXT");
            sub.add_flag("--compile-only", a->compile_only,
                         "with `-- fla ...`: judge by compiling gpustack's Triton kernels for --target (no GPU needed)");
            sub.add_option("--target", r.compile_target, "the arch --compile-only compiles for (gfx1201, gfx942, 90 ...)")
                ->type_name("ARCH");
            add_python_options(sub, a->detect, "the Python whose stack is bisected (its other packages stay as they are)",
                               "the virtual environment whose stack is bisected");
            sub.add_option("--find-links", r.find_links, "a local wheelhouse to take the releases from (offline)")
                ->type_name("DIR");
            sub.add_option("--index-url", r.index_url, "the package index (default: what pip/uv are configured for)")
                ->type_name("URL");
            sub.add_flag("--pre", r.prereleases, "include pre-releases (also when --good or --bad is one)");
            sub.add_flag("--allow-conflicts", r.allow_conflicts,
                         "run a release even when its requirements and the stack disagree (the conflict is reported beside "
                         "the result)");
            sub.add_option("--timeout", r.timeout_s, "seconds one trial's probe or command may run before it counts as a hang")
                ->capture_default_str()->check(phase_timeout_check());
            sub.add_option("--install-timeout", r.install_timeout_s, "seconds one release's download and install may take")
                ->capture_default_str()->check(phase_timeout_check());
            sub.add_option("--disk-limit", r.disk_limit_gib, "GiB the wheel cache and scratch environments may hold")
                ->capture_default_str()->check(CLI::Range(0.1, 100000.0));
            sub.add_flag("--keep", r.keep, "leave each release's scratch environment under the state directory");
            sub.add_flag("--restart", r.restart, "forget what an earlier run of the same bisection recorded");
            sub.add_flag("--no-uv", a->no_uv, "install with pip even where uv is on PATH");
            add_output_options(sub, a->out);
            add_matrix_options(sub, a->matrix);
            sub.footer(
                "Examples:\n"
                "  gpustack bisect triton --good 3.4.0 --bad 3.6.0 --compile-only --target gfx1201 -- fla --stages 4\n"
                "  gpustack bisect triton --good 3.9.0 --bad 3.6.0 --compile-only --target gfx1201 -- fla --stages 4\n"
                "  gpustack bisect bitsandbytes --good 0.45.5 --bad 0.48.1 -- py.torch py.bnb.load py.bnb.nf4\n"
                "  gpustack bisect mypkg --good 1.0 --bad 2.0 --find-links ./wheels --run 'python -c \"import mypkg\"'");
            return [a] { return run_bisect(*a); };
          }};
}

}  // namespace gs
