// train_estimate.h: `gpustack estimate`'s memory model (src/estimate/memory_model.h) for the
// shape train-smoke runs: batch, seq, LoRA r16/alpha 32, checkpointing as asked, no eval, and a
// pre-quantized load when --weights is given. Its gpu_peak_train is what
// torch.cuda.max_memory_allocated shows over the steps: the figure train-smoke measures.
#include "train/train_estimate.h"

#include "estimate/memory_model.h"
#include "models/model_registry.h"

namespace gs {

std::optional<nlohmann::json> estimate_train_smoke(const model_spec& m, const train_smoke_request& r) {
  run_shape s;
  s.batch = r.batch;
  s.seq = r.seq;
  s.grad_accum = 1;
  s.lora_rank = 16;
  s.lora_alpha = 32;
  s.grad_checkpointing = r.grad_ckpt;
  s.eval = false;
  s.prequant = !r.weights.empty();
  memory_estimate e = estimate_training(m, s);
  return nlohmann::json{{"peak_gpu_bytes", e.gpu_peak_train},
                        {"gpu_static_bytes", e.gpu_static_bytes},
                        {"cpu_peak_load_bytes", e.cpu_peak_load},
                        {"shape", {{"batch", s.batch}, {"seq", s.seq}, {"grad_checkpointing", s.grad_checkpointing},
                                   {"prequant", s.prequant}}}};
}

}  // namespace gs
