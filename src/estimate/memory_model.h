// The QLoRA memory model behind `gpustack estimate` (docs/estimate.md has every term's napkin
// math). It models exactly the pipeline `gpustack train-smoke` runs: NF4 (bnb blocksize 64,
// double quant) decoder Linears, bf16 embeddings/lm_head/norms, PEFT LoRA in fp32 with AdamW,
// gradient checkpointing per decoder layer, HF's loss (bf16 logits upcast to fp32).
// Measured peaks to compare with are torch.cuda.max_memory_allocated (not reserved, not
// nvidia-smi): the CUDA context is reported apart and only enters the fit verdict.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/model_registry.h"

namespace gs {

struct run_shape {
  int batch = 1;
  int seq = 1280;
  int grad_accum = 16;      ///< does not change the peak (one micro-batch at a time); reported
  int lora_rank = 16;
  double lora_alpha = 32;
  bool grad_checkpointing = true;
  bool eval = false;
  int eval_batch = 8;       ///< HF TrainingArguments.per_device_eval_batch_size default
  int eval_seq = 0;         ///< 0 = seq
  bool prequant = false;    ///< load a pre-quantized NF4 checkpoint instead of BF16 + load_in_4bit
};

/// One line of the breakdown: bytes and the arithmetic that produced them.
struct mem_term {
  std::string key;    ///< stable id for --json ("nf4_base")
  std::string label;  ///< human label
  uint64_t bytes = 0;
  std::string math;   ///< "29.29 G weights x 0.5159 B"
};

struct memory_estimate {
  std::string model;
  run_shape shape;
  // GPU
  std::vector<mem_term> gpu_static;     ///< held for the whole run
  std::vector<mem_term> gpu_transient;  ///< at the peak moment (loss backward)
  uint64_t gpu_static_bytes = 0;
  uint64_t gpu_peak_train = 0;          ///< static + transient: what max_memory_allocated shows
  uint64_t eval_spike = 0;              ///< fp32 copy of the eval logits, 0 when eval is off
  uint64_t gpu_peak = 0;                ///< train peak + eval spike
  uint64_t cuda_context = 0;            ///< not in max_memory_allocated; counted in the verdict
  // Host
  std::vector<mem_term> cpu_terms;
  uint64_t cpu_peak_load = 0;
  uint64_t download_bytes = 0;
  std::vector<mem_term> disk_terms;
  uint64_t disk_bytes = 0;
  // Counts behind the numbers
  int64_t lora_params = 0;
  int64_t quantized_params = 0;

  nlohmann::json to_json() const;
};

/// The model's memory for one run shape. Pure arithmetic, no machine access.
memory_estimate estimate_training(const model_spec& m, const run_shape& r);

/// Named constants (docs/estimate.md says where each comes from).
namespace mem_const {
inline constexpr double nf4_bytes_per_weight = 0.5 + 1.0 / 64 + 4.0 / (64 * 256);  ///< packed + u8 absmax + fp32 absmax2
inline constexpr uint64_t cuda_context = 600ull << 20;       ///< context + kernels + cuBLAS handles, outside the allocator
inline constexpr uint64_t process_baseline = 2500ull << 20;  ///< python + torch + vendor libs + transformers/peft imported
inline constexpr uint64_t xet_chunk_cache = 10'000'000'000;  ///< hf_xet default chunk cache (HF_XET_CHUNK_CACHE_SIZE_BYTES)
inline constexpr double fit_headroom = 0.95;                 ///< fraction of usable VRAM a "fits" verdict may use
}  // namespace mem_const

}  // namespace gs
