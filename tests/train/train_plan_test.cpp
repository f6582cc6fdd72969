// From train-smoke arguments to a plan, against the embedded model registry: a shrunk Qwen3.5
// keeps its L L L F pattern and real head dims in the HF config the script builds from; unknown
// models get close names; a --layers that breaks the pattern, --weights with shrinking, and bad
// checkpoint directories are refused with the reason; a --weights dir gets its config checked.
#include <gtest/gtest.h>

#include "models/model_registry.h"
#include "train/train_plan.h"
#include "support/files.h"

namespace gs {
namespace {

using gs::test::fixture_dir;


train_smoke_cli smoke_options(std::string model, int layers = 0, double width = 1.0) {
  train_smoke_cli o;
  o.model = std::move(model);
  o.layers = layers;
  o.width_scale = width;
  return o;
}

TEST(TrainPlan, ShrunkQwenKeepsItsPatternAndHeadDims) {
  std::string err;
  std::optional<train_smoke_plan> p = plan_train_smoke(smoke_options("qwen3.5-0.8b", 4), &err);
  ASSERT_TRUE(p) << err;
  const train_smoke_request& r = p->request;
  EXPECT_EQ(r.model, "qwen3.5-0.8b");
  EXPECT_EQ(r.model_type, "qwen3_5_text");
  EXPECT_FALSE(r.hf_config.contains("model_type")) << "for_model takes it positionally";
  EXPECT_EQ(r.hf_config["num_hidden_layers"], 4);
  EXPECT_EQ(r.hf_config["layer_types"],
            nlohmann::json({"linear_attention", "linear_attention", "linear_attention", "full_attention"}));
  EXPECT_EQ(r.hf_config["head_dim"], 256);
  EXPECT_EQ(r.hf_config["linear_key_head_dim"], 128);
  EXPECT_EQ(r.hf_config["vocab_size"], 248320);
  EXPECT_NE(std::find(r.target_modules.begin(), r.target_modules.end(), "in_proj_qkv"), r.target_modules.end());
  EXPECT_NE(std::find(r.target_modules.begin(), r.target_modules.end(), "down_proj"), r.target_modules.end());
  EXPECT_EQ(p->model_json["layers"], 4);
  EXPECT_EQ(p->model_json["real_layers"], 24);
  EXPECT_EQ(p->model_json["shrunk"], true);
  EXPECT_EQ(p->model_json["layer_types"]["linear_attention"], 3);
  EXPECT_EQ(p->model_json["layer_types"]["full_attention"], 1);
  EXPECT_EQ(p->model_json["pattern"], "L L L F x1");
  EXPECT_EQ(r.seq, 512);
  EXPECT_EQ(r.steps, 5);
  EXPECT_TRUE(r.grad_ckpt);
  EXPECT_FALSE(p->quant_check);
}

TEST(TrainPlan, FullSizeIsTheRealModelAndAliasesResolve) {
  std::string err;
  std::optional<train_smoke_plan> p = plan_train_smoke(smoke_options("Qwen/Qwen3.5-0.8B"), &err);
  ASSERT_TRUE(p) << err;
  EXPECT_EQ(p->request.model, "qwen3.5-0.8b");
  EXPECT_EQ(p->request.hf_config["num_hidden_layers"], 24);
  EXPECT_EQ(p->model_json["shrunk"], false);
}

TEST(TrainPlan, UnknownModelGetsCloseNames) {
  std::string err;
  EXPECT_FALSE(plan_train_smoke(smoke_options("qwen3.5-0.8"), &err));
  EXPECT_NE(err.find("unknown model 'qwen3.5-0.8'"), std::string::npos) << err;
  EXPECT_NE(err.find("did you mean qwen3.5-0.8b"), std::string::npos) << err;
  EXPECT_NE(err.find("known models: "), std::string::npos) << err;
}

TEST(TrainPlan, BadShapesAreRefusedWithTheReason) {
  std::string err;
  EXPECT_FALSE(plan_train_smoke(smoke_options("qwen3.5-0.8b", 6), &err));
  EXPECT_NE(err.find("multiple of 4"), std::string::npos) << err;
  EXPECT_FALSE(plan_train_smoke(smoke_options("qwen3.5-0.8b", 48), &err));
  EXPECT_NE(err.find("more than"), std::string::npos) << err;
  EXPECT_FALSE(plan_train_smoke(smoke_options("qwen3.5-0.8b", -4), &err));
  EXPECT_NE(err.find("positive"), std::string::npos) << err;
  EXPECT_FALSE(plan_train_smoke(smoke_options("qwen3.5-0.8b", 0, 1.5), &err));
  EXPECT_NE(err.find("(0, 1]"), std::string::npos) << err;
  train_smoke_cli w = smoke_options("qwen3.5-0.8b", 4);
  w.weights = fixture_dir("train") + "ckpt_bf16";
  EXPECT_FALSE(plan_train_smoke(w, &err));
  EXPECT_NE(err.find("trained as it is"), std::string::npos) << err;
}

TEST(TrainPlan, WeightsDirectoryIsReadAndItsQuantConfigChecked) {
  std::string err;
  train_smoke_cli w = smoke_options("qwen3.5-0.8b");
  w.weights = fixture_dir("train") + "ckpt_fp4_differs";
  std::optional<train_smoke_plan> p = plan_train_smoke(w, &err);
  ASSERT_TRUE(p) << err;
  ASSERT_TRUE(p->quant_check);
  EXPECT_EQ((*p->quant_check)["present"], true);
  EXPECT_EQ((*p->quant_check)["matches"], false);
  EXPECT_EQ(p->request.weights, w.weights);
  ASSERT_FALSE(p->notes.empty());
  EXPECT_NE(p->notes[0].find("differs from the pipeline in bnb_4bit_quant_type"), std::string::npos) << p->notes[0];
  EXPECT_EQ(p->model_json["weights"]["safetensors"], nlohmann::json({"model.safetensors"}));

  w.weights = fixture_dir("train") + "ckpt_no_safetensors";
  EXPECT_FALSE(plan_train_smoke(w, &err));
  EXPECT_EQ(err.rfind("--weights: ", 0), 0u) << err;
  EXPECT_NE(err.find("no *.safetensors"), std::string::npos) << err;
}

TEST(TrainPlan, DecoderLinearNamesCoverEveryLayerKind) {
  const model_spec* m = find_model(builtin_model_registry(), "qwen3.5-0.8b");
  ASSERT_TRUE(m);
  std::vector<std::string> n = decoder_linear_names(*m);
  for (const char* want : {"in_proj_qkv", "in_proj_b", "out_proj", "q_proj", "o_proj", "down_proj"})
    EXPECT_NE(std::find(n.begin(), n.end(), want), n.end()) << want;
}

}  // namespace
}  // namespace gs
