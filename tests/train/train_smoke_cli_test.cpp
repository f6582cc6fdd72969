// `gpustack train-smoke` through the built binary: on this torch-less machine a clean skip with
// the reason (exit 0) in a schema-v1 report with one `train_smoke.<model>` entry, plain progress
// lines on a non-terminal stderr; bad arguments exit 2 with the reason (unknown model with close
// names, --layers 0, a --layers that breaks the pattern, no --model).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "support/run_binary.h"

namespace gs {
namespace {

using cli_out = gs::testing::run_output;

TEST(TrainSmokeCli, WithoutTorchItIsACleanSkipWithTheReason) {
  std::optional<cli_out> ran = gs::testing::run_without_torch("train-smoke --model qwen3.5-0.8b --layers 4 --no-matrix");
  if (!ran) GTEST_SKIP() << "this Python has torch";
  const cli_out& r = *ran;
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("train-smoke: import"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\r"), std::string::npos) << "a non-terminal gets plain lines, no redraws";
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["tool"]["command"], "train-smoke");
  ASSERT_EQ(j["probes"].size(), 1u);
  const nlohmann::json& p = j["probes"][0];
  EXPECT_EQ(p["id"], "train_smoke.qwen3.5-0.8b");
  EXPECT_EQ(p["status"], "skip");
  EXPECT_EQ(p["detail"], "torch is not installed in " + gs::testing::torchless_python());
  EXPECT_EQ(p["data"]["model"]["layers"], 4);
  EXPECT_EQ(p["data"]["model"]["pattern"], "L L L F x1");
}

TEST(TrainSmokeCli, BadArgumentsExitTwoWithTheReason) {
  cli_out r = gs::testing::run_gpustack("train-smoke --model qwen3.5-08b --no-matrix");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown model 'qwen3.5-08b' (did you mean qwen3.5-0.8b"), std::string::npos) << r.err;
  r = gs::testing::run_gpustack("train-smoke --model qwen3.5-0.8b --layers 0 --no-matrix");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--layers"), std::string::npos) << r.err;
  r = gs::testing::run_gpustack("train-smoke --model qwen3.5-0.8b --layers 6 --no-matrix");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("multiple of 4"), std::string::npos) << r.err;
  r = gs::testing::run_gpustack("train-smoke --layers 4");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--model"), std::string::npos) << r.err;
  r = gs::testing::run_gpustack("train-smoke --model qwen3.5-0.8b --weights /nonexistent/ckpt --no-matrix");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--weights: /nonexistent/ckpt is not a directory"), std::string::npos) << r.err;
}

TEST(TrainSmokeCli, HelpNamesEveryOption) {
  cli_out r = gs::testing::run_gpustack("train-smoke --help");
  EXPECT_EQ(r.rc, 0);
  for (const char* opt : {"--model", "--layers", "--width-scale", "--seq", "--batch", "--steps", "--no-grad-ckpt",
                          "--weights", "--python", "--venv", "--timeout", "--json", "-o,--output"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}

}  // namespace
}  // namespace gs
