// Probe serving.settings (issue 6, step 13): serving settings found in the environment
// (llama.cpp's LLAMA_ARG_*, vLLM's VLLM_*) or in a file given with --set serving_config=FILE
// (key=value lines or one JSON object), checked for combinations that fail or waste memory:
// a quantized V cache without flash attention, ubatch above batch, context split across
// parallel slots too thin, a KV cache larger than the GPU, cache types llama.cpp does not know.
// Pure parsing and arithmetic: it runs in-process and touches no GPU.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "probes/probe.h"

namespace gs {

extern const probe_spec serving_settings_probe;

struct serving_setting {
  std::string value;
  std::string source;  ///< "LLAMA_ARG_UBATCH" or "config.toml:3"
};
/// Canonical key -> setting. Keys: ctx_size, batch_size, ubatch_size, parallel, cache_type_k,
/// cache_type_v, flash_attn, n_gpu_layers, gpu_memory_utilization, max_model_len, max_num_seqs,
/// kv_cache_dtype, attention_backend, and model geometry for the KV estimate: n_layer,
/// n_head_kv, head_dim, model_bytes.
using serving_settings = std::map<std::string, serving_setting>;

/// Settings from environment variables (unknown names ignored).
void serving_from_env(const std::map<std::string, std::string>& env, serving_settings& out);
/// Settings from a file's text: a JSON object, else key=value lines (# comments). Keys may be
/// canonical, llama.cpp flag names (ubatch-size, cache-type-v, np) or the env names. Problems
/// (bad line, bad JSON) go to `errors` as "FILE:LINE: message".
void serving_from_text(const std::string& text, const std::string& file, serving_settings& out,
                       std::vector<std::string>& errors);

struct serving_issue {
  status level;         ///< warn or fail
  std::string rule;     ///< "quantized-v-without-fa", "ubatch-above-batch", ...
  std::string message;
};
/// The sanity rules, against the smallest GPU's memory when detection found one.
std::vector<serving_issue> check_serving(const serving_settings& s, const machine_facts* facts);
/// The probe's result from settings, issues and file errors.
probe_result serving_result(const serving_settings& s, const std::vector<serving_issue>& issues,
                            const std::vector<std::string>& errors);

}  // namespace gs
