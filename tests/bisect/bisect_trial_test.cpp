// Judging one bisection trial (src/bisect/bisect_trial.h) and the command line of a probe trial
// (src/bisect/bisect.h), without running anything.
#include "bisect/bisect_trial.h"

#include <gtest/gtest.h>

#include "bisect/bisect.h"

namespace gs {
namespace {

nlohmann::json report_with(std::initializer_list<std::pair<const char*, const char*>> probes) {
  nlohmann::json r = {{"schema_version", 1}, {"probes", nlohmann::json::array()}};
  for (auto [id, st] : probes) r["probes"].push_back({{"id", id}, {"status", st}, {"detail", std::string(id) + " said so"}});
  return r;
}

TEST(BisectTrial, AReportIsBadWhenAProbeFailedHungOrCrashed) {
  for (const char* st : {"fail", "hang", "crash"}) {
    trial_result t;
    judge_report(report_with({{"fla.triton.stages1", "pass"}, {"fla.triton.stages4", st}, {"fla.verdict", "fail"}}), t);
    EXPECT_EQ(t.verdict, trial_verdict::bad) << st;
    EXPECT_EQ(t.status, st);
    EXPECT_EQ(t.detail, std::string("fla.triton.stages4 ") + st + ": fla.triton.stages4 said so");
    EXPECT_EQ(t.probes.size(), 2u) << "the verdict step is no probe of the stack";
  }
}

TEST(BisectTrial, AReportIsGoodWhenEveryProbeRanAndPassedOrWarned) {
  trial_result t;
  judge_report(report_with({{"py.torch", "pass"}, {"gemm.bf16", "warn"}, {"fla.verdict", "fail"}}), t);
  EXPECT_EQ(t.verdict, trial_verdict::good);
  EXPECT_EQ(t.status, "pass");
  EXPECT_EQ(t.detail, "2 probes passed");
}

TEST(BisectTrial, AReportThatJudgedNothingIsASkipNotAPass) {
  trial_result t;
  judge_report(report_with({{"py.torch", "skip"}}), t);
  EXPECT_EQ(t.verdict, trial_verdict::skip);
  EXPECT_EQ(t.status, "skip");
  judge_report(report_with({}), t);
  EXPECT_EQ(t.verdict, trial_verdict::skip);
  EXPECT_EQ(t.detail, "the report holds no probe");
  // A probe that could not run (the machine's linker refused Triton's code object) says nothing
  // about the release either.
  judge_report(report_with({{"fla.triton.stages4", "error"}, {"selftest.pass", "fail"}}), t);
  EXPECT_EQ(t.verdict, trial_verdict::skip);
  EXPECT_EQ(t.status, "error");
}

TEST(BisectTrial, WithMatchOnlyTheFailureSearchedForIsBad) {
  // Triton 3.0.0 cannot compile the kernel for gfx1201 either, but for another reason: searching
  // for the pipeliner's error, that release is no evidence either way.
  const std::string pipeliner = "operation destroyed but still has uses";
  nlohmann::json rep = report_with({{"fla.triton.stages4", "fail"}});
  rep["probes"][0]["detail"] = "could not compile gdn_state_kernel (in llir): Unsupported conversion from 'bf16' to 'f16'";
  trial_result t;
  judge_report(rep, t, pipeliner);
  EXPECT_EQ(t.verdict, trial_verdict::skip);
  EXPECT_EQ(t.status, "other-failure");
  rep["probes"][0]["detail"] = "could not compile gdn_state_kernel (in ttgir): 'tt.load' op " + pipeliner;
  judge_report(rep, t, pipeliner);
  EXPECT_EQ(t.verdict, trial_verdict::bad);
  EXPECT_EQ(t.status, "fail");
}

TEST(BisectTrial, ACommandIsJudgedByItsExitAsGitBisectDoes) {
  struct row {
    bool hang;
    int sig, code;
    trial_verdict v;
    const char* status;
  };
  for (const row& r : {row{false, 0, 0, trial_verdict::good, "pass"}, row{false, 0, 1, trial_verdict::bad, "fail"},
                       row{false, 0, 125, trial_verdict::skip, "skip"}, row{false, 0, 127, trial_verdict::skip, "skip"},
                       row{false, 11, -1, trial_verdict::bad, "crash"}, row{true, 0, -1, trial_verdict::bad, "hang"}}) {
    trial_result t;
    judge_exit(r.hang, r.sig, r.code, 30, t);
    EXPECT_EQ(t.verdict, r.v) << r.code;
    EXPECT_EQ(t.status, r.status) << r.code;
  }
  trial_result t;
  judge_exit(false, 11, -1, 30, t);
  EXPECT_EQ(t.detail, "killed by SIGSEGV");
}

TEST(BisectTrial, TheJournalEntryReadsBackAsItWasWritten) {
  trial_result t;
  t.version = "3.5.0";
  t.verdict = trial_verdict::bad;
  t.status = "hang";
  t.detail = "fla.triton.stages4 hang";
  t.install_s = 3.5;
  t.conflicts = {"torch 2.9.0 requires triton==3.5.0"};
  trial_result back = trial_result::from_json(t.to_json());
  EXPECT_EQ(back.to_json(), t.to_json());
}

TEST(BisectTrial, ProbeArgumentsBecomeOneGpustackCommandLine) {
  bisect_request r;
  r.self_exe = "/x/gpustack";
  r.python = "/v/bin/python";
  r.matrix_args = {"--no-matrix"};
  std::string why;
  auto line = [&](std::vector<std::string> args) {
    r.probe_args = std::move(args);
    auto a = probe_trial_argv(r, "/w/r.json", &why);
    std::string s;
    if (a)
      for (const std::string& x : *a) s += (s.empty() ? "" : " ") + x;
    return s;
  };
  const std::string tail = " --python /v/bin/python --json -o /w/r.json --no-matrix";
  EXPECT_EQ(line({"fla", "--stages", "4"}), "/x/gpustack probe fla --stages 4" + tail);
  EXPECT_EQ(line({"probe", "fla"}), "/x/gpustack probe fla" + tail);
  EXPECT_EQ(line({"gemm.bf16", "py.sdpa"}), "/x/gpustack probe gemm.bf16 py.sdpa" + tail);
  EXPECT_EQ(line({"train-smoke", "--model", "qwen3.5-0.8b"}), "/x/gpustack train-smoke --model qwen3.5-0.8b" + tail);
  r.compile_target = "gfx1201";
  EXPECT_EQ(line({"fla", "--stages", "4"}), "/x/gpustack probe fla --stages 4 --compile-only --target gfx1201" + tail);
  EXPECT_EQ(line({"gemm.bf16"}), "");
  EXPECT_NE(why.find("works with `-- fla ...` only"), std::string::npos) << why;
  r.compile_target.clear();
  EXPECT_EQ(line({"fla", "--python", "/other"}), "");
  EXPECT_NE(why.find("bisect sets --python"), std::string::npos) << why;
  EXPECT_EQ(line({"fla", "-o=x"}), "");
  EXPECT_EQ(line({}), "");
  EXPECT_NE(why.find("name the probe after --"), std::string::npos) << why;
  EXPECT_EQ(line({"--stages", "4"}), "");
}

}  // namespace
}  // namespace gs
