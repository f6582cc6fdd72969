// The verdict of `gpustack probe fla` on synthetic results.
#include <gtest/gtest.h>

#include "fla/fla_verdict.h"
#include "support/files.h"
#include "support/report_probes.h"

namespace gs {
namespace {

probe_result step(const std::string& backend, int stage, status s, nlohmann::json extra = nlohmann::json::object()) {
  probe_result r;
  r.id = "fla." + backend + ".stages" + std::to_string(stage);
  r.outcome = s;
  r.detail = to_string(s);
  r.data = extra;
  r.data["backend"] = backend;
  r.data["stage"] = stage;
  return r;
}

const fla_backend_verdict* find(const fla_verdict& v, const std::string& b) {
  for (const auto& x : v.backends)
    if (x.backend == b) return &x;
  return nullptr;
}

TEST(FlaVerdict, NativePassesTritonHangsFromTwo) {
  std::vector<probe_result> rs;
  for (int s = 1; s <= 4; ++s) {
    rs.push_back(step("native", s, status::pass));
    rs.push_back(step("triton", s, s >= 2 ? status::hang : status::pass));
  }
  fla_verdict v = decide_fla_verdict(rs, {"amd", "gfx1201", "3.6.0", ""});
  EXPECT_TRUE(v.triton_fault);
  EXPECT_FALSE(v.native_fault);
  EXPECT_EQ(v.fault_stages, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(find(v, "native")->highest_safe, 4);
  EXPECT_EQ(find(v, "triton")->highest_safe, 1);
  EXPECT_EQ(v.cap, 1);
  EXPECT_EQ(v.fix, "gpustack fix triton-stages --max 1");
  EXPECT_EQ(v.finding_id, "GS-TRITON-001");
  nlohmann::json j = v.to_json();
  EXPECT_EQ(j["backends"]["triton"]["highest_safe_num_stages"], 1);
  EXPECT_EQ(j["tritons_fault"], true);
  bool said = false;
  for (const std::string& l : v.lines) said |= l.find("Triton's fault") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(FlaVerdict, FindingFollowsTheGpu) {
  std::vector<probe_result> rs = {step("native", 4, status::pass), step("fla", 4, status::crash),
                                  step("native", 3, status::pass), step("fla", 3, status::pass)};
  EXPECT_EQ(decide_fla_verdict(rs, {"amd", "gfx90a", "3.6.0", "0.5.0"}).finding_id, "GS-TRITON-002");
  EXPECT_EQ(decide_fla_verdict(rs, {"nvidia", "sm_90", "3.6.0", "0.5.0"}).finding_id, "GS-TRITON-003");
  fla_verdict v = decide_fla_verdict(rs, {"amd", "gfx90a", "3.6.0", "0.5.0"});
  EXPECT_EQ(find(v, "fla")->highest_safe, 3);
  EXPECT_EQ(v.cap, 3);
}

TEST(FlaVerdict, NativeFailingTooIsNotTritonsFault) {
  std::vector<probe_result> rs = {step("native", 1, status::pass), step("triton", 1, status::pass),
                                  step("native", 2, status::fail), step("triton", 2, status::fail)};
  fla_verdict v = decide_fla_verdict(rs, {"nvidia", "sm_90", "3.6.0", ""});
  EXPECT_FALSE(v.triton_fault);
  EXPECT_TRUE(v.native_fault);
  EXPECT_EQ(v.finding_id, "");
  EXPECT_EQ(find(v, "native")->highest_safe, 1);
}

TEST(FlaVerdict, EverythingPassesNoFix) {
  std::vector<probe_result> rs;
  for (int s = 1; s <= 4; ++s)
    for (const char* b : {"native", "triton", "fla"}) rs.push_back(step(b, s, status::pass));
  fla_verdict v = decide_fla_verdict(rs, {"nvidia", "sm_90", "3.6.0", "0.5.0"});
  EXPECT_FALSE(v.triton_fault);
  EXPECT_EQ(v.fix, "");
  EXPECT_EQ(v.cap, 0);
  for (const auto& b : v.backends) EXPECT_EQ(b.highest_safe, 4) << b.backend;
}

TEST(FlaVerdict, NoDepthPassingMeansAVersionFix) {
  std::vector<probe_result> rs = {step("native", 1, status::pass), step("triton", 1, status::error),
                                  step("native", 2, status::pass), step("triton", 2, status::crash)};
  fla_verdict v = decide_fla_verdict(rs, {"amd", "gfx1201", "3.6.0", ""});
  EXPECT_EQ(find(v, "triton")->pattern, stage_pattern::all_fail);
  EXPECT_EQ(v.cap, 0);
  EXPECT_NE(v.fix.find("triton==3.5.1"), std::string::npos) << v.fix;
}

TEST(FlaVerdict, NoPassingDepthAmongHighOnesOnlyAsksForTheLowerDepths) {
  // `probe fla --stages 4` (what gpustack bisect runs) failing says nothing of depths 1-3: no
  // "no num_stages works", no other Triton named.
  std::vector<probe_result> rs = {step("triton", 4, status::fail)};
  fla_verdict v = decide_fla_verdict(rs, {"amd", "gfx1201", "3.5.0", ""});
  EXPECT_EQ(find(v, "triton")->pattern, stage_pattern::all_fail);
  EXPECT_EQ(v.fix, "gpustack probe fla --stages 1..4 (only num_stages 4 and up ran; a lower depth may work)");
}

TEST(FlaVerdict, OneFailingDepthBelowPassingOnesIsAvoidedNotCapped) {
  // The H200's shape: Triton fails at num_stages 1 alone and passes at 2, 3 and 4.
  probe_result bad = step("triton", 1, status::fail);
  bad.phase = "run";
  bad.detail = "AcceleratorError: CUDA error: an illegal memory access was encountered\nmore";
  std::vector<probe_result> rs = {bad};
  for (int s = 1; s <= 4; ++s) rs.push_back(step("native", s, status::pass));
  for (int s = 2; s <= 4; ++s) rs.push_back(step("triton", s, status::pass));
  fla_verdict v = decide_fla_verdict(rs, {"nvidia", "sm_90", "3.6.0", ""});
  const fla_backend_verdict* t = find(v, "triton");
  EXPECT_EQ(t->pattern, stage_pattern::isolated);
  EXPECT_EQ(t->how.at(1), "fail in phase run: AcceleratorError: CUDA error: an illegal memory access was encountered");
  EXPECT_EQ(v.avoid, std::vector<int>{1});
  EXPECT_EQ(v.cap, 0) << "a cap at any depth keeps 1, which is the one that fails";
  EXPECT_EQ(v.fix, "") << "FLA's own depths are unknown here: nothing to install";
  EXPECT_TRUE(v.triton_fault);
  std::string all;
  for (const std::string& l : v.lines) all += l + "\n";
  EXPECT_NE(all.find("triton: passes at num_stages 2,3,4, fails at 1 (1: fail in phase run: "), std::string::npos) << all;
  EXPECT_NE(all.find("avoid num_stages 1"), std::string::npos) << all;
  EXPECT_EQ(all.find("none"), std::string::npos) << "never 'highest safe none' when three depths pass:\n" << all;
  EXPECT_EQ(v.to_json()["backends"]["triton"]["pattern"], "isolated");
}

TEST(FlaVerdict, WhetherFlasOwnDepthsAreHitDecidesTheAdvice) {
  auto run = [](std::vector<int> fla_own) {
    std::vector<probe_result> rs;
    for (int s = 1; s <= 4; ++s) {
      rs.push_back(step("native", s, status::pass));
      rs.push_back(step("triton", s, s == 1 ? status::fail : status::pass));
    }
    rs.push_back(step("fla", 2, status::pass, {{"fla_default_stages_seen", fla_own}}));
    return decide_fla_verdict(rs, {"nvidia", "sm_90", "3.6.0", "0.5.0"});
  };
  fla_verdict spared = run({2, 3, 4});
  ASSERT_TRUE(spared.fla_affected.has_value());
  EXPECT_FALSE(*spared.fla_affected);
  EXPECT_EQ(spared.fix, "");
  EXPECT_EQ(spared.fla_own_stages, (std::vector<int>{2, 3, 4}));
  fla_verdict hit = run({1, 2});
  ASSERT_TRUE(hit.fla_affected.has_value());
  EXPECT_TRUE(*hit.fla_affected);
  EXPECT_NE(hit.fix.find("keep FLA off num_stages 1"), std::string::npos) << hit.fix;
  EXPECT_EQ(hit.to_json()["fla_affected"], true);
}

TEST(FlaVerdict, FailuresAboveThePassesAreCappedUnlessFlaNeverGoesThere) {
  // gfx1201-like: Triton's pipeliner breaks from num_stages 2 up.
  std::vector<probe_result> rs;
  for (int s = 1; s <= 4; ++s) {
    rs.push_back(step("native", s, status::pass));
    rs.push_back(step("fla", s, s >= 2 ? status::hang : status::pass, {{"fla_default_stages_seen", {1, 2, 3}}}));
  }
  fla_verdict v = decide_fla_verdict(rs, {"amd", "gfx1201", "3.6.0", "0.5.0"});
  EXPECT_EQ(find(v, "fla")->pattern, stage_pattern::fails_above);
  EXPECT_EQ(find(v, "fla")->how.at(2), "hang");
  EXPECT_EQ(v.cap, 1);
  EXPECT_EQ(v.fix, "gpustack fix triton-stages --max 1");
  // The same failures where FLA only ever compiles at 1: nothing of the user's is hit.
  for (probe_result& r : rs) r.data["fla_default_stages_seen"] = {1};
  v = decide_fla_verdict(rs, {"amd", "gfx1201", "3.6.0", "0.5.0"});
  EXPECT_EQ(v.cap, 0);
  EXPECT_EQ(v.fix, "");
}

TEST(FlaVerdict, TheRecordedH200Run) {
  // probe fla --backends native,triton --stages 1..4 on the H200 (2026-12-03): triton failed at
  // 1 alone and the landed verdict said "highest safe num_stages none" and "install a Triton ...".
  nlohmann::json report = nlohmann::json::parse(test::read_file(test::fixture_dir("fla") + "h200_probe_fla_2026-12-03.json"));
  std::vector<probe_result> rs = test::probes_of_report(report);
  ASSERT_EQ(rs.size(), 8u);
  fla_verdict v = decide_fla_verdict(rs, {"nvidia", "sm_90", "3.6.0", ""});
  EXPECT_EQ(find(v, "triton")->passed, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(find(v, "triton")->failed, std::vector<int>{1});
  EXPECT_EQ(v.avoid, std::vector<int>{1});
  EXPECT_EQ(v.cap, 0);
  EXPECT_EQ(v.fix.find("install a Triton"), std::string::npos) << v.fix;
  EXPECT_EQ(find(v, "native")->pattern, stage_pattern::all_pass);
}

TEST(FlaVerdict, SkippedBackendIsNotRunWithTheReason) {
  probe_result sk = step("fla", 1, status::skip);
  sk.detail = "flash-linear-attention is not installed";
  fla_verdict v = decide_fla_verdict({step("native", 1, status::pass), sk}, {});
  EXPECT_EQ(find(v, "fla")->highest_safe, -1);
  EXPECT_EQ(find(v, "fla")->skip_reason, "flash-linear-attention is not installed");
  EXPECT_TRUE(v.to_json()["backends"]["fla"]["highest_safe_num_stages"].is_null());
  EXPECT_FALSE(v.triton_fault);
}

TEST(FlaVerdict, AnInterruptedStageIsNeitherPassNorFail) {
  // Ctrl-C during stage 3 of 1..4: the runner made the killed step a skip (mark_interrupted).
  probe_result cut = step("native", 3, status::skip, {{"interrupted", true}});
  cut.detail = "not finished: interrupted by the user (Ctrl-C) in phase run";
  probe_result rest = step("native", 4, status::skip);
  rest.detail = "not run: interrupted";
  fla_verdict v = decide_fla_verdict({step("native", 1, status::pass), step("native", 2, status::pass), cut, rest}, {});
  EXPECT_FALSE(v.native_fault);
  EXPECT_EQ(v.finding_id, "");
  EXPECT_EQ(find(v, "native")->failed.size(), 0u);
  ASSERT_FALSE(v.lines.empty());
  EXPECT_EQ(v.lines[0], "native: passed at num_stages 1,2; not run at 3,4 (not finished: interrupted by the user (Ctrl-C) in phase run)");
}

TEST(FlaVerdict, BackwardRefusalOnHopperIsTheKnownIssue) {
  nlohmann::json bw = {{"backward", {{"status", "skip"}, {"detail", "RuntimeError: Triton >= 3.4.0 on Hopper GPUs ... (see #640)"}}}};
  std::vector<probe_result> rs = {step("native", 1, status::pass), step("fla", 1, status::pass, bw)};
  fla_verdict v = decide_fla_verdict(rs, {"nvidia", "sm_90", "3.6.0", "0.5.0"});
  EXPECT_TRUE(v.backward_refused);
  EXPECT_EQ(v.finding_id, "GS-FLA-001");
  EXPECT_FALSE(v.triton_fault);
  // Version-based: Hopper with Triton 3.6.0 even when the text is different.
  EXPECT_TRUE(fla_backward_refusal_is_known({"nvidia", "sm_90", "3.6.0", ""}, "RuntimeError: something"));
  EXPECT_FALSE(fla_backward_refusal_is_known({"nvidia", "sm_90", "3.7.1", ""}, "RuntimeError: something"));
  EXPECT_FALSE(fla_backward_refusal_is_known({"nvidia", "sm_80", "3.6.0", ""}, "RuntimeError: something"));
}

}  // namespace
}  // namespace gs
