// Output a user can copy: tables whose columns line up, units named, whole lines.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace gs {
namespace {

using gs::testing::run_gpustack;

TEST(OutputShape, EstimateColumnsLineUpAndSayGiB) {
  gs::testing::run_output o = run_gpustack("estimate --model gemma4-31b --vram 24 --ram 128 --disk 500");
  ASSERT_NE(o.out.find("logits: bf16 + soft-cap tanh"), std::string::npos) << o.out;
  std::set<size_t> ends;  // where the size column ends on every row that has one
  std::istringstream in(o.out);
  for (std::string line; std::getline(in, line) && line.rfind("verdict:", 0) != 0;) {
    size_t p = line.find(" GiB");
    if (line.rfind("  ", 0) == 0 && p != std::string::npos && p < 90 && line.find(" GB") == std::string::npos) ends.insert(p);
  }
  EXPECT_EQ(ends.size(), 1u) << o.out;
  EXPECT_EQ(o.out.find("conv1d"), std::string::npos) << "Gemma has no linear-attention layers";
  EXPECT_NE(o.out.find("norms (bf16)"), std::string::npos);
  EXPECT_NE(o.out.find("exceeds 24.0 GiB"), std::string::npos) << o.out;
}


TEST(OutputShape, EveryReportingCommandTakesTheSameOutputOptions) {
  // The H200 script's `estimate ... --json -o FILE` failed: estimate alone took no -o.
  for (const char* cmd : {"check", "probe", "probe fla", "explain", "estimate", "train-smoke", "inspect"}) {
    gs::testing::run_output o = run_gpustack(std::string(cmd) + " --help");
    for (const char* opt : {"--json", "--markdown", "-o,--output", "--include-identifiers"})
      EXPECT_NE(o.out.find(opt), std::string::npos) << cmd << " --help lacks " << opt;
  }
  std::string file = ::testing::TempDir() + "gpustack_estimate_o.json";
  std::remove(file.c_str());
  gs::testing::run_output o = run_gpustack("estimate --model qwen3.5-0.8b --vram 24 --ram 64 --disk 100 --json -o " + file);
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_EQ(o.out, "") << "the report goes to the file";
  std::FILE* f = std::fopen(file.c_str(), "r");
  ASSERT_NE(f, nullptr) << o.err;
  char head[2] = {0, 0};
  EXPECT_EQ(std::fread(head, 1, 1, f), 1u);
  std::fclose(f);
  EXPECT_EQ(head[0], '{');
}

}  // namespace
}  // namespace gs

namespace gs {
namespace {

TEST(OutputShape, EveryCommandWithPythonStepsTakesFresh) {
  for (const char* cmd : {"probe", "probe fla", "train-smoke"}) {
    gs::testing::run_output o = gs::testing::run_gpustack(std::string(cmd) + " --help");
    EXPECT_NE(o.out.find("--fresh"), std::string::npos) << cmd << ":\n" << o.out;
  }
}

TEST(OutputShape, TheReportSaysHowThePythonStepsRanAndWhereTheTimeWent) {
  for (const bool fresh : {false, true}) {
    gs::testing::run_output o =
        gs::testing::run_gpustack(std::string("probe selftest.py.pass --no-matrix --json") + (fresh ? " --fresh" : ""));
    ASSERT_NE(o.rc, 2) << o.err;  // findings about this machine may make it 1; the step itself passes
    nlohmann::json r = nlohmann::json::parse(o.out);
    ASSERT_EQ(r["probes"][0]["status"], "pass") << o.out;
    EXPECT_EQ(r["run"]["python_steps"], fresh ? "fresh" : "warm") << r["run"].dump();
    EXPECT_GE(r["run"]["wall_s"].get<double>(), r["run"]["import_s"].get<double>());
    const nlohmann::json& step = r["probes"][0]["data"];
    EXPECT_EQ(step["worker"]["mode"], fresh ? "fresh" : "forked") << step.dump();
    EXPECT_TRUE(step.contains("import_s") && step.contains("run_s")) << step.dump();
    // One sentence on stderr with the same figures (say_run_timing).
    EXPECT_NE(o.err.find("s in all; the steps spent"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find(fresh ? "each in a fresh interpreter" : "in a warm worker"), std::string::npos) << o.err;
  }
}

}  // namespace
}  // namespace gs
