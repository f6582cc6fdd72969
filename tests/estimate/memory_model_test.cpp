// The memory model: each component hand-computed on a tiny model, the Gemma 4 31B reference from
// the gfx1201 field investigation, and the fit verdicts at 32 / 24 / 20 GB.
#include <gtest/gtest.h>

#include "estimate/fit_verdict.h"
#include "estimate/memory_model.h"

#include "support/tiny_model.h"

namespace gs {
namespace {

uint64_t term(const std::vector<mem_term>& v, const std::string& key) {
  for (const mem_term& t : v)
    if (t.key == key) return t.bytes;
  ADD_FAILURE() << "no term " << key;
  return 0;
}

model_spec tiny() {
  model_registry reg = load_model_registry({{"tiny.toml", test::kTinyModel}});
  EXPECT_TRUE(reg.ok()) << (reg.errors.empty() ? "" : reg.errors[0].describe());
  return reg.models.at(0);
}

const model_spec& gemma4() { return *find_model(builtin_model_registry(), "gemma4-31b"); }

run_shape reference_shape(bool prequant) {
  run_shape r;  // seq 1280, batch 1 x 16, checkpointing on, eval off (the defaults)
  r.prequant = prequant;
  return r;
}

TEST(MemoryModel, TinyModelComponentsByHand) {
  model_spec m = tiny();
  run_shape r;
  r.batch = 2;
  r.seq = 32;
  memory_estimate e = estimate_training(m, r);
  // Decoder Linears: full layer q 64*128 + k,v 64*32 + o 64*64 = 16384; GDN layer qkv 64*64 +
  // z 64*32 + b,a 64*4 + out 32*64 = 8704 (x3); MLP 3*64*128 (x4): 140800 weights.
  // NF4: 140800 * (0.5 + 1/64 + 4/16384) = 72634.375.
  EXPECT_EQ(e.quantized_params, 140800);
  EXPECT_EQ(term(e.gpu_static, "nf4_base"), 72634u);
  EXPECT_EQ(term(e.gpu_static, "bf16_embedding"), 1000u * 64 * 2);
  // LoRA r=16: q_proj 16*(64+128) once, in_proj_qkv 16*(64+64) x3, down_proj 16*(128+64) x4.
  EXPECT_EQ(e.lora_params, 21504);
  EXPECT_EQ(term(e.gpu_static, "lora_weights"), 21504u * 4);
  EXPECT_EQ(term(e.gpu_static, "lora_grads"), 21504u * 4);
  EXPECT_EQ(term(e.gpu_static, "adamw_states"), 21504u * 8);
  // Transient at the loss: 4 layer inputs 2*32*64*2, head input 64 tokens*64*10,
  // logits 2*32*1000*14 (bf16 2 + log_softmax 4 + its gradient in 4 + out 4).
  EXPECT_EQ(term(e.gpu_transient, "checkpoint_inputs"), 4u * 2 * 32 * 64 * 2);
  EXPECT_EQ(term(e.gpu_transient, "logits"), 2u * 32 * 1000 * 14);
  EXPECT_EQ(e.gpu_peak_train, e.gpu_static_bytes + 32768 + 40960 + 896000);
  EXPECT_EQ(e.eval_spike, 0u);
  EXPECT_EQ(e.gpu_peak, e.gpu_peak_train);
  // Eval: 8 x 32 tokens x 1000 x 4 B on top.
  r.eval = true;
  memory_estimate ev = estimate_training(m, r);
  EXPECT_EQ(ev.eval_spike, 8u * 32 * 1000 * 4);
  EXPECT_EQ(ev.gpu_peak, ev.gpu_peak_train + ev.eval_spike);
  // No checkpointing keeps every layer: more than the checkpointed inputs.
  r.eval = false;
  r.grad_checkpointing = false;
  EXPECT_GT(estimate_training(m, r).gpu_peak_train, e.gpu_peak_train);
}

TEST(MemoryModel, TinyModelHostTerms) {
  model_spec m = tiny();
  run_shape r;
  param_counts p = count_params(m);
  memory_estimate naive = estimate_training(m, r);
  EXPECT_EQ(naive.download_bytes, uint64_t((p.total() + 1000) * 2));
  EXPECT_EQ(naive.cpu_peak_load, mem_const::process_baseline + naive.download_bytes);
  r.prequant = true;
  memory_estimate pq = estimate_training(m, r);
  EXPECT_LT(pq.download_bytes, naive.download_bytes);
  // Disk: the download + the xet chunk cache (capped at the download) + LoRA 12 B/param.
  EXPECT_EQ(pq.disk_bytes, 2 * pq.download_bytes + 21504u * 12);
}

// Reference (gfx1201 field investigation): Gemma4-31B QLoRA, seq 1280, batch 1 x 16,
// checkpointing on, eval off.
TEST(MemoryModelReference, Gemma4GpuPeakEitherWay) {
  for (bool pq : {false, true}) {
    memory_estimate e = estimate_training(gemma4(), reference_shape(pq));
    EXPECT_GE(e.gpu_peak_train, 22e9) << pq;
    EXPECT_LE(e.gpu_peak_train, 27e9) << pq;
  }
}

TEST(MemoryModelReference, Gemma4HostRamDownloadDisk) {
  memory_estimate naive = estimate_training(gemma4(), reference_shape(false));
  memory_estimate pq = estimate_training(gemma4(), reference_shape(true));
  EXPECT_GE(pq.cpu_peak_load, 8e9);
  EXPECT_LE(pq.cpu_peak_load, 16e9);
  EXPECT_GE(naive.cpu_peak_load, 62e9);
  EXPECT_LE(naive.cpu_peak_load, 70e9);
  EXPECT_NEAR(double(pq.download_bytes) / 1e9, 19, 1.0);
  EXPECT_NEAR(double(naive.download_bytes) / 1e9, 62, 1.5);
  EXPECT_NEAR(double(pq.disk_bytes) / 1e9, 30, 2.0);
  EXPECT_NEAR(double(naive.disk_bytes) / 1e9, 75, 3.0);
}

TEST(MemoryModelReference, Gemma4EvalSpikeIsTheFp32Logits) {
  run_shape r = reference_shape(true);
  r.eval = true;
  // 8 sequences x 1024 tokens x 262144 x 4 B = 2^33 B = 8.59 GB: the reference's ~8.6 GB.
  r.eval_seq = 1024;
  EXPECT_NEAR(double(estimate_training(gemma4(), r).eval_spike) / 1e9, 8.6, 0.05);
  // At the full 1280 tokens the same term is 10.7 GB; either overflows a 32 GB card.
  r.eval_seq = 0;
  memory_estimate e = estimate_training(gemma4(), r);
  EXPECT_NEAR(double(e.eval_spike) / 1e9, 10.74, 0.05);
  machine_budget mb{32'000'000'000, 128'000'000'000, 1'000'000'000'000, "32 GB", "/"};
  fit_report f = judge_fit(gemma4(), r, e, mb);
  EXPECT_EQ(f.parts[0].verdict, fit::does_not_fit);
  ASSERT_FALSE(f.parts[0].fixes.empty());
  EXPECT_EQ(f.parts[0].fixes[0], "turn eval off");
}

TEST(MemoryModelReference, Gemma4Verdicts32Fits24OnlyShorter20Not) {
  run_shape r = reference_shape(true);
  memory_estimate e = estimate_training(gemma4(), r);
  auto gpu_verdict = [&](double gb, int* max_seq = nullptr) {
    machine_budget mb{uint64_t(gb * 1e9), 128'000'000'000, 1'000'000'000'000, "card", "/"};
    fit_report f = judge_fit(gemma4(), r, e, mb);
    if (max_seq) *max_seq = f.max_seq_that_fits;
    return f.parts[0].verdict;
  };
  EXPECT_EQ(gpu_verdict(32), fit::fits);
  int max_seq = 0;
  // Above the card at --seq 1280 does not fit, however short a --seq would (the fix names it).
  EXPECT_EQ(gpu_verdict(24, &max_seq), fit::does_not_fit);
  EXPECT_GT(max_seq, 0);
  EXPECT_LT(max_seq, 1280);
  EXPECT_EQ(gpu_verdict(20), fit::does_not_fit);
}

TEST(FitVerdict, NoGpuIsUnknownAndSizesAreGiB) {
  run_shape r = reference_shape(true);
  memory_estimate e = estimate_training(gemma4(), r);
  fit_report none = judge_fit(gemma4(), r, e, machine_budget{0, 128ull << 30, 1ull << 40, "", "/"});
  EXPECT_EQ(none.parts[0].verdict, fit::unknown) << none.parts[0].reason;
  EXPECT_EQ(none.overall, fit::unknown) << "RAM and disk fit; the GPU is not known, not marginal";
  EXPECT_EQ(fit_name(fit::unknown), "unknown");
  fit_report big = judge_fit(gemma4(), r, e, machine_budget{80ull << 30, 128ull << 30, 1ull << 40, "--vram 80 GiB", "/"});
  EXPECT_NE(big.parts[0].reason.find("of 80.0 GiB"), std::string::npos) << big.parts[0].reason;
  // An absurd sequence on a big card: does not fit, with the longest --seq that would.
  run_shape huge = r;
  huge.seq = 999999;
  fit_report h = judge_fit(gemma4(), huge, estimate_training(gemma4(), huge), machine_budget{80ull << 30, 128ull << 30, 1ull << 40, "x", "/"});
  EXPECT_EQ(h.parts[0].verdict, fit::does_not_fit) << h.parts[0].reason;
  ASSERT_FALSE(h.parts[0].fixes.empty());
  EXPECT_EQ(h.parts[0].fixes[0].rfind("--seq ", 0), 0u) << h.parts[0].fixes[0];
}

TEST(MemoryModelReference, NaiveLoadNeedsPrequantOn64GbHost) {
  run_shape r = reference_shape(false);
  memory_estimate e = estimate_training(gemma4(), r);
  machine_budget mb{32'000'000'000, 64'000'000'000, 1'000'000'000'000, "card", "/"};
  fit_report f = judge_fit(gemma4(), r, e, mb);
  EXPECT_EQ(f.parts[1].what, "ram");
  EXPECT_EQ(f.parts[1].verdict, fit::does_not_fit);
  ASSERT_FALSE(f.parts[1].fixes.empty());
  EXPECT_NE(f.parts[1].fixes[0].find("--prequant"), std::string::npos);
  EXPECT_EQ(f.overall, fit::does_not_fit);
}

}  // namespace
}  // namespace gs
