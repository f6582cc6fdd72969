// The model registry: the embedded files load, parameter counts match hand-computed totals from
// kernel-specs.md, bad TOML errors cite file:line:column, shrink keeps the layer pattern, and the
// HF config carries transformers 5.17's field names.
#include <gtest/gtest.h>

#include "models/model_registry.h"

#include "support/tiny_model.h"

namespace gs {
namespace {

const model_spec& get(std::string_view name) {
  const model_spec* m = find_model(builtin_model_registry(), name);
  if (!m) throw std::runtime_error("missing model " + std::string(name));
  return *m;
}

model_registry load_one(const std::string& text) { return load_model_registry({{"matrix/models/t.toml", text}}); }

TEST(ModelRegistry, BuiltinLoadsWithoutErrors) {
  const model_registry& reg = builtin_model_registry();
  for (const model_error& e : reg.errors) ADD_FAILURE() << e.describe();
  for (const char* n : {"qwen3.5-0.8b", "qwen3.5-27b", "gemma4-31b", "gemma3-27b"}) EXPECT_NE(find_model(reg, n), nullptr) << n;
}

TEST(ModelRegistry, FindByAliasCaseInsensitiveAndSuggest) {
  const model_registry& reg = builtin_model_registry();
  EXPECT_EQ(find_model(reg, "Qwen/Qwen3.5-0.8B"), find_model(reg, "qwen3.5-0.8b"));
  EXPECT_EQ(find_model(reg, "GOOGLE/GEMMA-4-31B-IT")->name, "gemma4-31b");
  std::vector<std::string> near;
  EXPECT_EQ(find_model(reg, "gemma4-31", &near), nullptr);
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near[0], "gemma4-31b");
  near.clear();
  EXPECT_EQ(find_model(reg, "qwen3.5-08b", &near), nullptr);
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near[0], "qwen3.5-0.8b");
}

TEST(ModelRegistry, Qwen35SmallLayerPatternAndParams) {
  const model_spec& m = get("qwen3.5-0.8b");
  ASSERT_EQ(m.layer_types.size(), 24u);
  EXPECT_EQ(m.count(layer_kind::full_attention), 6);
  EXPECT_EQ(m.count(layer_kind::linear_attention), 18);
  EXPECT_EQ(m.layer_types[3], layer_kind::full_attention);
  EXPECT_EQ(m.layer_types[0], layer_kind::linear_attention);
  param_counts p = count_params(m);
  // kernel-specs 5.2: embedding 248320*1024; full attention layer 7.34 M; GDN layer 10.54 M; MLP 11.01 M.
  EXPECT_EQ(p.embedding, 248320LL * 1024);
  EXPECT_EQ(p.lm_head, 0);
  // q 1024*8*256*2 + k,v 1024*2*256 each + o 2048*1024 = 7,340,032 per full layer.
  EXPECT_EQ(p.attention_linear, 6LL * 7340032);
  // in_proj_qkv 1024*6144 + z 1024*2048 + b,a 1024*16 each + out 2048*1024 = 10,518,528.
  EXPECT_EQ(p.linear_attn_linear, 18LL * 10518528);
  // conv1d 6144*4 + A_log 16 + dt_bias 16 + norm 128.
  EXPECT_EQ(p.linear_attn_small, 18LL * (6144 * 4 + 16 + 16 + 128));
  EXPECT_EQ(p.mlp_linear, 24LL * 3 * 1024 * 3584);
  EXPECT_NEAR(double(p.total()) / 1e9, 0.752, 0.002);
}

TEST(ModelRegistry, Gemma4ParamsMatchKernelSpecs) {
  const model_spec& m = get("gemma4-31b");
  EXPECT_EQ(m.count(layer_kind::full_attention), 10);
  EXPECT_EQ(m.count(layer_kind::sliding_attention), 50);
  EXPECT_EQ(m.layer_types.back(), layer_kind::full_attention);
  param_counts p = count_params(m);
  // kernel-specs 6.1: embedding 1,409,286,144; sliding attention 132,120,576; full 187,170,816;
  // MLP 346,816,512; Linear total 29,286,727,680; text total ~30.70 B.
  EXPECT_EQ(p.embedding, 1409286144LL);
  EXPECT_EQ(p.attention_linear, 50LL * 132120576 + 10LL * 187170816);
  EXPECT_EQ(p.mlp_linear, 60LL * 346816512);
  EXPECT_EQ(p.decoder_linear(), 29286727680LL);
  EXPECT_NEAR(double(p.total()) / 1e9, 30.70, 0.01);
}

TEST(ModelRegistry, LoraParamsHandComputed) {
  model_registry reg = load_one(test::kTinyModel);
  ASSERT_TRUE(reg.ok()) << reg.errors[0].describe();
  const model_spec& m = reg.models[0];
  // 3 linear layers + 1 full. q_proj only on the full layer: 16*(64 + 4*16*2);
  // in_proj_qkv on 3 linear layers: 16*(64 + 2*2*8 + 4*8); down_proj on all 4: 16*(128 + 64).
  EXPECT_EQ(lora_params(m, 16), 16 * (64 + 128) + 3 * 16 * (64 + 64) + 4 * 16 * (128 + 64));
}

TEST(ModelRegistry, MalformedTomlCitesPosition) {
  model_registry reg = load_one("name = \"x\"\nvocab_size = = 3\n");
  ASSERT_EQ(reg.errors.size(), 1u);
  EXPECT_EQ(reg.errors[0].file, "matrix/models/t.toml");
  EXPECT_EQ(reg.errors[0].line, 2);
  EXPECT_GT(reg.errors[0].column, 0);
  EXPECT_TRUE(reg.models.empty());
}

TEST(ModelRegistry, BadValuesCiteTheirPosition) {
  std::string t = test::kTinyModel;
  t.replace(t.find("hidden_size = 64"), 16, "hidden_size = \"64\"");
  model_registry reg = load_one(t);
  ASSERT_FALSE(reg.ok());
  EXPECT_EQ(reg.errors[0].line, 7);
  EXPECT_EQ(reg.errors[0].column, 15);
  EXPECT_NE(reg.errors[0].describe().find("matrix/models/t.toml:7:15: 'hidden_size' must be an integer"), std::string::npos)
      << reg.errors[0].describe();

  t = test::kTinyModel;
  t.replace(t.find("num_kv_heads = 2"), 16, "num_kv_heeds = 2");
  reg = load_one(t);
  ASSERT_FALSE(reg.ok());
  EXPECT_NE(reg.errors[0].message.find("did you mean 'num_kv_heads'"), std::string::npos) << reg.errors[0].describe();
  EXPECT_EQ(reg.errors[0].line, 19);

  t = test::kTinyModel;
  t.replace(t.find("\"q_proj\", \"in_proj_qkv\""), 23, "\"q_prj\", \"in_proj_qkv\"");
  reg = load_one(t);
  ASSERT_FALSE(reg.ok());
  EXPECT_NE(reg.errors[0].message.find("LoRA target 'q_prj'"), std::string::npos);
  EXPECT_NE(reg.errors[0].message.find("did you mean 'q_proj'"), std::string::npos);
  EXPECT_EQ(reg.errors[0].line, 29);
}

TEST(ModelRegistry, DuplicateNamesRejected) {
  model_registry reg = load_model_registry({{"a.toml", test::kTinyModel}, {"b.toml", test::kTinyModel}});
  EXPECT_EQ(reg.models.size(), 1u);
  ASSERT_EQ(reg.errors.size(), 1u);
  EXPECT_EQ(reg.errors[0].file, "b.toml");
}

TEST(ModelShrink, KeepsPatternRatioAndHeadDims) {
  const model_spec& m = get("qwen3.5-0.8b");
  std::string err;
  auto s = shrink(m, 8, 0.5, &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->num_layers, 8);
  EXPECT_EQ(s->count(layer_kind::full_attention), 2);
  EXPECT_EQ(s->count(layer_kind::linear_attention), 6);
  EXPECT_EQ(s->layer_types[3], layer_kind::full_attention);
  EXPECT_EQ(s->hidden_size, 512);
  EXPECT_EQ(s->intermediate_size, 1792);
  EXPECT_EQ(s->full_attention.head_dim, 256);
  EXPECT_EQ(s->full_attention.num_kv_heads, 1);
  EXPECT_EQ(s->full_attention.num_heads, 4);  // GQA group of 4 kept
  EXPECT_EQ(s->linear_attention.num_key_heads, 8);
  EXPECT_EQ(s->linear_attention.key_head_dim, 128);
  EXPECT_EQ(s->vocab_size, m.vocab_size);
  EXPECT_EQ(s->original_layers, 24);
  EXPECT_FALSE(shrink(m, 6, 1.0, &err));
  EXPECT_NE(err.find("multiple of 4"), std::string::npos) << err;
  EXPECT_FALSE(shrink(m, 4, 1.5, &err));
  EXPECT_FALSE(shrink(m, 28, 1.0, &err));
}

TEST(ModelShrink, GemmaKeepsSlidingRatioAndLastFull) {
  const model_spec& m = get("gemma4-31b");
  std::string err;
  auto s = shrink(m, 12, 0.25, &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->count(layer_kind::sliding_attention), 10);
  EXPECT_EQ(s->count(layer_kind::full_attention), 2);
  EXPECT_EQ(s->layer_types.back(), layer_kind::full_attention);
  EXPECT_EQ(s->full_attention.head_dim, 512);
  EXPECT_EQ(s->sliding_attention.head_dim, 256);
  EXPECT_EQ(s->full_attention.num_heads, s->sliding_attention.num_heads);
  EXPECT_EQ(s->full_attention.num_heads % s->sliding_attention.num_kv_heads, 0);
  EXPECT_EQ(s->hidden_size, 1344);
  // Gemma 3: hidden must stay a multiple of the head count.
  auto g3 = shrink(get("gemma3-27b"), 6, 0.3, &err);
  ASSERT_TRUE(g3) << err;
  EXPECT_EQ(g3->hidden_size % g3->full_attention.num_heads, 0);
}

TEST(ModelHfConfig, QwenFieldNames) {
  auto s = shrink(get("qwen3.5-0.8b"), 4, 1.0, nullptr);
  nlohmann::json j = to_hf_config_json(*s);
  EXPECT_EQ(j["model_type"], "qwen3_5_text");
  EXPECT_EQ(j["num_hidden_layers"], 4);
  EXPECT_EQ(j["linear_num_value_heads"], 16);
  EXPECT_EQ(j["head_dim"], 256);
  EXPECT_EQ(j["attn_output_gate"], true);
  ASSERT_EQ(j["layer_types"].size(), 4u);
  EXPECT_EQ(j["layer_types"][3], "full_attention");
  EXPECT_EQ(j["rope_parameters"]["partial_rotary_factor"], 0.25);
  EXPECT_EQ(j["rope_parameters"]["mrope_section"][0], 11);
}

TEST(ModelHfConfig, Gemma4FieldNames) {
  nlohmann::json j = to_hf_config_json(get("gemma4-31b"));
  EXPECT_EQ(j["model_type"], "gemma4_text");
  EXPECT_EQ(j["hidden_activation"], "gelu_pytorch_tanh");
  EXPECT_EQ(j["num_key_value_heads"], 16);
  EXPECT_EQ(j["head_dim"], 256);
  EXPECT_EQ(j["global_head_dim"], 512);
  EXPECT_EQ(j["num_global_key_value_heads"], 4);
  EXPECT_EQ(j["attention_k_eq_v"], true);
  EXPECT_EQ(j["sliding_window"], 1024);
  EXPECT_EQ(j["final_logit_softcapping"], 30.0);
  EXPECT_EQ(j["hidden_size_per_layer_input"], 0);
  EXPECT_EQ(j["layer_types"][59], "full_attention");
  EXPECT_EQ(j["layer_types"][0], "sliding_attention");
}

}  // namespace
}  // namespace gs
