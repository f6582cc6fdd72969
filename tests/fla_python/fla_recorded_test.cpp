// Recorded outputs of the `gpustack probe fla` Python backends (tests/fixtures/python_outputs/
// *fla_*, synthetic until scripts/h200-fla-python.sh replaces the H200 ones) through the same
// outcome_from_output / to_probe_result / finding match a live run uses: a pass with its
// figures, FLA's Hopper backward refusal as the FLA#640 known issue (GS-FLA-001) beside a passing
// forward, Triton 3.6.0's pipeliner failing and aborting on a gfx1201 (GS-TRITON-001). Then the
// spin kernel's output replayed by a stand-in interpreter under the real watchdog: `hang` in
// phase `run`, and the next stage still runs and passes.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fla/fla_probes.h"
#include "probes/python_probes.h"
#include "python/gs_line_protocol.h"
#include "python/script_runner.h"
#include "watch/probe_runner.h"
#include "support/files.h"
#include "support/sample_facts.h"

namespace gs {
namespace {

using gs::test::fixture_dir;

namespace fs = std::filesystem;

/// The machine a recording was made on: its GPU and the Triton 3.6.0 / FLA 0.5.0 stack the
/// recordings ran with (the rules' `when` gates their error text on those versions).
machine_facts gpu_facts(const char* vendor, const char* name, const char* arch) {
  machine_facts f = test::one_gpu(vendor, name, arch);
  f.python.found = true;
  return test::with_pkg(test::with_pkg(f, "triton", "3.6.0"), "flash-linear-attention", "0.5.0");
}


probe_result replay(const std::string& name, const machine_facts& facts, int rc = 0, int sig = 0) {
  python_probe_outcome o = outcome_from_output(gs::test::read_file(fixture_dir("python_outputs") + name + ".stdout"), gs::test::read_file(fixture_dir("python_outputs") + name + ".stderr"), rc, sig);
  probe_result r = to_probe_result("fla", o);
  if (r.outcome != status::pass && r.outcome != status::skip) r.finding_ids = match_result_findings(r, facts);
  return r;
}

std::vector<std::string> phases_of(const std::string& text) {
  gs_line_parser p;
  std::vector<gs_line_event> ev;
  p.feed(text, ev);
  p.finish(ev);
  std::vector<std::string> out;
  for (const gs_line_event& e : ev)
    if (e.kind == gs_line_event::phase) out.push_back(e.text);
  return out;
}

TEST(FlaRecorded, TritonBackendPassCarriesItsFiguresAndTheStageItCompiledWith) {
  probe_result r = replay("h200_fla_triton", gpu_facts("nvidia", "NVIDIA H200", "sm_90"));
  EXPECT_EQ(r.outcome, status::pass) << r.detail;
  for (const char* k : {"compile_ms", "run_ms", "max_abs_err", "rel_err", "num_warps", "num_stages_seen", "versions",
                        "arch"})
    EXPECT_TRUE(r.data.contains(k)) << k;
  EXPECT_EQ(r.data["num_stages_seen"], nlohmann::json::array({2}));
  EXPECT_EQ(r.data["num_warps"], 4);
  EXPECT_LT(r.data["rel_err"].get<double>(), r.data["tolerance"].get<double>());
  EXPECT_EQ(r.data["versions"]["triton"], "3.6.0");
  EXPECT_TRUE(r.finding_ids.empty());
  // A library's own line between the protocol lines is log, not lost and not a command.
  EXPECT_EQ(phases_of(gs::test::read_file(fixture_dir("python_outputs") + "h200_fla_triton.stdout")),
            (std::vector<std::string>{"import", "compile", "run", "verify"}));
}

TEST(FlaRecorded, FlaHopperBackwardRefusalIsTheKnownIssueNotACrash) {
  machine_facts h200 = gpu_facts("nvidia", "NVIDIA H200", "sm_90");
  probe_result r = replay("h200_fla_fla", h200);
  EXPECT_EQ(r.outcome, status::pass) << r.detail;
  EXPECT_NE(r.detail.find("FLA#640"), std::string::npos) << r.detail;
  const nlohmann::json& b = r.data["backward"];
  EXPECT_EQ(b["status"], "skip");
  EXPECT_EQ(b["known_issue"], "FLA#640");
  EXPECT_NE(b["detail"].get<std::string>().find("(see #640)"), std::string::npos);
  // The forcing is proven by what each kernel was compiled with.
  EXPECT_EQ(r.data["num_stages_seen"], nlohmann::json::array({3}));
  for (const auto& [kernel, seen] : r.data["num_stages_by_kernel"].items())
    EXPECT_EQ(seen, nlohmann::json::array({3})) << kernel;
  // FLA's own forward at its own configs sits beside the forced one (GUIDE: 0.43-0.54 ms).
  double def = r.data["fla_default_run_ms"].get<double>();
  EXPECT_GT(def, 0.3);
  EXPECT_LT(def, 0.7);
  // The refusal's words name the knowledge-base entry.
  probe_result words;
  words.detail = b["detail"].get<std::string>();
  std::vector<std::string> ids = match_result_findings(words, h200);
  EXPECT_TRUE(gs::test::contains(ids, "GS-FLA-001")) << nlohmann::json(ids).dump();
  // probe fla hands this depth to the later ones, which then report the refusal without re-running.
  probe_result step = fla_python_result("fla", 3, nlohmann::json::object(), outcome_from_output(
      gs::test::read_file(fixture_dir("python_outputs") + "h200_fla_fla.stdout"), "", 0, 0));
  EXPECT_EQ(fla_backward_refused_stage(step), 3);
  step.data["backward"]["known_issue"] = nullptr;  // a backward that failed some other way: run it again
  EXPECT_EQ(fla_backward_refused_stage(step), 0);
  step.data.erase("backward");
  EXPECT_EQ(fla_backward_refused_stage(step), 0);
}

TEST(FlaRecorded, PipelinerFailureAndAbortOnGfx1201NameTritonsBug) {
  machine_facts r9700 = gpu_facts("amd", "AMD Radeon AI PRO R9700", "gfx1201");
  probe_result failed = replay("r9700_fla_triton_pipeliner", r9700, 1);
  EXPECT_EQ(failed.outcome, status::fail) << failed.detail;
  EXPECT_EQ(failed.detail, "RuntimeError: PassManager::run failed");
  EXPECT_EQ(failed.data["num_stages"], 2);
  EXPECT_TRUE(gs::test::contains(failed.finding_ids, "GS-TRITON-001")) << nlohmann::json(failed.finding_ids).dump();

  probe_result aborted = replay("r9700_fla_fla_pipeliner", r9700, -1, SIGABRT);
  EXPECT_EQ(aborted.outcome, status::crash) << aborted.detail;
  EXPECT_NE(aborted.data.value("output_tail", std::string()).find("LLVM ERROR: operation destroyed"),
            std::string::npos)
      << aborted.data.dump();
  EXPECT_TRUE(gs::test::contains(aborted.finding_ids, "GS-TRITON-001")) << nlohmann::json(aborted.finding_ids).dump();
  EXPECT_EQ(phases_of(gs::test::read_file(fixture_dir("python_outputs") + "r9700_fla_fla_pipeliner.stdout")),
            (std::vector<std::string>{"import", "compile"}));
}

// --- the spin kernel under the watchdog ---------------------------------------------------
// A stand-in interpreter prints a recorded stdout and then, when asked, sleeps like a GPU that
// never finishes (0 % CPU). run_python_script starts it exactly as it starts Python.

std::string g_interpreter;

probe_result run_replayed(const probe_context& ctx) {
  python_probe_request req;
  req.script = "probes/python/fla_triton.py";
  req.extra_assets = {"kernels/triton/gdn_chunk.py", "kernels/triton/gdn_ref.py", "probes/python/fla_args.py"};
  req.args = {{"stage", 2}, {"spin", true}};
  ctx.phase("start");
  return to_probe_result("fla.triton", run_python_script(ctx, req));
}

TEST(FlaRecorded, SpinKernelIsAHangInTheRunPhaseAndTheNextStageStillRuns) {
  fs::path dir = fs::temp_directory_path() / ("gs-flapy-replay-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  g_interpreter = (dir / "python3").string();
  std::ofstream(g_interpreter) << "#!/bin/sh\n"
                                  "cat \"$GS_REPLAY_STDOUT\"\n"
                                  "if [ \"$GS_REPLAY_HANG\" = 1 ]; then exec sleep 1000; fi\n";
  fs::permissions(g_interpreter, fs::perms::owner_all);
  machine_facts f;
  f.python.found = true;
  f.python.interpreter = g_interpreter;
  runner_options o;
  o.facts = &f;
  o.limits.deadlines.override_all(1.5);
  const probe_spec spec = {"fla.triton.stages2", "replayed", {}, true, true, run_replayed};

  ::setenv("GS_REPLAY_STDOUT", (fixture_dir("python_outputs") + "h200_fla_triton_spin.stdout").c_str(), 1);
  ::setenv("GS_REPLAY_HANG", "1", 1);
  auto t0 = std::chrono::steady_clock::now();
  probe_result hung = run_probe(spec, o);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(hung.outcome, status::hang) << hung.detail;
  EXPECT_EQ(hung.phase, "run");
  EXPECT_LT(s, 10);

  ::setenv("GS_REPLAY_STDOUT", (fixture_dir("python_outputs") + "h200_fla_triton.stdout").c_str(), 1);
  ::setenv("GS_REPLAY_HANG", "0", 1);
  probe_result next = run_probe(spec, o);
  EXPECT_EQ(next.outcome, status::pass) << next.detail;
  EXPECT_EQ(next.phase, "verify");
  EXPECT_EQ(next.data["num_stages_seen"], nlohmann::json::array({2}));
  ::unsetenv("GS_REPLAY_STDOUT");
  ::unsetenv("GS_REPLAY_HANG");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gs
