// Merging reports and matrices: one row per fingerprint, run counts, the newest status wins
// whatever the merge order, re-submitted reports are recognised, selftest.* is left out.
#include <gtest/gtest.h>

#include "matrix/matrix.h"
#include "matrix_test_util.h"

namespace gs {
namespace {

using gs::testing::example_report;
using gs::testing::tiny_report;
using nlohmann::json;

TEST(MatrixMerge, RealH200ReportsShareOneRow) {
  compat_matrix m;
  merge_outcome a = merge_report(m, example_report("h200-probe.json"));
  merge_outcome b = merge_report(m, example_report("h200-quant-probes.json"));
  merge_outcome c = merge_report(m, example_report("h200-gpu-hang.json"));
  ASSERT_TRUE(a.merged && b.merged && c.merged);
  ASSERT_EQ(m.rows.size(), 1u);
  const matrix_row& r = m.rows[0];
  EXPECT_EQ(a.cells, 22);
  EXPECT_EQ(c.cells, 2);  // selftest.gpu_hang hangs on purpose: not a fact about the stack
  EXPECT_EQ(r.cell("selftest.gpu_hang"), nullptr);
  ASSERT_NE(r.cell("quant.nf4"), nullptr);
  EXPECT_EQ(r.cell("quant.nf4")->runs, 2);
  // h200-probe.json (2026-12-02) failed NF4; h200-quant-probes.json (2026-12-03, after the
  // threshold fix) passes: the cell holds the latest run's status.
  EXPECT_EQ(r.cell("quant.nf4")->status, "pass");
  EXPECT_EQ(r.cell("device.visible")->runs, 3);
  EXPECT_EQ(r.cell("py.bnb.load")->status, "skip");
  EXPECT_EQ(m.reports.size(), 3u);
  EXPECT_TRUE(std::is_sorted(r.cells.begin(), r.cells.end(),
                             [](const matrix_cell& x, const matrix_cell& y) { return x.probe < y.probe; }));
}

TEST(MatrixMerge, ResubmittedReportIsNotCountedTwice) {
  compat_matrix m;
  json r = example_report("h200-probe.json");
  ASSERT_TRUE(merge_report(m, r).merged);
  // The same report re-read from an issue attachment: other whitespace, same content.
  json again = json::parse(r.dump(4));
  merge_outcome o = merge_report(m, again);
  EXPECT_FALSE(o.merged);
  EXPECT_TRUE(o.duplicate);
  EXPECT_EQ(m.rows[0].cell("device.visible")->runs, 1);
  // One changed byte is another report.
  again["created_utc"] = "2026-12-03T00:00:00Z";
  EXPECT_TRUE(merge_report(m, again).merged);
  EXPECT_EQ(m.rows[0].cell("device.visible")->runs, 2);
}

TEST(MatrixMerge, NewestStatusWinsWhateverTheOrder) {
  json older = tiny_report("gfx1201", {{"triton", "3.6.0"}}, {{"fla.native.stages2", "pass"}}, "2026-11-01T00:00:00Z");
  json newer = tiny_report("gfx1201", {{"triton", "3.6.0"}}, {{"fla.native.stages2", "hang"}}, "2026-12-01T00:00:00Z");
  for (bool newer_first : {false, true}) {
    compat_matrix m;
    merge_report(m, newer_first ? newer : older);
    merge_report(m, newer_first ? older : newer);
    ASSERT_EQ(m.rows.size(), 1u);
    const matrix_cell* c = m.rows[0].cell("fla.native.stages2");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->status, "hang") << newer_first;
    EXPECT_EQ(c->date, "2026-12-01T00:00:00Z");
    EXPECT_EQ(c->runs, 2);
    EXPECT_EQ(c->detail, "fla.native.stages2 said hang");
  }
}

TEST(MatrixMerge, DifferentStacksDifferentRows) {
  compat_matrix m;
  merge_report(m, tiny_report("gfx1201", {{"triton", "3.6.0"}}, {{"fla.native.stages2", "hang"}}));
  merge_report(m, tiny_report("gfx1201", {{"triton", "3.7.1"}}, {{"fla.native.stages2", "pass"}}));
  json capped = tiny_report("gfx1201", {{"triton", "3.6.0"}}, {{"fla.native.stages2", "pass"}});
  capped["settings"] = {{"num_stages_cap", "1"}};
  merge_report(m, capped);
  EXPECT_EQ(m.rows.size(), 3u);
}

TEST(MatrixMerge, CheckReportsAndJunk) {
  compat_matrix m;
  merge_outcome o = merge_report(m, example_report("h200-check.json"));
  EXPECT_TRUE(o.merged);  // remembered (hash), but no probes: no row
  EXPECT_EQ(o.cells, 0);
  EXPECT_TRUE(m.rows.empty());
  EXPECT_FALSE(merge_report(m, json::array()).error.empty());
  EXPECT_FALSE(merge_report(m, json{{"schema_version", 2}, {"probes", json::array()}}).error.empty());
  json bad_probes = tiny_report("sm_90", json::object(), {{"a", "pass"}});
  bad_probes["probes"].push_back({{"id", 7}, {"status", "pass"}});
  bad_probes["probes"].push_back({{"id", "x"}, {"status", "exploded"}});
  o = merge_report(m, bad_probes);
  EXPECT_EQ(o.cells, 1);  // the malformed entries are skipped, the good one kept
}

TEST(MatrixMerge, CpuReferenceResultsMakeNoStackKnownGoodOrBad) {
  // `probe --device cpu` on a GPU machine: the native steps ran gpustack's CPU references.
  json cpu_run = tiny_report("gfx1201", json::object(), {{"tensor.vector_add", "pass"}, {"gemm.bf16", "fail"}, {"fla.verdict", "pass"}});
  for (json& p : cpu_run["probes"])
    if (p["id"] != "fla.verdict") p["data"]["device"] = {{"arch", "cpu"}, {"backend", "cpu"}};
  compat_matrix m;
  merge_outcome o = merge_report(m, cpu_run);
  EXPECT_EQ(o.cells, 0);
  EXPECT_EQ(o.left_out, 3) << "the verdict sums up CPU steps only";
  EXPECT_NE(o.left_out_why.find("CPU references"), std::string::npos) << o.left_out_why;
  EXPECT_TRUE(m.rows.empty());
  // The same report from a machine without a GPU (gpus: []): nothing about a GPU stack.
  json no_gpu = tiny_report("gfx1201", json::object(), {{"tensor.vector_add", "pass"}, {"fla.verdict", "pass"}}, "2026-12-02T11:00:00Z");
  no_gpu["gpus"] = json::array();
  o = merge_report(m, no_gpu);
  EXPECT_EQ(o.cells, 0);
  EXPECT_NE(o.left_out_why.find("without a GPU"), std::string::npos) << o.left_out_why;
  EXPECT_TRUE(m.rows.empty());
  // train-smoke --device cpu says so as a plain string.
  json smoke = tiny_report("sm_90", json::object(), {{"train.smoke", "pass"}}, "2026-12-02T12:00:00Z");
  smoke["probes"][0]["data"]["device"] = "cpu";
  EXPECT_EQ(merge_report(m, smoke).cells, 0);
  // A GPU step beside a CPU one: the GPU step and the verdict are kept, the CPU one left out.
  json mixed = tiny_report("sm_90", json::object(), {{"fla.native.stages1", "pass"}, {"fla.triton.stages1", "pass"}, {"fla.verdict", "pass"}},
                           "2026-12-02T13:00:00Z");
  mixed["probes"][0]["data"]["device"] = {{"arch", "cpu"}, {"backend", "cpu"}};
  o = merge_report(m, mixed);
  EXPECT_EQ(o.cells, 2);
  EXPECT_EQ(o.left_out, 1);
  ASSERT_EQ(m.rows.size(), 1u);
  EXPECT_EQ(m.rows[0].cell("fla.native.stages1"), nullptr);
}

TEST(MatrixMerge, MatricesFoldRowByRow) {
  compat_matrix a, b;
  merge_report(a, tiny_report("gfx1201", {{"triton", "3.6.0"}}, {{"p", "pass"}}, "2026-11-01T00:00:00Z"));
  merge_report(b, tiny_report("gfx1201", {{"triton", "3.6.0"}}, {{"p", "fail"}, {"q", "pass"}}, "2026-12-01T00:00:00Z"));
  merge_report(b, tiny_report("sm_90", {{"triton", "3.6.0"}}, {{"p", "pass"}}));
  merge_matrix(a, b);
  ASSERT_EQ(a.rows.size(), 2u);
  EXPECT_EQ(a.rows[0].cell("p")->status, "fail");
  EXPECT_EQ(a.rows[0].cell("p")->runs, 2);
  EXPECT_NE(a.rows[0].cell("q"), nullptr);
  EXPECT_EQ(a.reports.size(), 3u);
}

TEST(MatrixMerge, Verdicts) {
  matrix_row r;
  EXPECT_EQ(verdict_of(r), row_verdict::unknown);
  r.cells = {{"a", "skip", "", 1, ""}};
  EXPECT_EQ(verdict_of(r), row_verdict::unknown);
  r.cells.push_back({"b", "warn", "", 1, ""});
  EXPECT_EQ(verdict_of(r), row_verdict::good);
  for (const char* s : {"fail", "hang", "crash", "error"}) {
    matrix_row x = r;
    x.cells.push_back({"c", s, "", 1, ""});
    EXPECT_EQ(verdict_of(x), row_verdict::bad) << s;
  }
}

}  // namespace
}  // namespace gs
