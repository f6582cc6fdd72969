// `gpustack probe fla` through the built binary: bad ranges and shapes are usage errors (exit 2)
// that say what is wrong; the native backend runs on the cpu device at each depth with a
// verdict; the Python backends skip cleanly with the reason on a Python without torch; and
// `gpustack probe <ids>` still works beside the nested subcommand.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "support/run_binary.h"

namespace gs {
namespace {

using cli_out = gs::testing::run_output;

const nlohmann::json* probe(const nlohmann::json& report, const std::string& id) {
  for (const nlohmann::json& p : report["probes"])
    if (p["id"] == id) return &p;
  return nullptr;
}

TEST(FlaCli, BadArgumentsExitTwoAndSayWhy) {
  cli_out r = gs::testing::run_gpustack("probe fla --stages 4..1");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--stages"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("backwards"), std::string::npos) << r.err;
  r = gs::testing::run_gpustack("probe fla --stages 0");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("outside"), std::string::npos) << r.err;
  r = gs::testing::run_gpustack("probe fla --backends native,cudnn");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown backend 'cudnn'"), std::string::npos) << r.err;
  r = gs::testing::run_gpustack("probe fla --heads 3 --value-heads 4");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("multiple"), std::string::npos) << r.err;
  r = gs::testing::run_gpustack("probe fla --dtype fp8");
  EXPECT_EQ(r.rc, 2);
  r = gs::testing::run_gpustack("probe fla --head-dim-k 512");
  EXPECT_EQ(r.rc, 2);
}

TEST(FlaCli, NativeOnTheCpuAtEachDepthWithAVerdict) {
  cli_out r = gs::testing::run_gpustack(
      "probe fla --device cpu --backends native --stages 1..3 --batch 1 --seq 70 --heads 1 --value-heads 2 "
      "--head-dim-k 16 --head-dim-v 8 --json --no-matrix");
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json rep = nlohmann::json::parse(r.out);
  for (int s = 1; s <= 3; ++s) {
    const nlohmann::json* p = probe(rep, "fla.native.stages" + std::to_string(s));
    ASSERT_NE(p, nullptr) << s;
    EXPECT_EQ((*p)["status"], "pass") << (*p)["detail"];
    EXPECT_EQ((*p)["data"]["stage"], s);
    EXPECT_TRUE((*p)["data"]["rel_err"].is_number());
  }
  const nlohmann::json* v = probe(rep, "fla.verdict");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ((*v)["data"]["backends"]["native"]["highest_safe_num_stages"], 3);
  EXPECT_EQ((*v)["data"]["tritons_fault"], false);
  // Progress on stderr, one line per step, and the verdict.
  EXPECT_NE(r.err.find("[1/3] fla.native.stages1 ... pass"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("verdict: native: every stage passed"), std::string::npos) << r.err;
}

TEST(FlaCli, PythonBackendsSkipCleanlyWithoutTorch) {
  std::optional<cli_out> ran = gs::testing::run_without_torch("probe fla --backends triton,fla --stages 1..2 --no-matrix");
  if (!ran) GTEST_SKIP() << "this Python has torch";
  const cli_out& r = *ran;
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json rep = nlohmann::json::parse(r.out);
  for (const char* id : {"fla.triton.stages1", "fla.fla.stages1", "fla.triton.stages2", "fla.fla.stages2"}) {
    const nlohmann::json* p = probe(rep, id);
    ASSERT_NE(p, nullptr) << id;
    EXPECT_EQ((*p)["status"], "skip") << id << ": " << (*p)["detail"];
    EXPECT_FALSE((*p)["detail"].get<std::string>().empty()) << id;
  }
  const nlohmann::json* v = probe(rep, "fla.verdict");
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE((*v)["data"]["backends"]["triton"]["highest_safe_num_stages"].is_null());
}

TEST(FlaCli, PlainProbeIdsStillWork) {
  cli_out r = gs::testing::run_gpustack("probe selftest.pass --json");
  EXPECT_EQ(r.rc, 0) << r.err;
  nlohmann::json rep = nlohmann::json::parse(r.out);
  EXPECT_NE(probe(rep, "selftest.pass"), nullptr);
  EXPECT_EQ(probe(rep, "fla.verdict"), nullptr);
}

}  // namespace
}  // namespace gs
