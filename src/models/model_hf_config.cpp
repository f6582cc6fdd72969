// to_hf_config_json(): the text-config fields transformers 5.17 reads, by family. Field names
// were read from transformers 5.17.0's configuration_qwen3_5.py (Qwen3_5TextConfig),
// configuration_gemma4.py (Gemma4TextConfig: global_head_dim and num_global_key_value_heads are
// __post_init__ kwargs that become per_layer_config) and configuration_gemma3.py.
// layer_types is always written out, so a shrunk model keeps its pattern whatever the class
// default interval is. hf_extra (rope parameters) is merged last, verbatim.
#include "models/model_registry.h"

namespace gs {

nlohmann::json to_hf_config_json(const model_spec& m) {
  nlohmann::json j = nlohmann::json::object();
  j["model_type"] = m.model_type;
  j["vocab_size"] = m.vocab_size;
  j["hidden_size"] = m.hidden_size;
  j["intermediate_size"] = m.intermediate_size;
  j["num_hidden_layers"] = m.num_layers;
  j["max_position_embeddings"] = m.max_position_embeddings;
  j["rms_norm_eps"] = m.rms_norm_eps;
  j["tie_word_embeddings"] = m.tie_word_embeddings;
  nlohmann::json types = nlohmann::json::array();
  for (layer_kind k : m.layer_types) types.push_back(std::string(layer_kind_name(k)));
  j["layer_types"] = types;

  if (m.family == "qwen3_5") {
    j["hidden_act"] = m.hidden_act;
    j["num_attention_heads"] = m.full_attention.num_heads;
    j["num_key_value_heads"] = m.full_attention.num_kv_heads;
    j["head_dim"] = m.full_attention.head_dim;
    j["attn_output_gate"] = m.full_attention.output_gate;
    j["full_attention_interval"] = m.pattern_period;
    j["linear_num_key_heads"] = m.linear_attention.num_key_heads;
    j["linear_num_value_heads"] = m.linear_attention.num_value_heads;
    j["linear_key_head_dim"] = m.linear_attention.key_head_dim;
    j["linear_value_head_dim"] = m.linear_attention.value_head_dim;
    j["linear_conv_kernel_dim"] = m.linear_attention.conv_kernel;
  } else {
    // Gemma: sliding layers carry num_key_value_heads/head_dim; full layers the global ones.
    const attention_shape& sl = m.sliding_attention;
    const attention_shape& fu = m.full_attention;
    j["hidden_activation"] = m.hidden_act;
    j["num_attention_heads"] = fu.num_heads;
    j["num_key_value_heads"] = sl.present() ? sl.num_kv_heads : fu.num_kv_heads;
    j["head_dim"] = sl.present() ? sl.head_dim : fu.head_dim;
    if (sl.present()) j["sliding_window"] = sl.window;
    j["final_logit_softcapping"] = m.final_logit_softcapping > 0 ? nlohmann::json(m.final_logit_softcapping) : nlohmann::json(nullptr);
    if (m.family == "gemma4") {
      j["global_head_dim"] = fu.head_dim;
      j["num_global_key_value_heads"] = fu.num_kv_heads;
      j["attention_k_eq_v"] = fu.k_eq_v;
      j["hidden_size_per_layer_input"] = 0;  // no per-layer-input (PLE) table on the large models
      j["num_kv_shared_layers"] = 0;
      j["enable_moe_block"] = false;
    }
  }
  for (auto it = m.hf_extra.begin(); it != m.hf_extra.end(); ++it) j[it.key()] = it.value();
  return j;
}

}  // namespace gs
