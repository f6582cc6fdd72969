// estimate_training(): every term from the model's parts. Napkin math per term in
// docs/estimate.md; the comments here say what each line stands for.
#include "estimate/memory_model.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/byte_size.h"

namespace gs {
namespace {

std::string g(double v) { return fmt::format("{:.4g}", v); }
// Two decimals: the breakdown lines add up to the total, which one decimal would hide.

bool targeted(const model_spec& m, std::string_view name) {
  return std::find(m.lora_targets.begin(), m.lora_targets.end(), name) != m.lora_targets.end();
}

// Bytes per token one decoder layer of kind k keeps for backward (bf16 activations unless
// noted). Approximate by construction: it counts the tensors autograd saves in transformers'
// modules, not allocator rounding. docs/estimate.md "activations" lists each count.
double layer_activation_per_token(const model_spec& m, layer_kind k) {
  const double H = double(m.hidden_size), I = double(m.intermediate_size);
  const double rms_fp32 = 8 * H;  // RMSNorm in fp32: saves the fp32 input and the fp32 normed value
  double b = 0;
  // LoRA: PEFT casts each adapted Linear's input to fp32 (lora_A saves it): 4 bytes x in_features.
  for (const linear_module& lm : layer_linears(m, k))
    if (targeted(m, lm.name)) b += 4.0 * double(lm.in);
  b += rms_fp32;                                  // input_layernorm
  b += m.family == "qwen3_5" ? rms_fp32 : 3 * rms_fp32;  // post-attention norm (+ Gemma's pre/post feed-forward)
  b += 8 * I;                                     // gate out, up out, act out, gate*up (down's input)
  if (k == layer_kind::linear_attention) {
    const linear_attention_shape& l = m.linear_attention;
    const double c = double(l.conv_dim()), v = double(l.value_dim()), kd = double(l.key_dim());
    b += 3 * 2 * c;   // in_proj_qkv out, conv1d out, silu out
    b += 2 * v;       // in_proj_z out (the gate)
    b += 2 * 4 * kd;  // l2-normalised q and k in fp32
    b += 6 * 4 * v;   // chunked gated-delta-rule intermediates (fp32: w, u, v_new, h per chunk ...)
    b += 8 * v;       // gated RMSNorm over value heads (fp32)
    b += 2 * v;       // out_proj input
  } else {
    const attention_shape& a = k == layer_kind::full_attention ? m.full_attention : m.sliding_attention;
    const double q = double(a.num_heads) * a.head_dim, kv = double(a.num_kv_heads) * a.head_dim;
    b += 2 * q * (a.output_gate ? 2 : 1);  // q_proj out (query + gate)
    b += 8 * q + 8 * kv;                   // q_norm, k_norm in fp32
    b += 2 * kv * (a.k_eq_v ? 1 : 2);      // k_proj, v_proj outs
    b += 4 * q + 4 * kv;                   // RoPE (x*cos, rotate_half(x)*sin) for q and k
    if (a.num_kv_heads < a.num_heads) b += 2 * 2 * q;  // repeat_kv: k and v expanded to all heads
    b += 2 * q;                            // attention output (SDPA saves out + logsumexp)
    if (a.output_gate) b += 2 * 2 * q;     // sigmoid(gate) and the gated product
    b += 2 * q;                            // o_proj input
  }
  return b;
}

void add(std::vector<mem_term>& v, uint64_t& sum, std::string key, std::string label, double bytes, std::string math) {
  uint64_t b = bytes > 0 ? uint64_t(bytes) : 0;
  v.push_back({std::move(key), std::move(label), b, std::move(math)});
  sum += b;
}

}  // namespace

memory_estimate estimate_training(const model_spec& m, const run_shape& r) {
  memory_estimate e;
  e.model = m.name;
  e.shape = r;
  const param_counts p = count_params(m);
  const double B = r.batch, T = r.seq, H = double(m.hidden_size), V = double(m.vocab_size), L = m.num_layers;
  e.quantized_params = p.decoder_linear();
  e.lora_params = lora_params(m, r.lora_rank);
  const double lora = double(e.lora_params);

  // ---- GPU, held for the whole run
  uint64_t& st = e.gpu_static_bytes;
  add(e.gpu_static, st, "nf4_base", "NF4 decoder Linears (bnb, blocksize 64, double quant)",
      double(p.decoder_linear()) * mem_const::nf4_bytes_per_weight,
      fmt::format("{} G weights x {} B (0.5 packed + 1/64 u8 absmax + 4/(64*256) fp32 absmax2)",
                  g(double(p.decoder_linear()) / 1e9), g(mem_const::nf4_bytes_per_weight)));
  add(e.gpu_static, st, "bf16_embedding", m.tie_word_embeddings ? "embedding (bf16, tied lm_head)" : "embedding (bf16)",
      double(p.embedding) * 2, fmt::format("{} x {} x 2 B", m.vocab_size, m.hidden_size));
  if (p.lm_head)
    add(e.gpu_static, st, "bf16_lm_head", "lm_head (bf16, not quantized)", double(p.lm_head) * 2,
        fmt::format("{} x {} x 2 B", m.vocab_size, m.hidden_size));
  add(e.gpu_static, st, "bf16_small", p.linear_attn_small ? "norms, conv1d, A_log, dt_bias (bf16)" : "norms (bf16)", double(p.norms + p.linear_attn_small) * 2,
      fmt::format("{} M x 2 B", g(double(p.norms + p.linear_attn_small) / 1e6)));
  add(e.gpu_static, st, "lora_weights", "LoRA A/B (fp32)", lora * 4,
      fmt::format("{} M params (r={}) x 4 B", g(lora / 1e6), r.lora_rank));
  add(e.gpu_static, st, "lora_grads", "LoRA gradients (fp32)", lora * 4, fmt::format("{} M x 4 B", g(lora / 1e6)));
  add(e.gpu_static, st, "adamw_states", "AdamW exp_avg + exp_avg_sq (fp32)", lora * 8,
      fmt::format("{} M x 8 B", g(lora / 1e6)));

  // ---- GPU, transient at the peak
  double act_max = 0, act_sum = 0;
  for (layer_kind k : m.layer_types) {
    double a = layer_activation_per_token(m, k) * B * T;
    act_max = std::max(act_max, a);
    act_sum += a;
  }
  const double n_logits = B * T * V;
  const double softcap = m.final_logit_softcapping > 0 ? 2 : 0;
  // Loss backward: bf16 logits kept by the outputs (2) [+ tanh output saved by the soft-cap (2)]
  // + log_softmax output (4, saved) + its incoming gradient (4) + the gradient it produces (4).
  const double logits_ws = n_logits * (14 + softcap);
  const double head_in = B * T * H * (8 + 2);  // final norm (fp32 saves) + lm_head input
  std::vector<mem_term> at_loss, at_layer;
  uint64_t s_loss = 0, s_layer = 0;
  if (r.grad_checkpointing) {
    add(at_loss, s_loss, "checkpoint_inputs", "checkpointed layer inputs (bf16)", L * B * T * H * 2,
        fmt::format("{} layers x {} x {} x {} x 2 B", m.num_layers, r.batch, r.seq, m.hidden_size));
  } else {
    add(at_loss, s_loss, "activations", "activations of every layer (no checkpointing)", act_sum,
        fmt::format("{} layers, {} KB/token/layer on average", m.num_layers, g(act_sum / L / B / T / 1e3)));
  }
  add(at_loss, s_loss, "head_input", "final norm + lm_head input", head_in, fmt::format("{} tokens x {} x 10 B", B * T, m.hidden_size));
  add(at_loss, s_loss, "logits", softcap ? "logits: bf16 + soft-cap tanh + fp32 log_softmax and its gradients"
                                         : "logits: bf16 + fp32 log_softmax and its gradients",
      logits_ws, fmt::format("{} x {} x {} x {} B", r.batch, r.seq, m.vocab_size, 14 + softcap));
  // Backward through the last decoder layer: checkpointed inputs, the still-referenced bf16
  // logits, and one layer recomputed with its gradients (2x its activations).
  at_layer = std::vector<mem_term>(at_loss.begin(), at_loss.end() - 1);
  for (const mem_term& t : at_layer) s_layer += t.bytes;
  add(at_layer, s_layer, "logits_bf16", "bf16 logits still referenced", n_logits * 2,
      fmt::format("{} x 2 B", g(n_logits)));
  if (r.grad_checkpointing)
    add(at_layer, s_layer, "layer_recompute", "one layer recomputed + its gradients", 2 * act_max,
        fmt::format("2 x {} MB", g(act_max / 1e6)));
  e.gpu_transient = s_loss >= s_layer ? at_loss : at_layer;
  e.gpu_peak_train = st + std::max(s_loss, s_layer);

  if (r.eval) {
    const double eb = r.eval_batch, es = r.eval_seq > 0 ? r.eval_seq : r.seq;
    e.eval_spike = uint64_t(eb * es * V * 4);
  }
  e.gpu_peak = e.gpu_peak_train + e.eval_spike;
  e.cuda_context = mem_const::cuda_context;

  // ---- Host RAM while loading, download and disk
  const double text_bf16 = double(p.total()) * 2, extra_bf16 = double(m.extra_params) * 2;
  const double bf16_ckpt = text_bf16 + extra_bf16;
  const double nf4_ckpt = double(p.decoder_linear()) * mem_const::nf4_bytes_per_weight +
                          double(p.total() - p.decoder_linear()) * 2 + extra_bf16;
  uint64_t cpu = 0;
  add(e.cpu_terms, cpu, "process", "python + torch + vendor libraries", double(mem_const::process_baseline),
      "constant (docs/estimate.md)");
  if (r.prequant) {
    add(e.cpu_terms, cpu, "shard", "one safetensors shard in flight", std::min(double(m.shard_bytes), nf4_ckpt),
        fmt::format("min(shard {}, checkpoint)", gib_text(double(m.shard_bytes), 2)));
    add(e.cpu_terms, cpu, "bf16_parts", "16-bit tensors (embedding, lm_head, vision) staged",
        double(p.embedding + p.lm_head + m.extra_params) * 2, "params x 2 B");
    e.download_bytes = uint64_t(nf4_ckpt);
  } else {
    add(e.cpu_terms, cpu, "bf16_model", "whole BF16 model staged before quantizing", bf16_ckpt,
        fmt::format("({} + {}) G params x 2 B", g(double(p.total()) / 1e9), g(double(m.extra_params) / 1e9)));
    e.download_bytes = uint64_t(bf16_ckpt);
  }
  e.cpu_peak_load = cpu;
  uint64_t disk = 0;
  add(e.disk_terms, disk, "checkpoint", r.prequant ? "pre-quantized NF4 checkpoint" : "BF16 safetensors",
      double(e.download_bytes), "download");
  add(e.disk_terms, disk, "xet_cache", "hf_xet chunk cache (default 10 GB)",
      std::min(double(mem_const::xet_chunk_cache), double(e.download_bytes)), "min(10 GB, download)");
  add(e.disk_terms, disk, "train_checkpoint", "one training checkpoint (LoRA fp32 + AdamW)", lora * 12,
      fmt::format("{} M x 12 B", g(lora / 1e6)));
  e.disk_bytes = disk;
  return e;
}

nlohmann::json memory_estimate::to_json() const {
  auto terms = [](const std::vector<mem_term>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const mem_term& t : v) a.push_back({{"key", t.key}, {"label", t.label}, {"bytes", t.bytes}, {"math", t.math}});
    return a;
  };
  return {{"model", model},
          {"shape",
           {{"batch", shape.batch}, {"seq", shape.seq}, {"grad_accum", shape.grad_accum}, {"lora_rank", shape.lora_rank},
            {"lora_alpha", shape.lora_alpha}, {"grad_checkpointing", shape.grad_checkpointing}, {"eval", shape.eval},
            {"eval_batch", shape.eval_batch}, {"eval_seq", shape.eval_seq > 0 ? shape.eval_seq : shape.seq},
            {"prequant", shape.prequant}}},
          {"gpu",
           {{"static", terms(gpu_static)}, {"transient_at_peak", terms(gpu_transient)},
            {"static_bytes", gpu_static_bytes}, {"peak_train_bytes", gpu_peak_train}, {"eval_spike_bytes", eval_spike},
            {"peak_bytes", gpu_peak}, {"cuda_context_bytes", cuda_context},
            {"measured_as", "torch.cuda.max_memory_allocated"}}},
          {"cpu", {{"terms", terms(cpu_terms)}, {"peak_load_bytes", cpu_peak_load}}},
          {"download_bytes", download_bytes},
          {"disk", {{"terms", terms(disk_terms)}, {"bytes", disk_bytes}}},
          {"lora_params", lora_params},
          {"quantized_params", quantized_params}};
}

}  // namespace gs
