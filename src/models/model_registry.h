// The model registry: real LLM configurations as data (matrix/models/*.toml, embedded), their
// parameter counts per component, a shrink rule that keeps the layer pattern, and the HF config
// dict that `AutoConfig.for_model(model_type, **fields)` builds the same model from.
//
// Used by `gpustack estimate` (memory model) and `gpustack train-smoke` (builds the model in the
// user's Python stack). Format: docs/models.md.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gs {

enum class layer_kind { linear_attention, full_attention, sliding_attention };
/// "linear_attention" | "full_attention" | "sliding_attention" (the HF layer_types names).
std::string_view layer_kind_name(layer_kind k);
std::optional<layer_kind> parse_layer_kind(std::string_view s);

/// Softmax attention of one layer kind. head_dim is explicit (Qwen3.5 and Gemma do not derive it
/// from hidden/heads).
struct attention_shape {
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  bool output_gate = false;  ///< Qwen3.5 attn_output_gate: q_proj emits query + gate (2x)
  bool k_eq_v = false;       ///< Gemma 4 full layers: no v_proj, value = v_norm(k_proj(h))
  int window = 0;            ///< sliding window in tokens, 0 = full
  bool present() const { return num_heads > 0; }
};

/// Gated DeltaNet (Qwen3.5 linear_attention layers).
struct linear_attention_shape {
  int num_key_heads = 0;
  int num_value_heads = 0;
  int key_head_dim = 0;
  int value_head_dim = 0;
  int conv_kernel = 0;
  bool present() const { return num_key_heads > 0; }
  int64_t key_dim() const { return int64_t(num_key_heads) * key_head_dim; }
  int64_t value_dim() const { return int64_t(num_value_heads) * value_head_dim; }
  int64_t conv_dim() const { return 2 * key_dim() + value_dim(); }
};

struct model_spec {
  std::string name;                  ///< registry key, "qwen3.5-0.8b"
  std::vector<std::string> aliases;  ///< other names find_model accepts ("Qwen/Qwen3.5-0.8B")
  std::string hf_repo;               ///< published checkpoint
  std::string family;                ///< "qwen3_5" | "gemma4" | "gemma3": module names and norms
  std::string model_type;            ///< HF model_type of the text model ("qwen3_5_text")
  std::string source;                ///< where the numbers come from (one line)
  std::string file;                  ///< matrix/models/<name>.toml

  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int num_layers = 0;
  std::string hidden_act;
  bool tie_word_embeddings = false;
  int64_t max_position_embeddings = 0;
  double rms_norm_eps = 1e-6;
  double final_logit_softcapping = 0;  ///< 0 = none

  /// Pattern: layer i (0-based) is full_attention when (i + 1) % period == 0, else `other`;
  /// last_layer_full forces the final layer to full_attention (Gemma 4).
  int pattern_period = 1;
  layer_kind other_kind = layer_kind::full_attention;
  bool last_layer_full = false;
  std::vector<layer_kind> layer_types;  ///< derived, one per layer

  attention_shape full_attention;
  attention_shape sliding_attention;
  linear_attention_shape linear_attention;

  std::vector<std::string> lora_targets;  ///< module names as in the HF model ("in_proj_qkv", "q_proj")

  int64_t extra_params = 0;           ///< published checkpoint's non-text parameters (vision tower), bf16
  int64_t shard_bytes = 5'000'000'000;  ///< largest safetensors shard (download staging)
  nlohmann::json hf_extra = nlohmann::json::object();  ///< passed verbatim into the HF config (rope)

  // Provenance of a shrunk model (shrink()); 0 / 1.0 for the real configuration.
  int original_layers = 0;
  double width_scale = 1.0;

  int count(layer_kind k) const;
};

/// One nn.Linear inside a decoder layer, named as in the HF module tree.
struct linear_module {
  std::string name;  ///< "q_proj", "in_proj_qkv", ...
  int64_t in = 0, out = 0;
  int64_t params() const { return in * out; }
};

/// The nn.Linear modules of one decoder layer of kind k (attention/linear-attention, then MLP).
std::vector<linear_module> layer_linears(const model_spec& m, layer_kind k);

/// Parameters per component. Everything in parameters (elements), not bytes.
struct param_counts {
  int64_t embedding = 0;           ///< vocab x hidden
  int64_t lm_head = 0;             ///< 0 when tied to the embedding
  int64_t attention_linear = 0;    ///< q/k/v/o of full and sliding layers
  int64_t linear_attn_linear = 0;  ///< in_proj_qkv/z/b/a, out_proj of GatedDeltaNet layers
  int64_t linear_attn_small = 0;   ///< conv1d, A_log, dt_bias, gated norm (stay bf16)
  int64_t mlp_linear = 0;          ///< gate/up/down
  int64_t norms = 0;               ///< layer norms, q/k norms, final norm
  int64_t decoder_linear() const { return attention_linear + linear_attn_linear + mlp_linear; }
  int64_t total() const {
    return embedding + lm_head + decoder_linear() + linear_attn_small + norms;
  }
};
param_counts count_params(const model_spec& m);

/// LoRA parameters (A: r x in, B: out x r) on every decoder Linear named in m.lora_targets.
int64_t lora_params(const model_spec& m, int rank);

struct model_error {
  std::string file;
  int line = 0, column = 0;
  std::string message;
  std::string describe() const;  ///< "file:line:col: message"
};

struct model_registry {
  std::vector<model_spec> models;
  std::vector<model_error> errors;
  bool ok() const { return errors.empty(); }
  std::vector<std::string> names() const;
};

struct model_source {
  std::string path;
  std::string text;
};

/// Parse registry files. Every problem is an error with file:line:column; a file with errors
/// contributes no model.
model_registry load_model_registry(const std::vector<model_source>& files);
/// The embedded registry (matrix/models/*.toml).
const model_registry& builtin_model_registry();

/// Exact name or alias (case-insensitive). nullptr when unknown; `suggestions` gets close names.
const model_spec* find_model(const model_registry& reg, std::string_view name,
                             std::vector<std::string>* suggestions = nullptr);

/// Shrink a model to fit a small card while keeping its character.
///   layers: 0 = keep; otherwise a positive multiple of the pattern period (4 for Qwen3.5, 6 for
///     Gemma), so linear:full or sliding:full layers keep their real ratio and order.
///   width_scale in (0, 1]: hidden and intermediate sizes scale and are rounded to a multiple of
///     64 (NF4 blocks, tensor-core tiles); head COUNTS scale (rounded, at least 1) keeping the
///     GQA group size (heads per kv head) and the linear-attention value:key head ratio; head_dim,
///     linear head dims, conv kernel and vocab stay real (the 248K/262K logits are the point).
/// Returns nullopt and sets *err when the request cannot keep the pattern.
std::optional<model_spec> shrink(const model_spec& m, int layers, double width_scale, std::string* err);

/// The HF text-config fields (transformers 5.17 names) for AutoConfig.for_model(model_type, **d):
/// {"model_type": ..., fields...}. layer_types is always explicit.
nlohmann::json to_hf_config_json(const model_spec& m);

}  // namespace gs
