// Output a user can copy: tables whose columns line up, units named, whole lines.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <sstream>

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
