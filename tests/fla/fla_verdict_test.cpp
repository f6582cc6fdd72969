// The verdict of `gpustack probe fla` on synthetic results.
#include <gtest/gtest.h>

#include "fla/fla_verdict.h"

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

TEST(FlaVerdict, LowestStageFailingMeansNoneSafeAndAVersionFix) {
  std::vector<probe_result> rs = {step("native", 1, status::pass), step("triton", 1, status::error),
                                  step("native", 2, status::pass), step("triton", 2, status::pass)};
  fla_verdict v = decide_fla_verdict(rs, {"amd", "gfx1201", "3.6.0", ""});
  EXPECT_EQ(find(v, "triton")->highest_safe, 0);  // a pass above a failure is not "safe"
  EXPECT_EQ(v.cap, 0);
  EXPECT_NE(v.fix.find("triton==3.5.1"), std::string::npos) << v.fix;
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
