// Parameter counts per component, from the module shapes transformers 5.17 builds:
//   Qwen3_5Attention: q_proj H -> heads*hd*(2 with attn_output_gate), k/v_proj H -> kv*hd,
//     o_proj heads*hd -> H, q_norm/k_norm [hd].
//   Qwen3_5GatedDeltaNet: in_proj_qkv H -> 2*Kh*Kd + Vh*Vd, in_proj_z H -> Vh*Vd, in_proj_b/a
//     H -> Vh, out_proj Vh*Vd -> H; conv1d depthwise [conv_dim, 1, kernel] (no bias), A_log and
//     dt_bias [Vh], gated RMSNorm [Vd].
//   Gemma4TextAttention: q_proj H -> heads*hd, k_proj H -> kv*hd, v_proj the same unless
//     attention_k_eq_v on a full layer, o_proj; q_norm/k_norm [hd], v_norm has no weight.
//   Gemma3Attention: q/k/v/o, q_norm/k_norm [hd].
//   MLP (all three): gate_proj, up_proj H -> I, down_proj I -> H.
//   Decoder norms: Qwen3.5 two [H] per layer, Gemma four [H]; one final norm [H].
// Checked against kernel-specs.md 5.2 (Qwen3.5-0.8B per-layer figures) and 6.1 (Gemma 4 31B).
#include "models/model_registry.h"

namespace gs {

std::string_view layer_kind_name(layer_kind k) {
  switch (k) {
    case layer_kind::linear_attention: return "linear_attention";
    case layer_kind::full_attention: return "full_attention";
    case layer_kind::sliding_attention: return "sliding_attention";
  }
  return "?";
}

std::optional<layer_kind> parse_layer_kind(std::string_view s) {
  if (s == "linear_attention") return layer_kind::linear_attention;
  if (s == "full_attention") return layer_kind::full_attention;
  if (s == "sliding_attention") return layer_kind::sliding_attention;
  return std::nullopt;
}

int model_spec::count(layer_kind k) const {
  int n = 0;
  for (layer_kind t : layer_types) n += t == k;
  return n;
}

std::vector<linear_module> layer_linears(const model_spec& m, layer_kind k) {
  std::vector<linear_module> out;
  const int64_t H = m.hidden_size;
  if (k == layer_kind::linear_attention) {
    const linear_attention_shape& l = m.linear_attention;
    out.push_back({"in_proj_qkv", H, l.conv_dim()});
    out.push_back({"in_proj_z", H, l.value_dim()});
    out.push_back({"in_proj_b", H, l.num_value_heads});
    out.push_back({"in_proj_a", H, l.num_value_heads});
    out.push_back({"out_proj", l.value_dim(), H});
  } else {
    const attention_shape& a = k == layer_kind::full_attention ? m.full_attention : m.sliding_attention;
    const int64_t q = int64_t(a.num_heads) * a.head_dim, kv = int64_t(a.num_kv_heads) * a.head_dim;
    out.push_back({"q_proj", H, q * (a.output_gate ? 2 : 1)});
    out.push_back({"k_proj", H, kv});
    if (!a.k_eq_v) out.push_back({"v_proj", H, kv});
    out.push_back({"o_proj", q, H});
  }
  out.push_back({"gate_proj", H, m.intermediate_size});
  out.push_back({"up_proj", H, m.intermediate_size});
  out.push_back({"down_proj", m.intermediate_size, H});
  return out;
}

param_counts count_params(const model_spec& m) {
  param_counts p;
  const int64_t H = m.hidden_size;
  p.embedding = m.vocab_size * H;
  p.lm_head = m.tie_word_embeddings ? 0 : m.vocab_size * H;
  const int64_t norms_per_layer = m.family == "qwen3_5" ? 2 : 4;
  for (layer_kind k : m.layer_types) {
    for (const linear_module& lm : layer_linears(m, k)) {
      bool mlp = lm.name == "gate_proj" || lm.name == "up_proj" || lm.name == "down_proj";
      if (mlp) p.mlp_linear += lm.params();
      else if (k == layer_kind::linear_attention) p.linear_attn_linear += lm.params();
      else p.attention_linear += lm.params();
    }
    p.norms += norms_per_layer * H;
    if (k == layer_kind::linear_attention) {
      const linear_attention_shape& l = m.linear_attention;
      p.linear_attn_small += l.conv_dim() * l.conv_kernel + 2 * int64_t(l.num_value_heads) + l.value_head_dim;
    } else {
      const attention_shape& a = k == layer_kind::full_attention ? m.full_attention : m.sliding_attention;
      p.norms += 2 * int64_t(a.head_dim);  // q_norm, k_norm (Gemma's v_norm has no weight)
    }
  }
  p.norms += H;  // final norm
  return p;
}

int64_t lora_params(const model_spec& m, int rank) {
  int64_t n = 0;
  for (layer_kind k : m.layer_types)
    for (const linear_module& lm : layer_linears(m, k))
      for (const std::string& t : m.lora_targets)
        if (t == lm.name) n += int64_t(rank) * (lm.in + lm.out);
  return n;
}

}  // namespace gs
