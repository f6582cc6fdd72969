// Where a stack sits: known good, known bad, unknown, and the nearest known-good row, on a small
// hand-built matrix and on the shipped one (the gfx1201 field stacks).
#include <gtest/gtest.h>

#include "matrix/stack_position.h"
#include "matrix_test_util.h"

namespace gs {
namespace {

using gs::testing::tiny_report;
using nlohmann::json;

json gfx1201(const std::string& triton, const std::string& cap, const json& probes) {
  json r = tiny_report("gfx1201", {{"torch", "2.11.0+rocm7.2"}, {"triton", triton}, {"fla-core", "0.5.0"}}, probes);
  if (!cap.empty()) r["settings"] = {{"num_stages_cap", cap}};
  return r;
}

compat_matrix small() {
  compat_matrix m;
  merge_report(m, gfx1201("3.6.0", "", {{"fla.native.stages2", "hang"}}));
  merge_report(m, gfx1201("3.6.0", "1", {{"fla.native.stages2", "pass"}}));
  merge_report(m, gfx1201("3.7.1", "", {{"fla.native.stages2", "pass"}, {"py.torch", "pass"}}));
  merge_report(m, gfx1201("3.5.0", "", {{"fla.native.stages2", "skip"}}));
  return m;
}

TEST(StackPosition, KnownBadNamesTheFailureAndTheNearestGood) {
  compat_matrix m = small();
  fingerprint live = fingerprint_of(gfx1201("3.6.0", "", json::object()));
  stack_position p = locate_stack(m, live);
  EXPECT_EQ(p.verdict, "known_bad");
  ASSERT_EQ(p.bad_cells.size(), 1u);
  EXPECT_EQ(p.bad_cells[0]->probe, "fla.native.stages2");
  // Two good rows differ by one component each (the cap; the Triton version). Tie: the one
  // with more passing cells (3.7.1 has two).
  ASSERT_FALSE(p.nearest_id.empty());
  ASSERT_EQ(p.differences.size(), 1u);
  EXPECT_EQ(p.differences[0].component, "triton");
  EXPECT_EQ(p.differences[0].yours, "3.6.0");
  EXPECT_EQ(p.differences[0].known, "3.7.1");
  std::optional<finding> f = position_finding(p);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->id, "GS-MATRIX-001");
  EXPECT_EQ(f->level, severity::warn);
  EXPECT_NE(f->evidence.find("fla.native.stages2 hang"), std::string::npos);
  EXPECT_NE(f->remediation.find("Triton 3.7.1"), std::string::npos) << f->remediation;
}

TEST(StackPosition, KnownGood) {
  compat_matrix m = small();
  stack_position p = locate_stack(m, fingerprint_of(gfx1201("3.6.0", "1", json::object())));
  EXPECT_EQ(p.verdict, "known_good");
  EXPECT_TRUE(p.nearest_id.empty());
  EXPECT_FALSE(position_finding(p));
  // A row value covers newer patch levels of the live stack ("3.7.1" covers "3.7.1+rocm7.2").
  EXPECT_EQ(locate_stack(m, fingerprint_of(gfx1201("3.7.1+rocm7.2", "", json::object()))).verdict, "known_good");
}

TEST(StackPosition, UnknownWithNearest) {
  compat_matrix m = small();
  fingerprint live = fingerprint_of(gfx1201("3.8.0", "1", json::object()));
  stack_position p = locate_stack(m, live);
  EXPECT_EQ(p.verdict, "unknown");
  ASSERT_EQ(p.differences.size(), 1u);  // the capped 3.6.0 row: only Triton differs
  EXPECT_EQ(p.differences[0].known, "3.6.0");
  // A row with only skips matches but decides nothing.
  EXPECT_EQ(locate_stack(m, fingerprint_of(gfx1201("3.5.0", "", json::object()))).verdict, "unknown");
  // No good row at all: unknown, nobody to point to.
  compat_matrix empty;
  stack_position q = locate_stack(empty, live);
  EXPECT_EQ(q.verdict, "unknown");
  EXPECT_TRUE(q.nearest_id.empty());
  json j = position_json(q, live);
  EXPECT_FALSE(j.contains("nearest_known_good"));
  EXPECT_NE(position_line(j).find("no known-good stack"), std::string::npos);
}

TEST(StackPosition, ShippedGfx1201FieldStacks) {
  // The fixture machine's stack as `check` sees it: no settings, so no num_stages cap.
  json r = tiny_report("gfx1201",
                       {{"torch", "2.11.0+rocm7.2"}, {"pytorch-triton-rocm", "3.6.0"}, {"bitsandbytes", "0.49.2"},
                        {"fla-core", "0.5.0"}, {"causal-conv1d", "1.6.2.post1"}, {"transformers", "5.17.0"}},
                       json::object());
  fingerprint live = fingerprint_of(r);
  stack_position p = locate_stack(shipped_matrix(), live);
  EXPECT_EQ(p.verdict, "known_bad");
  ASSERT_EQ(p.differences.size(), 1u);
  EXPECT_EQ(p.differences[0].component, "num_stages_cap");
  EXPECT_EQ(p.differences[0].known, "1");
  json j = position_json(p, live);
  EXPECT_EQ(j["verdict"], "known_bad");
  EXPECT_EQ(j["nearest_known_good"]["differences"][0]["component"], "num_stages_cap");
  std::string line = position_line(j);
  EXPECT_NE(line.find("known bad"), std::string::npos) << line;
  EXPECT_NE(line.find("train_smoke.qwen3.5-0.8b hang"), std::string::npos) << line;
  EXPECT_NE(line.find("num_stages_cap (none) -> 1"), std::string::npos) << line;
}

}  // namespace
}  // namespace gs
