// Stack fingerprints: the real H200 report, aliases (pytorch-triton-rocm is "triton"), several
// GPUs, settings and env, and the version-prefix matching rows use.
#include <gtest/gtest.h>

#include "matrix/matrix.h"
#include "matrix_test_util.h"

namespace gs {
namespace {

using gs::testing::example_report;
using gs::testing::tiny_report;
using nlohmann::json;

TEST(MatrixFingerprint, RealH200Report) {
  fingerprint fp = fingerprint_of(example_report("h200-probe.json"));
  EXPECT_EQ(fp["arch"], "sm_90");
  EXPECT_EQ(fp["driver"], "580.159.04");
  EXPECT_EQ(fp["cuda"], "13.0");
  EXPECT_EQ(fp["rocm"], "");
  EXPECT_EQ(fp["torch"], "2.11.0");
  EXPECT_EQ(fp["triton"], "3.6.0");
  EXPECT_EQ(fp["transformers"], "5.17.0");
  EXPECT_EQ(fp["peft"], "0.21.0");
  EXPECT_EQ(fp["bitsandbytes"], "");  // not installed in that run
  EXPECT_EQ(fp["num_stages_cap"], "");
  // Every component of the table is present, nothing else.
  EXPECT_EQ(fp.size(), fingerprint_components().size());
}

TEST(MatrixFingerprint, SameStackSameIdAcrossReports) {
  // The probe and the quant runs were minutes apart on one machine: one row.
  EXPECT_EQ(fingerprint_id(fingerprint_of(example_report("h200-probe.json"))),
            fingerprint_id(fingerprint_of(example_report("h200-quant-probes.json"))));
  EXPECT_EQ(fingerprint_id(fingerprint_of(example_report("h200-probe.json"))).size(), 10u);
}

TEST(MatrixFingerprint, AliasesAndUnnormalisedNames) {
  json r = tiny_report("gfx1201", {{"pytorch-triton-rocm", "3.6.0+rocm7.2"}, {"fla_core", "0.5.0"}, {"Causal_Conv1d", "1.6.2.post1"}},
                       json::object());
  fingerprint fp = fingerprint_of(r);
  EXPECT_EQ(fp["triton"], "3.6.0+rocm7.2");
  EXPECT_EQ(fp["flash-linear-attention"], "0.5.0");
  EXPECT_EQ(fp["causal-conv1d"], "1.6.2.post1");
  EXPECT_EQ(fp["rocm"], "7.2.0");
  EXPECT_EQ(fp["cuda"], "");
}

TEST(MatrixFingerprint, SeveralGpusSettingsAndEnv) {
  json r = tiny_report("gfx1201", json::object(), json::object());
  r["gpus"].push_back({{"arch", "gfx1100"}});
  r["gpus"].push_back({{"arch", "gfx1201"}});  // the same arch twice counts once
  r["env"]["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0";
  r["settings"] = {{"num_stages_cap", "1"}};
  fingerprint fp = fingerprint_of(r);
  EXPECT_EQ(fp["arch"], "gfx1201+gfx1100");
  EXPECT_EQ(fp["HSA_OVERRIDE_GFX_VERSION"], "11.0.0");
  EXPECT_EQ(fp["num_stages_cap"], "1");
  r["settings"]["num_stages_cap"] = "2";
  EXPECT_NE(fingerprint_id(fingerprint_of(r)), fingerprint_id(fp));
}

TEST(MatrixFingerprint, MalformedReportsGiveEmptyValues) {
  for (const json& j : {json(nullptr), json::array(), json{{"gpus", 3}, {"stack", "x"}}}) {
    fingerprint fp = fingerprint_of(j);
    for (const auto& [k, v] : fp) EXPECT_EQ(v, "") << k;
  }
}

TEST(MatrixFingerprint, ValueMatching) {
  EXPECT_TRUE(value_matches("*", "anything"));
  EXPECT_TRUE(value_matches("*", ""));
  EXPECT_TRUE(value_matches("", ""));
  EXPECT_FALSE(value_matches("", "1"));
  EXPECT_FALSE(value_matches("1", ""));
  EXPECT_TRUE(value_matches("7.2", "7.2.1"));
  EXPECT_TRUE(value_matches("2.11.0", "2.11.0+cu130"));
  EXPECT_TRUE(value_matches("7.2", "7.2-26015"));
  EXPECT_FALSE(value_matches("7.2", "7.20"));   // a prefix must end at a boundary
  EXPECT_FALSE(value_matches("7.2.1", "7.2"));  // a row is never looser than it says
  EXPECT_FALSE(value_matches("2.11.0+rocm7.2", "2.11.0"));
}

TEST(MatrixFingerprint, ComponentTableIsWellFormed) {
  const auto& t = fingerprint_components();
  ASSERT_GE(t.size(), 12u);
  EXPECT_EQ(t.front().name, "arch");
  for (const char* want : {"driver", "rocm", "cuda", "torch", "triton", "bitsandbytes", "flash-linear-attention",
                           "causal-conv1d", "transformers", "peft", "trl", "num_stages_cap"})
    EXPECT_TRUE(std::any_of(t.begin(), t.end(), [&](const fingerprint_component& c) { return c.name == want; })) << want;
}

}  // namespace
}  // namespace gs
