// report diff: versions, settings, findings and probe changes, and the ranking of the changed
// components against the probes that started failing.
#include <gtest/gtest.h>

#include <set>

#include "../matrix/matrix_test_util.h"
#include "report/report_diff.h"

namespace gs {
namespace {

using gs::testing::example_report;
using gs::testing::tiny_report;
using nlohmann::json;

TEST(ReportDiff, DependencyTableLongestMatchWins) {
  EXPECT_EQ(probe_dependencies("py.bnb.nf4").front(), "bitsandbytes");
  EXPECT_EQ(probe_dependencies("fla.native.stages2").front(), "triton");
  EXPECT_EQ(probe_dependencies("py.torch").front(), "torch");
  EXPECT_EQ(probe_dependencies("gemm.fp32").front(), "driver");  // the catch-all
  EXPECT_EQ(probe_dependencies("train_smoke.qwen3.5-0.8b").front(), "flash-linear-attention");
}

TEST(ReportDiff, RanksTheUpgradeThatBrokeTheProbes) {
  json a = tiny_report("gfx1201", {{"torch", "2.10.0"}, {"triton", "3.5.1"}, {"bitsandbytes", "0.49.2"}, {"numpy", "2.3.5"}},
                       {{"fla.native.stages1", "pass"}, {"fla.native.stages2", "pass"}, {"py.bnb.nf4", "pass"}, {"py.torch", "pass"}});
  json b = tiny_report("gfx1201", {{"torch", "2.11.0"}, {"triton", "3.6.0"}, {"bitsandbytes", "0.49.2"}, {"numpy", "2.4.0"}},
                       {{"fla.native.stages1", "pass"}, {"fla.native.stages2", "hang"}, {"py.bnb.nf4", "pass"}, {"py.torch", "pass"},
                        {"train_smoke.qwen3.5-0.8b", "hang"}});
  b["env"]["HSA_OVERRIDE_GFX_VERSION"] = "12.0.1";
  b["findings"].push_back({{"id", "GS-TRITON-001"}, {"title", "Triton 3.6.0 pipeliner"}});
  report_diff d = diff_reports(a, b);
  ASSERT_EQ(d.versions.size(), 3u);  // torch, triton, then the other package numpy
  EXPECT_EQ(d.versions[0].name, "torch");
  EXPECT_EQ(d.versions[2].name, "pkg:numpy");
  ASSERT_EQ(d.settings.size(), 1u);
  EXPECT_EQ(d.settings[0].name, "env:HSA_OVERRIDE_GFX_VERSION");
  ASSERT_EQ(d.findings_added.size(), 1u);
  EXPECT_TRUE(d.findings_removed.empty());
  ASSERT_EQ(d.probes.size(), 2u);  // stages2 pass -> hang, train_smoke absent -> hang
  EXPECT_TRUE(d.probes[0].regression);
  EXPECT_FALSE(d.probes[1].regression);  // new probe: newly failing, not a regression
  EXPECT_TRUE(d.probes[1].newly_failing);
  EXPECT_TRUE(d.regressed());
  // Triton explains both (first in fla.*, second in train_smoke.*), torch both but later in
  // the lists, the override one; numpy none and is not a suspect.
  ASSERT_EQ(d.suspects.size(), 3u);
  EXPECT_EQ(d.suspects[0].component, "triton");
  EXPECT_EQ(d.suspects[0].explains.size(), 2u);
  EXPECT_EQ(d.suspects[1].component, "torch");
  EXPECT_EQ(d.suspects[2].component, "env:HSA_OVERRIDE_GFX_VERSION");

  std::string human = render_diff_human(d, false);
  EXPECT_NE(human.find("1. triton 3.5.1 -> 3.6.0: fla.native.stages2, train_smoke.qwen3.5-0.8b"), std::string::npos) << human;
  EXPECT_NE(human.find("REGRESSED"), std::string::npos);
  std::string md = render_diff_markdown(d);
  EXPECT_NE(md.find("| 1 | `triton` | 3.5.1 | 3.6.0 |"), std::string::npos) << md;
  json j = diff_json(d);
  EXPECT_EQ(j["suspects"][0]["component"], "triton");
  EXPECT_TRUE(j["regressed"].get<bool>());
}

TEST(ReportDiff, IdenticalAndImproved) {
  json r = example_report("h200-probe.json");
  report_diff same = diff_reports(r, r);
  EXPECT_TRUE(same.versions.empty() && same.settings.empty() && same.probes.empty() && same.suspects.empty());
  EXPECT_FALSE(same.regressed());
  EXPECT_NE(render_diff_human(same, false).find("no differences"), std::string::npos);
  json fixed = r;
  for (json& p : fixed["probes"])
    if (p["id"] == "quant.nf4") p["status"] = "pass";
  report_diff d = diff_reports(r, fixed);
  ASSERT_EQ(d.probes.size(), 1u);
  EXPECT_FALSE(d.probes[0].newly_failing);
  EXPECT_FALSE(d.regressed());
  EXPECT_TRUE(diff_reports(fixed, r).regressed());
}

TEST(ReportDiff, AnInterruptedStepIsNoRegression) {
  json a = tiny_report("gfx1201", json::object(), {{"fla.native.stages4", "pass"}, {"fla.native.stages5", "pass"}});
  // The later run was stopped with Ctrl-C during stage 5 (mark_interrupted made it a skip).
  json b = tiny_report("gfx1201", json::object(), {{"fla.native.stages4", "pass"}, {"fla.native.stages5", "skip"}});
  b["probes"][1]["data"]["interrupted"] = true;
  report_diff d = diff_reports(a, b);
  ASSERT_EQ(d.probes.size(), 1u);
  EXPECT_FALSE(d.probes[0].regression);
  EXPECT_FALSE(d.probes[0].newly_failing);
  EXPECT_FALSE(d.regressed());
}

TEST(ReportDiff, RealReportsOfOneMachine) {
  // The 2026-12-02 suite (NF4/FP4 failing on the GPU) vs the 2026-12-03 quant-only run after the
  // fix: NF4 and FP4 go fail -> pass, the probes not in the second run vanish, nothing regresses.
  report_diff d = diff_reports(example_report("h200-probe.json"), example_report("h200-quant-probes.json"));
  EXPECT_FALSE(d.regressed());
  EXPECT_FALSE(d.probes.empty());
  std::set<std::string> fixed;
  for (const probe_change& p : d.probes) {
    if (p.after.empty()) continue;
    EXPECT_EQ(p.before, "fail") << p.id;
    EXPECT_EQ(p.after, "pass") << p.id;
    fixed.insert(p.id);
  }
  EXPECT_EQ(fixed, (std::set<std::string>{"quant.fp4", "quant.nf4"}));
}

TEST(ReportDiff, MalformedInputsDoNotThrow) {
  for (const json& a : {json(nullptr), json::array(), json{{"probes", 3}, {"env", "x"}, {"findings", {1, 2}}}})
    EXPECT_NO_THROW(diff_reports(a, example_report("h200-check.json")));
}

}  // namespace
}  // namespace gs
