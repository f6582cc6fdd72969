// serving.settings (serving_probe.h). The llama.cpp facts behind the rules: the server splits
// -c (ctx_size) evenly across -np slots unless the cache is unified; it clamps ubatch to batch;
// it refuses a quantized V cache unless flash attention is on (the V^T layout FA avoids cannot
// be quantized); the default batch is 2048 and ubatch 512.
#include "probes/serving_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "core/byte_size.h"
#include "core/text_scan.h"
#include "sys/sysroot.h"

namespace gs {
namespace {

/// Canonical keys and every alias they are written as (env names, llama.cpp flags, vLLM args).
const std::vector<std::pair<std::string, std::vector<std::string>>>& key_table() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> t = {
      {"ctx_size", {"LLAMA_ARG_CTX_SIZE", "ctx-size", "c", "n_ctx"}},
      {"batch_size", {"LLAMA_ARG_BATCH", "batch-size", "b", "n_batch"}},
      {"ubatch_size", {"LLAMA_ARG_UBATCH", "ubatch-size", "ub", "n_ubatch", "ubatch"}},
      {"parallel", {"LLAMA_ARG_N_PARALLEL", "np", "n_parallel", "slots"}},
      {"cache_type_k", {"LLAMA_ARG_CACHE_TYPE_K", "cache-type-k", "ctk"}},
      {"cache_type_v", {"LLAMA_ARG_CACHE_TYPE_V", "cache-type-v", "ctv"}},
      {"flash_attn", {"LLAMA_ARG_FLASH_ATTN", "flash-attn", "fa"}},
      {"n_gpu_layers", {"LLAMA_ARG_N_GPU_LAYERS", "n-gpu-layers", "ngl", "gpu-layers"}},
      {"gpu_memory_utilization", {"VLLM_GPU_MEMORY_UTILIZATION", "gpu-memory-utilization"}},
      {"max_model_len", {"VLLM_MAX_MODEL_LEN", "max-model-len"}},
      {"max_num_seqs", {"VLLM_MAX_NUM_SEQS", "max-num-seqs"}},
      {"kv_cache_dtype", {"VLLM_KV_CACHE_DTYPE", "kv-cache-dtype"}},
      {"attention_backend", {"VLLM_ATTENTION_BACKEND", "attention-backend"}},
      {"n_layer", {"num_hidden_layers", "block_count"}},
      {"n_head_kv", {"num_key_value_heads", "head_count_kv"}},
      {"head_dim", {"key_length"}},
      {"model_bytes", {"model_size_bytes"}},
  };
  return t;
}

std::string canonical(std::string k) {
  while (!k.empty() && k.front() == '-') k.erase(k.begin());
  for (const auto& [canon, aliases] : key_table()) {
    if (k == canon) return canon;
    for (const std::string& a : aliases)
      if (k == a) return canon;
  }
  std::string dashed = k;  // "ubatch_size" written "ubatch-size" and vice versa
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  for (const auto& [canon, aliases] : key_table())
    for (const std::string& a : aliases)
      if (dashed == a) return canon;
  return {};
}

/// A value as written, without surrounding space and one pair of matching quotes.
std::string unquoted(std::string_view text) {
  std::string_view s = scan::trim(text);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  return std::string(s);
}

std::optional<double> number(const serving_settings& s, const std::string& k) {
  auto it = s.find(k);
  if (it == s.end()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(it->second.value.c_str(), &end);
  if (end == it->second.value.c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

using scan::lower;

/// Bytes per element of a llama.cpp cache type, 0 when unknown. q8_0 is 34 bytes per 32
/// values, q4_0 18/32, q4_1 20/32, q5_0 22/32, q5_1 24/32, iq4_nl 18/32.
double cache_bytes(const std::string& t) {
  static const std::map<std::string, double> b = {{"f32", 4}, {"f16", 2}, {"bf16", 2}, {"q8_0", 34.0 / 32},
                                                  {"q4_0", 18.0 / 32}, {"q4_1", 20.0 / 32}, {"q5_0", 22.0 / 32},
                                                  {"q5_1", 24.0 / 32}, {"iq4_nl", 18.0 / 32}};
  auto it = b.find(lower(t));
  return it == b.end() ? 0 : it->second;
}

bool is_quantized(const std::string& t) { return cache_bytes(t) > 0 && cache_bytes(t) < 2; }

std::optional<bool> flag(const serving_settings& s, const std::string& k) {
  auto it = s.find(k);
  if (it == s.end()) return std::nullopt;
  std::string v = lower(it->second.value);
  if (v == "1" || v == "on" || v == "true" || v == "yes" || v == "enabled") return true;
  if (v == "0" || v == "off" || v == "false" || v == "no" || v == "disabled") return false;
  return std::nullopt;  // "auto" and anything else: llama.cpp decides at load time
}

}  // namespace

void serving_from_env(const std::map<std::string, std::string>& env, serving_settings& out) {
  for (const auto& [k, v] : env) {
    if (k.rfind("LLAMA_ARG_", 0) != 0 && k.rfind("VLLM_", 0) != 0) continue;
    std::string c = canonical(k);
    if (!c.empty()) out[c] = {v, k};
  }
}

void serving_from_text(const std::string& text, const std::string& file, serving_settings& out,
                       std::vector<std::string>& errors) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    try {
      nlohmann::json j = nlohmann::json::parse(text);
      for (const auto& [k, v] : j.items()) {
        std::string c = canonical(k);
        if (c.empty()) continue;
        std::string val = v.is_string() ? v.get<std::string>() : v.is_boolean() ? (v.get<bool>() ? "on" : "off") : v.dump();
        out[c] = {val, file + ":" + k};
      }
    } catch (const std::exception& e) {
      errors.push_back(file + ": not valid JSON: " + e.what());
    }
    return;
  }
  std::stringstream ss(text);
  std::string line;
  for (int n = 1; std::getline(ss, line); ++n) {
    std::string t = unquoted(line.substr(0, line.find('#')));
    if (t.empty()) continue;
    size_t eq = t.find('=');
    if (eq == std::string::npos) eq = t.find(':');
    if (eq == std::string::npos) {
      errors.push_back(fmt::format("{}:{}: expected key=value", file, n));
      continue;
    }
    std::string k = unquoted(t.substr(0, eq)), v = unquoted(t.substr(eq + 1));
    std::string c = canonical(k);
    if (!c.empty()) out[c] = {v, fmt::format("{}:{}", file, n)};
  }
}

std::vector<serving_issue> check_serving(const serving_settings& s, const machine_facts* facts) {
  std::vector<serving_issue> out;
  auto add = [&](status l, const char* rule, std::string m) { out.push_back({l, rule, std::move(m)}); };
  for (const char* k : {"ctx_size", "batch_size", "ubatch_size", "parallel", "n_gpu_layers", "max_model_len",
                        "max_num_seqs", "gpu_memory_utilization", "n_layer", "n_head_kv", "head_dim", "model_bytes"})
    if (s.count(k) && !number(s, k))
      add(status::fail, "not-a-number", fmt::format("{} = '{}' ({}) is not a number", k, s.at(k).value, s.at(k).source));
  for (const char* k : {"cache_type_k", "cache_type_v"})
    if (s.count(k) && cache_bytes(s.at(k).value) == 0)
      add(status::fail, "unknown-cache-type",
          fmt::format("{} = '{}' ({}) is not a llama.cpp cache type (f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1)",
                      k, s.at(k).value, s.at(k).source));
  if (s.count("cache_type_v") && is_quantized(s.at("cache_type_v").value)) {
    std::optional<bool> fa = flag(s, "flash_attn");
    if (fa && !*fa)
      add(status::fail, "quantized-v-without-fa",
          fmt::format("cache_type_v = {} with flash attention off: llama.cpp refuses a quantized V cache without "
                      "flash attention (set LLAMA_ARG_FLASH_ATTN=on or use cache_type_v = f16)", s.at("cache_type_v").value));
    else if (!fa && !s.count("flash_attn"))
      add(status::warn, "quantized-v-without-fa",
          fmt::format("cache_type_v = {} but flash attention is not set: builds before 'auto' became the default "
                      "(mid 2025) refuse to start; set LLAMA_ARG_FLASH_ATTN=on", s.at("cache_type_v").value));
  }
  double batch = number(s, "batch_size").value_or(2048), ubatch = number(s, "ubatch_size").value_or(512);
  if (ubatch > batch)
    add(status::warn, "ubatch-above-batch",
        fmt::format("ubatch_size {} > batch_size {}: llama.cpp clamps ubatch to batch, so the larger ubatch has no "
                    "effect", ubatch, batch));
  std::optional<double> ctx = number(s, "ctx_size"), par = number(s, "parallel");
  if (ctx && par && *par >= 1 && *ctx > 0) {
    double per_slot = *ctx / *par;
    if (per_slot < 2048)
      add(status::warn, "thin-slots",
          fmt::format("ctx_size {} is split across {} parallel slots: {} tokens each (the context is per server, "
                      "not per slot, unless --kv-unified)", *ctx, *par, static_cast<long long>(per_slot)));
  }
  if (std::optional<double> u = number(s, "gpu_memory_utilization"); u && (*u <= 0 || *u > 1))
    add(status::fail, "bad-memory-fraction", fmt::format("gpu_memory_utilization {} is outside (0, 1]", *u));
  // KV estimate: tokens x layers x kv heads x head dim x (K + V bytes per element).
  std::optional<double> layers = number(s, "n_layer"), heads = number(s, "n_head_kv"), hd = number(s, "head_dim");
  uint64_t vram = 0;
  if (facts)
    for (const gpu_info& g : facts->gpus)
      if (g.vram_bytes && (!vram || g.vram_bytes < vram)) vram = g.vram_bytes;
  if (layers && heads && hd && vram) {
    double tokens = 0;
    if (s.count("max_model_len") || s.count("max_num_seqs"))
      tokens = number(s, "max_model_len").value_or(0) * number(s, "max_num_seqs").value_or(1);
    else if (ctx)
      tokens = *ctx;
    double kb = cache_bytes(s.count("cache_type_k") ? s.at("cache_type_k").value : "f16");
    double vb = cache_bytes(s.count("cache_type_v") ? s.at("cache_type_v").value : "f16");
    if (s.count("kv_cache_dtype") && lower(s.at("kv_cache_dtype").value).rfind("fp8", 0) == 0) kb = vb = 1;
    double kv = tokens * *layers * *heads * *hd * ((kb ? kb : 2) + (vb ? vb : 2));
    double model = number(s, "model_bytes").value_or(0);
    double budget = vram * number(s, "gpu_memory_utilization").value_or(1.0);
    if (tokens > 0 && kv + model > budget)
      add(status::fail, "kv-exceeds-vram",
          fmt::format("KV cache {} for {} tokens{} exceeds {} of GPU memory", gib_text(kv), static_cast<long long>(tokens),
                      model > 0 ? " plus the " + gib_text(model) + " model" : "", gib_text(budget)));
    else if (tokens > 0 && kv + model > 0.9 * budget)
      add(status::warn, "kv-near-vram",
          fmt::format("KV cache {} for {} tokens{} uses over 90 % of {} of GPU memory", gib_text(kv),
                      static_cast<long long>(tokens), model > 0 ? " plus the " + gib_text(model) + " model" : "", gib_text(budget)));
  }
  return out;
}

probe_result serving_result(const serving_settings& s, const std::vector<serving_issue>& issues,
                            const std::vector<std::string>& errors) {
  probe_result r;
  r.id = "serving.settings";
  r.phase = "verify";
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& [k, v] : s) settings[k] = {{"value", v.value}, {"source", v.source}};
  r.data["settings"] = settings;
  nlohmann::json list = nlohmann::json::array();
  for (const serving_issue& i : issues) list.push_back({{"level", to_string(i.level)}, {"rule", i.rule}, {"message", i.message}});
  r.data["issues"] = list;
  if (!errors.empty()) r.data["config_errors"] = errors;
  if (s.empty() && errors.empty()) {
    r.outcome = status::skip;
    r.detail = "no serving settings in the environment (LLAMA_ARG_*, VLLM_*) and no --set serving_config=FILE";
    return r;
  }
  bool fail = !errors.empty() || std::any_of(issues.begin(), issues.end(), [](const serving_issue& i) { return i.level == status::fail; });
  r.outcome = fail ? status::fail : issues.empty() ? status::pass : status::warn;
  if (issues.empty() && errors.empty()) {
    r.detail = fmt::format("{} serving setting(s) checked; nothing conflicts", s.size());
  } else {
    r.detail = !errors.empty() ? errors.front() : issues.front().message;
    if (issues.size() + errors.size() > 1) r.detail += fmt::format(" (+{} more)", issues.size() + errors.size() - 1);
  }
  return r;
}

namespace {

probe_result run_serving(const probe_context& ctx) {
  ctx.phase("verify");
  serving_settings s;
  std::vector<std::string> errors;
  serving_from_env(sysroot::live().environment(), s);
  if (auto it = ctx.options.find("serving_config"); it != ctx.options.end()) {
    std::ifstream in(it->second, std::ios::binary);
    if (!in) {
      errors.push_back(it->second + ": cannot be read");
    } else {
      std::stringstream ss;
      ss << in.rdbuf();
      serving_from_text(ss.str(), it->second, s, errors);
    }
  }
  return serving_result(s, check_serving(s, ctx.facts), errors);
}

}  // namespace

const probe_spec serving_settings_probe = {
    "serving.settings", "llama.cpp/vLLM serving settings (env or --set serving_config=FILE) checked for sanity",
    {}, false, false, run_serving};

}  // namespace gs
