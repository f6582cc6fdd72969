// The quantization_config checker on checkpoint fixtures (tests/fixtures/train/ckpt_*): a
// transformers-written NF4 config matches; fp4 / no double quant / fp16 compute / decoder Linears
// kept 16-bit / an explicit list without lm_head each differ with both values and the effect;
// another quant method is one difference; a bf16 checkpoint has nothing to check; directories
// without config.json or safetensors are refused with the reason.
#include <gtest/gtest.h>

#include <algorithm>

#include "train/quant_config_check.h"
#include "support/files.h"

namespace gs {
namespace {

using gs::test::fixture_dir;

const std::vector<std::string> kQwenLinears = {"in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a", "out_proj",
                                               "q_proj",      "k_proj",    "v_proj",    "o_proj",    "gate_proj",
                                               "up_proj",     "down_proj"};

quant_config_check check_dir(const std::string& name) {
  std::string err;
  std::optional<checkpoint_dir> c = read_checkpoint_dir(fixture_dir("train") + name, &err);
  EXPECT_TRUE(c) << err;
  return c ? check_quant_config(c->config, kQwenLinears) : quant_config_check{};
}

const quant_difference* find(const quant_config_check& c, const std::string& field, const std::string& pipeline = "") {
  for (const quant_difference& d : c.differences)
    if (d.field == field && (pipeline.empty() || d.pipeline.find(pipeline) != std::string::npos)) return &d;
  return nullptr;
}

TEST(QuantConfigCheck, TransformersNf4ConfigMatches) {
  quant_config_check c = check_dir("ckpt_nf4_match");
  EXPECT_TRUE(c.present);
  EXPECT_TRUE(c.matches) << c.to_json().dump(2);
  EXPECT_TRUE(c.differences.empty());
  EXPECT_NE(c.summary().find("matches the pipeline"), std::string::npos);
  EXPECT_EQ(c.to_json()["checkpoint"]["bnb_4bit_quant_type"], "nf4");
}

TEST(QuantConfigCheck, EachDifferingFieldIsNamedWithBothValuesAndItsEffect) {
  quant_config_check c = check_dir("ckpt_fp4_differs");
  EXPECT_TRUE(c.present);
  EXPECT_FALSE(c.matches);
  const quant_difference* qt = find(c, "bnb_4bit_quant_type");
  ASSERT_TRUE(qt);
  EXPECT_EQ(qt->checkpoint, "\"fp4\"");
  EXPECT_EQ(qt->pipeline, "\"nf4\"");
  // Absent key: transformers' default (no double quant) applies, and the effect is memory.
  const quant_difference* dq = find(c, "bnb_4bit_use_double_quant");
  ASSERT_TRUE(dq);
  EXPECT_EQ(dq->checkpoint, "absent");
  EXPECT_NE(dq->effect.find("0.5625"), std::string::npos) << dq->effect;
  const quant_difference* cd = find(c, "bnb_4bit_compute_dtype");
  ASSERT_TRUE(cd);
  EXPECT_EQ(cd->checkpoint, "\"float16\"");
  EXPECT_NE(cd->effect.find("overflow"), std::string::npos);
  // Skips naming a decoder Linear and a whole decoder layer keep them 16-bit.
  const quant_difference* sk = find(c, "llm_int8_skip_modules", "only lm_head");
  ASSERT_TRUE(sk);
  EXPECT_NE(sk->effect.find("mlp.down_proj"), std::string::npos) << sk->effect;
  EXPECT_NE(sk->effect.find("model.layers.0"), std::string::npos) << sk->effect;
  // lm_head is in the list, so no "quantizes lm_head" difference.
  EXPECT_FALSE(find(c, "llm_int8_skip_modules", "naming lm_head"));
  // Storage absent -> uint8 default: no difference.
  EXPECT_FALSE(find(c, "bnb_4bit_quant_storage"));
  EXPECT_EQ(c.differences.size(), 4u) << c.to_json().dump(2);
  EXPECT_NE(c.summary().find("bnb_4bit_quant_type (\"fp4\")"), std::string::npos) << c.summary();
}

TEST(QuantConfigCheck, AnExplicitListWithoutLmHeadQuantizesItToo) {
  nlohmann::json cfg = {{"quantization_config",
                         {{"quant_method", "bitsandbytes"}, {"load_in_4bit", true}, {"bnb_4bit_quant_type", "nf4"},
                          {"bnb_4bit_use_double_quant", true}, {"bnb_4bit_compute_dtype", "torch.bfloat16"},
                          {"bnb_4bit_quant_storage", "bfloat16"}, {"llm_int8_skip_modules", {"visual"}}}}};
  quant_config_check c = check_quant_config(cfg, kQwenLinears);
  EXPECT_FALSE(c.matches);
  // "torch.bfloat16" (older transformers) is bf16: no compute difference.
  EXPECT_FALSE(find(c, "bnb_4bit_compute_dtype"));
  EXPECT_TRUE(find(c, "bnb_4bit_quant_storage"));
  const quant_difference* lm = find(c, "llm_int8_skip_modules", "naming lm_head");
  ASSERT_TRUE(lm) << c.to_json().dump(2);
  EXPECT_NE(lm->effect.find("lm_head"), std::string::npos);
  // "visual" is outside the decoder: not a decoder skip.
  EXPECT_FALSE(find(c, "llm_int8_skip_modules", "only lm_head"));
  EXPECT_EQ(c.differences.size(), 2u);
}

TEST(QuantConfigCheck, AnotherMethodOrEightBitIsOneDifference) {
  quant_config_check c = check_dir("ckpt_gptq");
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(c.differences[0].field, "quant_method");
  EXPECT_EQ(c.differences[0].checkpoint, "\"gptq\"");
  nlohmann::json eight = {{"quantization_config", {{"quant_method", "bitsandbytes"}, {"load_in_8bit", true}}}};
  quant_config_check e = check_quant_config(eight, kQwenLinears);
  ASSERT_EQ(e.differences.size(), 1u);
  EXPECT_EQ(e.differences[0].field, "load_in_4bit");
  EXPECT_NE(e.differences[0].effect.find("LLM.int8"), std::string::npos);
}

TEST(QuantConfigCheck, ABf16CheckpointHasNothingToCheck) {
  quant_config_check c = check_dir("ckpt_bf16");
  EXPECT_FALSE(c.present);
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(c.differences.empty());
  EXPECT_NE(c.summary().find("quantizes the bf16 weights itself"), std::string::npos);
  EXPECT_TRUE(c.to_json()["checkpoint"].is_null());
}

TEST(QuantConfigCheck, BadDirectoriesAreRefusedWithTheReason) {
  std::string err;
  EXPECT_FALSE(read_checkpoint_dir(fixture_dir("train") + "ckpt_no_safetensors", &err));
  EXPECT_NE(err.find("no *.safetensors"), std::string::npos) << err;
  EXPECT_FALSE(read_checkpoint_dir(fixture_dir("train") + "no_such_dir", &err));
  EXPECT_NE(err.find("is not a directory"), std::string::npos) << err;
  EXPECT_FALSE(read_checkpoint_dir(fixture_dir("train"), &err));  // the fixture root has no config.json
  EXPECT_NE(err.find("has no config.json"), std::string::npos) << err;
  std::optional<checkpoint_dir> ok = read_checkpoint_dir(fixture_dir("train") + "ckpt_bf16", &err);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->safetensors, std::vector<std::string>{"model.safetensors"});
}

}  // namespace
}  // namespace gs
