// The matrix and report commands through the binary: exit codes, dedupe, a corrupt matrix left
// untouched, `check`'s matrix_position on the gfx1201 fixture machine (schema-valid), and
// `report diff` exiting 1 on a regression.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "matrix_test_util.h"
#include "support/files.h"
#include "support/report_schema.h"
#include "support/run_binary.h"

namespace gs {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using cli_result = gs::testing::run_output;

class MatrixCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gs-matrix-cli-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  cli_result run(const std::string& args) { return gs::testing::run_gpustack(args); }
  std::string write(const std::string& name, const json& j) {
    std::string p = (dir_ / name).string();
    std::ofstream(p) << j.dump(2);
    return p;
  }
  fs::path dir_;
  const std::string ex_ = std::string(GPUSTACK_SOURCE_DIR) + "/reports/examples/";
};

TEST_F(MatrixCli, MergeDedupesAndNamesBadInputs) {
  std::string m = (dir_ / "m.toml").string();
  cli_result r = run("matrix merge --matrix '" + m + "' '" + ex_ + "h200-probe.json' '" + ex_ + "h200-probe.json' '" + ex_ +
                     "h200-check.md'");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("already merged"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 merged, 1 already there, 0 unreadable"), std::string::npos) << r.err;
  std::string before = gs::test::read_file(m);
  r = run("matrix merge --matrix '" + m + "' '" + ex_ + "h200-probe.json' '" + ex_ + "h200-timing.json' /nonexistent-gs.json");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("h200-timing.json: not a gpustack report"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot read /nonexistent-gs.json"), std::string::npos) << r.err;
  EXPECT_EQ(gs::test::read_file(m), before);  // nothing new merged: the file is not rewritten
  r = run("matrix show --matrix '" + m + "' --no-shipped --markdown");
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out.rfind("# gpustack compatibility matrix", 0), 0u);
  EXPECT_NE(r.out.find("| `py.torch` | pass | 1 |"), std::string::npos) << r.out;
}

TEST_F(MatrixCli, CorruptMatrixIsAnErrorAndUntouched) {
  std::string m = (dir_ / "m.toml").string();
  std::ofstream(m) << "schema = 1\nreports = [\"unterminated\n";
  std::string before = gs::test::read_file(m);
  cli_result r = run("matrix merge --matrix '" + m + "' '" + ex_ + "h200-probe.json'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(m + ":2:"), std::string::npos) << r.err;
  EXPECT_EQ(gs::test::read_file(m), before);
  r = run("matrix show --matrix '" + m + "'");
  EXPECT_EQ(r.rc, 2);
  r = run("matrix show --matrix '" + (dir_ / "absent.toml").string() + "'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(run("matrix").rc, 2);
  EXPECT_EQ(run("matrix merge").rc, 2);
}

TEST_F(MatrixCli, CheckPlacesTheGfx1201FixtureStack) {
  std::string fixture = std::string(GPUSTACK_TEST_FIXTURES) + "/machines/r9700-rocm72";
  cli_result r = run("check --json --sysroot '" + fixture + "' --matrix '" +
                     (dir_ / "none.toml").string() + "'");
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_TRUE(gs::testing::matches_report_schema(j));
  const json& pos = j["matrix_position"];
  EXPECT_EQ(pos["fingerprint"]["arch"], "gfx1201");
  EXPECT_EQ(pos["fingerprint"]["flash-linear-attention"], "0.5.0");
  EXPECT_EQ(pos["verdict"], "known_bad") << pos.dump(2);
  EXPECT_EQ(pos["failed"][0]["probe"], "train_smoke.qwen3.5-0.8b");
  EXPECT_EQ(pos["nearest_known_good"]["differences"][0]["component"], "num_stages_cap");
  bool finding = false;
  for (const json& f : j["findings"]) finding |= f["id"] == "GS-MATRIX-001";
  EXPECT_TRUE(finding);
  r = run("check --sysroot '" + fixture + "' --no-color --matrix '" + (dir_ / "none.toml").string() + "'");
  EXPECT_NE(r.out.find("Matrix  known bad"), std::string::npos) << r.out;
}

TEST_F(MatrixCli, ReportDiffExitCodes) {
  json a = gs::testing::tiny_report("gfx1201", {{"triton", "3.5.1"}}, {{"fla.native.stages2", "pass"}});
  json b = gs::testing::tiny_report("gfx1201", {{"triton", "3.6.0"}}, {{"fla.native.stages2", "hang"}});
  std::string pa = write("a.json", a), pb = write("b.json", b);
  cli_result r = run("report diff '" + pa + "' '" + pb + "'");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("1. triton 3.5.1 -> 3.6.0: fla.native.stages2"), std::string::npos) << r.out;
  r = run("report diff '" + pb + "' '" + pa + "' --json");
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(json::parse(r.out)["regressed"], false);
  EXPECT_EQ(run("report diff '" + pa + "' /nonexistent-gs.json").rc, 2);
  r = run("report diff '" + pa + "' '" + pb + "' --markdown");
  EXPECT_NE(r.out.find("### Suspects"), std::string::npos);
}

TEST_F(MatrixCli, ReportShowReadsJsonAndMarkdown) {
  cli_result r = run("report show '" + ex_ + "h200-check.md' --no-color");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("NVIDIA H200"), std::string::npos);
  r = run("report show '" + ex_ + "h200-probe.json' --markdown");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("| `py.torch` |"), std::string::npos);
  EXPECT_EQ(run("report show '" + ex_ + "h200-timing.json'").rc, 2);
  // Something else with schema_version 1 is not printed as an empty report.
  std::string odd = write("odd.json", json{{"schema_version", 1}, {"probes", "x"}});
  r = run("report show '" + odd + "'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("not a gpustack report"), std::string::npos) << r.err;
  json fake = gs::testing::tiny_report("gfx1201", json::object(), {{"a", "pass"}});
  fake["probes"] = "x";
  r = run("report show '" + write("fake.json", fake) + "'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("'probes' is string, not a list"), std::string::npos) << r.err;
  // A file that cannot be read says why.
  r = run("report show /nonexistent-gs.json");
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gs
