// shrink(): a smaller model with the same character. The rule (also in docs/models.md):
//   layers   a multiple of the pattern period, so Qwen3.5's L L L F and Gemma's S S S S S F
//            repeat whole and the linear:full (3:1) or sliding:full (5:1) ratio stays exact;
//            Gemma 4's forced-full last layer is kept by the same rule.
//   width    hidden and intermediate scale by s, rounded to a multiple of 64 (NF4 block size,
//            tensor-core tile) and at least 64. Head COUNTS scale by s (rounded, at least 1):
//            kv heads scale and query heads follow as kv * (heads per kv head), so the GQA group
//            stays whole; linear-attention key heads scale and value heads follow the real
//            value:key ratio. head_dim, linear head dims, the conv kernel, the vocabulary and
//            the sliding window stay real: kernels see real tile shapes and the 248K/262K
//            logits (what dominates memory) stay real.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/model_registry.h"

namespace gs {
namespace {

int64_t scale_to_64(int64_t v, double s) {
  int64_t x = int64_t(std::llround(double(v) * s / 64.0)) * 64;
  return x < 64 ? 64 : x;
}

int scale_count(int v, double s) {
  long x = std::lround(double(v) * s);
  return x < 1 ? 1 : int(x);
}

void scale_attention(attention_shape& a, double s) {
  if (!a.present()) return;
  int groups = a.num_heads / a.num_kv_heads;
  a.num_kv_heads = scale_count(a.num_kv_heads, s);
  a.num_heads = a.num_kv_heads * groups;
}

}  // namespace

std::optional<model_spec> shrink(const model_spec& m, int layers, double width_scale, std::string* err) {
  auto fail = [&](std::string msg) -> std::optional<model_spec> {
    if (err) *err = std::move(msg);
    return std::nullopt;
  };
  if (!(width_scale > 0.0 && width_scale <= 1.0))
    return fail("width scale must be in (0, 1], got " + std::to_string(width_scale));
  if (layers < 0) return fail("--layers must be positive");
  if (layers > 0 && layers % m.pattern_period != 0)
    return fail("--layers " + std::to_string(layers) + " does not keep " + m.name + "'s layer pattern: use a multiple of " +
                std::to_string(m.pattern_period) + " (one full_attention layer every " +
                std::to_string(m.pattern_period) + ")");
  if (layers > m.num_layers)
    return fail("--layers " + std::to_string(layers) + " is more than " + m.name + "'s " + std::to_string(m.num_layers));
  model_spec s = m;
  if (layers > 0) s.num_layers = layers;
  s.layer_types.clear();
  for (int i = 0; i < s.num_layers; ++i)
    s.layer_types.push_back((i + 1) % s.pattern_period == 0 ? layer_kind::full_attention : s.other_kind);
  if (s.last_layer_full) s.layer_types.back() = layer_kind::full_attention;
  if (width_scale != 1.0) {
    s.hidden_size = scale_to_64(m.hidden_size, width_scale);
    s.intermediate_size = scale_to_64(m.intermediate_size, width_scale);
    // Sliding and full layers share num_attention_heads in the HF config: scale both from the
    // same query-head count so they stay equal.
    scale_attention(s.full_attention, width_scale);
    if (s.sliding_attention.present()) {
      int groups = m.sliding_attention.num_heads / m.sliding_attention.num_kv_heads;
      int heads = s.full_attention.num_heads;
      // Keep heads a multiple of the sliding kv count: kv = heads / groups, at least 1.
      s.sliding_attention.num_kv_heads = std::max(1, heads / groups);
      s.sliding_attention.num_heads = heads;
      if (heads % s.sliding_attention.num_kv_heads != 0) s.sliding_attention.num_kv_heads = 1;
    }
    if (s.linear_attention.present()) {
      int ratio = m.linear_attention.num_value_heads / m.linear_attention.num_key_heads;
      s.linear_attention.num_key_heads = scale_count(m.linear_attention.num_key_heads, width_scale);
      s.linear_attention.num_value_heads = s.linear_attention.num_key_heads * ratio;
    }
    // Gemma 3's config validates hidden_size % num_attention_heads == 0: step up by 64 until it
    // holds (at most num_heads steps; a no-op for the real shapes).
    while (s.hidden_size % s.full_attention.num_heads != 0) s.hidden_size += 64;
  }
  s.original_layers = m.original_layers ? m.original_layers : m.num_layers;
  s.width_scale = m.width_scale * width_scale;
  if (layers > 0 || width_scale != 1.0) s.name = m.name + "@" + std::to_string(s.num_layers) + "L";
  if (width_scale != 1.0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "x%.3g", s.width_scale);
    s.name += buf;
  }
  return s;
}

}  // namespace gs
