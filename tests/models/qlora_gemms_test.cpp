// The QLoRA step's GEMM list: shapes worked out by hand from qwen3.5-0.8b's config (hidden 1024,
// intermediate 3584, 18 linear-attention + 6 full layers; matrix/models/qwen3.5-0.8b.toml).
#include "models/qlora_gemms.h"

#include <gtest/gtest.h>

#include <map>

namespace gs {
namespace {

const qlora_gemm* find_gemm(const std::vector<qlora_gemm>& list, const std::string& name) {
  for (const qlora_gemm& g : list)
    if (g.name == name) return &g;
  return nullptr;
}

const model_spec& qwen08() {
  const model_spec* m = find_model(builtin_model_registry(), "qwen3.5-0.8b");
  EXPECT_NE(m, nullptr);
  return *m;
}

TEST(QloraGemms, BaseProjectionsForwardAndInputGradient) {
  auto list = qlora_step_gemms(qwen08(), 2048, {16});
  const qlora_gemm* fwd = find_gemm(list, "gate_proj.fwd");
  ASSERT_NE(fwd, nullptr);
  EXPECT_EQ(fwd->m, 2048);
  EXPECT_EQ(fwd->n, 3584);
  EXPECT_EQ(fwd->k, 1024);
  EXPECT_TRUE(fwd->trans_b);
  EXPECT_FALSE(fwd->trans_a);
  // gate_proj and up_proj have one shape, in all 24 layers: 48 uses per step.
  EXPECT_EQ(fwd->uses_per_step, 48);
  EXPECT_EQ(find_gemm(list, "up_proj.fwd"), nullptr);
  const qlora_gemm* dgrad = find_gemm(list, "down_proj.dgrad");
  ASSERT_NE(dgrad, nullptr);
  EXPECT_EQ(dgrad->m, 2048);
  EXPECT_EQ(dgrad->n, 3584);
  EXPECT_EQ(dgrad->k, 1024);
  EXPECT_FALSE(dgrad->trans_b);
  // q_proj of the 6 full layers emits query + gate: 8 heads x 256 x 2.
  const qlora_gemm* q = find_gemm(list, "q_proj.fwd");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->n, 4096);
  EXPECT_EQ(q->uses_per_step, 6);
}

TEST(QloraGemms, LoraGemmsAtEachRankWithPeftsTransposes) {
  auto list = qlora_step_gemms(qwen08(), 512, {8, 64});
  const qlora_gemm* bw = find_gemm(list, "in_proj_qkv.lora_b.wgrad.r64");
  ASSERT_NE(bw, nullptr);  // dB = dy^T h: out x r, summed over the tokens
  EXPECT_EQ(bw->m, 6144);  // conv_dim = 2 x 16 x 128 + 16 x 128
  EXPECT_EQ(bw->n, 64);
  EXPECT_EQ(bw->k, 512);
  EXPECT_TRUE(bw->trans_a);
  const qlora_gemm* af = find_gemm(list, "in_proj_qkv.lora_a.fwd.r8");
  ASSERT_NE(af, nullptr);
  EXPECT_EQ(af->m, 512);
  EXPECT_EQ(af->n, 8);
  EXPECT_EQ(af->k, 1024);
  EXPECT_TRUE(af->trans_b);
  EXPECT_EQ(af->rank, 8);
  EXPECT_EQ(af->flops(), 2 * 512 * 8 * 1024);
  // Ranks come after the base GEMMs, in the order asked.
  size_t first_r8 = 0, first_r64 = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].rank == 8 && !first_r8) first_r8 = i;
    if (list[i].rank == 64 && !first_r64) first_r64 = i;
    if (i > 0) {
      EXPECT_LE(list[i - 1].rank, list[i].rank) << list[i].name;
    }
  }
  EXPECT_LT(first_r8, first_r64);
}

TEST(QloraGemms, EveryShapeIsDistinctAndUsesAddUpToTheModulesTimesLayers) {
  const model_spec& m = qwen08();
  auto list = qlora_step_gemms(m, 1024, {16});
  int64_t fwd_shaped_uses = 0;  // x W^T at k = hidden or intermediate: base forwards (and equal LoRA ones)
  for (size_t i = 0; i < list.size(); ++i) {
    for (size_t j = i + 1; j < list.size(); ++j)
      EXPECT_FALSE(list[i].m == list[j].m && list[i].n == list[j].n && list[i].k == list[j].k &&
                   list[i].trans_a == list[j].trans_a && list[i].trans_b == list[j].trans_b)
          << list[i].name << " and " << list[j].name;
    if (list[i].role == "fwd") fwd_shaped_uses += list[i].uses_per_step;
  }
  // 18 linear layers x (5 + 3) linears + 6 full layers x (4 + 3): one forward GEMM each, and
  // in_proj_b / in_proj_a (1024 -> 16) are the same shape as in_proj_qkv's rank-16 lora_a.fwd,
  // listed first: 36 of those uses sit under that name instead.
  EXPECT_EQ(fwd_shaped_uses, 18 * 8 + 6 * 7 - 2 * 18);
  const qlora_gemm* shared = nullptr;
  for (const qlora_gemm& g : list)
    if (g.name == "in_proj_qkv.lora_a.fwd.r16") shared = &g;
  ASSERT_NE(shared, nullptr);
  // x A^T at rank 16 from every 1024-wide input: in_proj_qkv/z/b/a in 18 layers, q/k/v in 6,
  // gate/up in 24; plus the two 16-wide base forwards in 18 layers.
  EXPECT_EQ(shared->uses_per_step, 4 * 18 + 3 * 6 + 2 * 24 + 2 * 18);
}

// The probes judge each result by its GEMM's name: two shapes under one name would check one
// against the other's reference (gemma4-31b's full-attention q_proj, 16384 wide, was judged as
// the sliding layers' 8192-wide one: 33 of 106 py.matmul cases "wrong" on an H100).
TEST(QloraGemms, EveryNameIsOneShapeInEveryRegistryModel) {
  for (const model_spec& m : builtin_model_registry().models) {
    std::map<std::string, const qlora_gemm*> seen;
    for (const qlora_gemm& g : qlora_step_gemms(m, 2048, {8, 16, 64}))
      EXPECT_TRUE(seen.emplace(g.name, &g).second) << m.name << ": " << g.name << " twice";
  }
  const model_spec* gemma = find_model(builtin_model_registry(), "gemma4-31b");
  ASSERT_NE(gemma, nullptr);
  auto list = qlora_step_gemms(*gemma, 2048, {16});
  const qlora_gemm* sliding = find_gemm(list, "q_proj.fwd");
  const qlora_gemm* full = find_gemm(list, "q_proj@full_attention.fwd");
  ASSERT_TRUE(sliding && full);
  EXPECT_EQ(sliding->n, 32 * 256);  // 32 heads x head_dim 256
  EXPECT_EQ(full->n, 32 * 512);     // 32 heads x global_head_dim 512
  EXPECT_EQ(sliding->uses_per_step, 50);
  EXPECT_EQ(full->uses_per_step, 10);
  EXPECT_NE(find_gemm(list, "q_proj@full_attention.lora_b.fwd.r16"), nullptr);
}

}  // namespace
}  // namespace gs
