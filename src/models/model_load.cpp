// matrix/models/*.toml -> model_spec. toml++ throws toml::parse_error on malformed TOML: caught
// here and turned into an error with its position. Every other check cites the position toml++
// kept for the offending key or value. Format: docs/models.md.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <toml++/toml.h>

#include "core/assets.h"
#include "core/edit_distance.h"
#include <fmt/format.h>

#include "models/model_registry.h"

namespace gs {
namespace {

struct model_ctx {
  std::string path;
  std::vector<model_error>* errors;
  void error(const toml::source_region& where, std::string msg) const {
    errors->push_back({path, int(where.begin.line), int(where.begin.column), std::move(msg)});
  }
};

bool check_keys(const toml::table& t, std::initializer_list<std::string_view> allowed, const std::string& what, model_ctx& c) {
  bool ok = true;
  std::vector<std::string> names(allowed.begin(), allowed.end());
  for (auto&& [k, v] : t) {
    if (std::find(allowed.begin(), allowed.end(), k.str()) != allowed.end()) continue;
    std::string msg = "unknown key '" + std::string(k.str()) + "' in " + what;
    std::vector<std::string> near = closest_names(k.str(), names, 3, 1);
    msg += near.empty() ? " (known: " + [&] {
      std::string l;
      for (auto& n : names) l += (l.empty() ? "" : ", ") + n;
      return l;
    }() + ")"
                        : " (did you mean '" + near[0] + "'?)";
    c.error(k.source(), msg);
    ok = false;
  }
  return ok;
}

// Typed getters: a missing required key is an error at the owning table; a wrong type or a value
// out of range is an error at the value.
template <typename T>
const toml::node* get_node(const toml::table& t, std::string_view key, bool required, const toml::source_region& owner,
                           model_ctx& c, bool& ok) {
  const toml::node* n = t.get(key);
  if (!n && required) {
    c.error(owner, "missing required key '" + std::string(key) + "'");
    ok = false;
  }
  return n;
}

void get_int(const toml::table& t, std::string_view key, bool required, int64_t min, int64_t& out,
             const toml::source_region& owner, model_ctx& c, bool& ok) {
  const toml::node* n = get_node<int64_t>(t, key, required, owner, c, ok);
  if (!n) return;
  if (!n->is_integer()) {
    c.error(n->source(), "'" + std::string(key) + "' must be an integer");
    ok = false;
    return;
  }
  int64_t v = n->as_integer()->get();
  if (v < min) {
    c.error(n->source(), "'" + std::string(key) + "' must be at least " + std::to_string(min));
    ok = false;
    return;
  }
  out = v;
}

void get_int(const toml::table& t, std::string_view key, bool required, int64_t min, int& out,
             const toml::source_region& owner, model_ctx& c, bool& ok) {
  int64_t v = out;
  get_int(t, key, required, min, v, owner, c, ok);
  if (v > (int64_t(1) << 30)) {
    c.error(t.get(key)->source(), "'" + std::string(key) + "' is implausibly large");
    ok = false;
    return;
  }
  out = int(v);
}

void get_bool(const toml::table& t, std::string_view key, bool required, bool& out, const toml::source_region& owner,
              model_ctx& c, bool& ok) {
  const toml::node* n = get_node<bool>(t, key, required, owner, c, ok);
  if (!n) return;
  if (!n->is_boolean()) {
    c.error(n->source(), "'" + std::string(key) + "' must be true or false");
    ok = false;
    return;
  }
  out = n->as_boolean()->get();
}

void get_double(const toml::table& t, std::string_view key, bool required, double& out,
                const toml::source_region& owner, model_ctx& c, bool& ok) {
  const toml::node* n = get_node<double>(t, key, required, owner, c, ok);
  if (!n) return;
  if (n->is_floating_point()) out = n->as_floating_point()->get();
  else if (n->is_integer()) out = double(n->as_integer()->get());
  else {
    c.error(n->source(), "'" + std::string(key) + "' must be a number");
    ok = false;
    return;
  }
  if (!std::isfinite(out) || out < 0) {
    c.error(n->source(), "'" + std::string(key) + "' must be a finite number >= 0");
    ok = false;
  }
}

void get_string(const toml::table& t, std::string_view key, bool required, std::string& out,
                const toml::source_region& owner, model_ctx& c, bool& ok) {
  const toml::node* n = get_node<std::string>(t, key, required, owner, c, ok);
  if (!n) return;
  if (!n->is_string() || n->as_string()->get().empty()) {
    c.error(n->source(), "'" + std::string(key) + "' must be a non-empty string");
    ok = false;
    return;
  }
  out = n->as_string()->get();
}

void get_strings(const toml::table& t, std::string_view key, bool required, std::vector<std::string>& out,
                 const toml::source_region& owner, model_ctx& c, bool& ok) {
  const toml::node* n = get_node<std::string>(t, key, required, owner, c, ok);
  if (!n) return;
  const toml::array* a = n->as_array();
  if (!a) {
    c.error(n->source(), "'" + std::string(key) + "' must be an array of strings");
    ok = false;
    return;
  }
  for (const toml::node& e : *a) {
    if (!e.is_string() || e.as_string()->get().empty()) {
      c.error(e.source(), fmt::format("'{}' must hold non-empty strings", key));  // not "'" + string: g++ 12 -O3 -Wrestrict
      ok = false;
      continue;
    }
    out.push_back(e.as_string()->get());
  }
}

const toml::table* get_table(const toml::table& t, std::string_view key, bool required, const toml::source_region& owner,
                             model_ctx& c, bool& ok) {
  const toml::node* n = get_node<int>(t, key, required, owner, c, ok);
  if (!n) return nullptr;
  if (!n->is_table()) {
    c.error(n->source(), "'" + std::string(key) + "' must be a table");
    ok = false;
    return nullptr;
  }
  return n->as_table();
}

nlohmann::json to_json(const toml::node& n) {
  if (n.is_table()) {
    nlohmann::json j = nlohmann::json::object();
    for (auto&& [k, v] : *n.as_table()) j[std::string(k.str())] = to_json(v);
    return j;
  }
  if (n.is_array()) {
    nlohmann::json j = nlohmann::json::array();
    for (const toml::node& e : *n.as_array()) j.push_back(to_json(e));
    return j;
  }
  if (n.is_string()) return n.as_string()->get();
  if (n.is_integer()) return n.as_integer()->get();
  if (n.is_floating_point()) return n.as_floating_point()->get();
  if (n.is_boolean()) return n.as_boolean()->get();
  return nullptr;  // dates and times have no place in an HF config
}

void parse_attention(const toml::table& t, const std::string& what, bool sliding, attention_shape& a, model_ctx& c, bool& ok) {
  bool keys_ok = sliding ? check_keys(t, {"num_heads", "num_kv_heads", "head_dim", "window"}, "[" + what + "]", c)
                         : check_keys(t, {"num_heads", "num_kv_heads", "head_dim", "output_gate", "k_eq_v"}, "[" + what + "]", c);
  if (!keys_ok) ok = false;
  get_int(t, "num_heads", true, 1, a.num_heads, t.source(), c, ok);
  get_int(t, "num_kv_heads", true, 1, a.num_kv_heads, t.source(), c, ok);
  get_int(t, "head_dim", true, 1, a.head_dim, t.source(), c, ok);
  if (sliding) get_int(t, "window", true, 1, a.window, t.source(), c, ok);
  else {
    get_bool(t, "output_gate", false, a.output_gate, t.source(), c, ok);
    get_bool(t, "k_eq_v", false, a.k_eq_v, t.source(), c, ok);
  }
  if (ok && a.num_heads % a.num_kv_heads != 0) {
    c.error(t.get("num_kv_heads")->source(), "num_heads (" + std::to_string(a.num_heads) +
                                                 ") must be a multiple of num_kv_heads (" +
                                                 std::to_string(a.num_kv_heads) + ")");
    ok = false;
  }
}

std::optional<model_spec> parse_model(const toml::table& root, model_ctx& c) {
  bool ok = true;
  model_spec m;
  m.file = c.path;
  const toml::source_region& top = root.source();
  if (!check_keys(root,
             {"name", "aliases", "hf_repo", "family", "model_type", "source", "vocab_size", "hidden_size",
              "intermediate_size", "num_hidden_layers", "hidden_act", "tie_word_embeddings", "max_position_embeddings",
              "rms_norm_eps", "final_logit_softcapping", "layer_pattern", "full_attention", "sliding_attention",
              "linear_attention", "lora", "checkpoint", "hf_extra"},
             "a model file", c)) ok = false;
  get_string(root, "name", true, m.name, top, c, ok);
  get_strings(root, "aliases", false, m.aliases, top, c, ok);
  get_string(root, "hf_repo", true, m.hf_repo, top, c, ok);
  get_string(root, "family", true, m.family, top, c, ok);
  get_string(root, "model_type", true, m.model_type, top, c, ok);
  get_string(root, "source", true, m.source, top, c, ok);
  get_int(root, "vocab_size", true, 1, m.vocab_size, top, c, ok);
  get_int(root, "hidden_size", true, 1, m.hidden_size, top, c, ok);
  get_int(root, "intermediate_size", true, 1, m.intermediate_size, top, c, ok);
  get_int(root, "num_hidden_layers", true, 1, m.num_layers, top, c, ok);
  get_string(root, "hidden_act", true, m.hidden_act, top, c, ok);
  get_bool(root, "tie_word_embeddings", true, m.tie_word_embeddings, top, c, ok);
  get_int(root, "max_position_embeddings", true, 1, m.max_position_embeddings, top, c, ok);
  get_double(root, "rms_norm_eps", true, m.rms_norm_eps, top, c, ok);
  get_double(root, "final_logit_softcapping", false, m.final_logit_softcapping, top, c, ok);

  static const std::vector<std::string> families = {"qwen3_5", "gemma4", "gemma3"};
  if (!m.family.empty() && std::find(families.begin(), families.end(), m.family) == families.end()) {
    c.error(root.get("family")->source(), "unknown family '" + m.family + "' (qwen3_5, gemma4 or gemma3)");
    ok = false;
  }

  if (const toml::table* p = get_table(root, "layer_pattern", true, top, c, ok)) {
    if (!check_keys(*p, {"period", "other", "last_layer_full"}, "[layer_pattern]", c)) ok = false;
    get_int(*p, "period", true, 1, m.pattern_period, p->source(), c, ok);
    std::string other;
    get_string(*p, "other", true, other, p->source(), c, ok);
    if (!other.empty()) {
      auto k = parse_layer_kind(other);
      if (!k || *k == layer_kind::full_attention) {
        c.error(p->get("other")->source(), "'other' must be \"linear_attention\" or \"sliding_attention\"");
        ok = false;
      } else {
        m.other_kind = *k;
      }
    }
    get_bool(*p, "last_layer_full", false, m.last_layer_full, p->source(), c, ok);
  }
  if (const toml::table* t = get_table(root, "full_attention", true, top, c, ok))
    parse_attention(*t, "full_attention", false, m.full_attention, c, ok);
  const toml::table* sl = get_table(root, "sliding_attention", false, top, c, ok);
  if (sl) parse_attention(*sl, "sliding_attention", true, m.sliding_attention, c, ok);
  const toml::table* la = get_table(root, "linear_attention", false, top, c, ok);
  if (la) {
    if (!check_keys(*la, {"num_key_heads", "num_value_heads", "key_head_dim", "value_head_dim", "conv_kernel"},
               "[linear_attention]", c)) ok = false;
    linear_attention_shape& l = m.linear_attention;
    get_int(*la, "num_key_heads", true, 1, l.num_key_heads, la->source(), c, ok);
    get_int(*la, "num_value_heads", true, 1, l.num_value_heads, la->source(), c, ok);
    get_int(*la, "key_head_dim", true, 1, l.key_head_dim, la->source(), c, ok);
    get_int(*la, "value_head_dim", true, 1, l.value_head_dim, la->source(), c, ok);
    get_int(*la, "conv_kernel", true, 1, l.conv_kernel, la->source(), c, ok);
    if (ok && l.num_value_heads % l.num_key_heads != 0) {
      c.error(la->get("num_value_heads")->source(), "num_value_heads must be a multiple of num_key_heads");
      ok = false;
    }
  }
  if (ok && m.other_kind == layer_kind::sliding_attention && !sl) {
    c.error(root.get("layer_pattern")->source(), "the pattern uses sliding_attention but there is no [sliding_attention]");
    ok = false;
  }
  if (ok && m.other_kind == layer_kind::linear_attention && !la) {
    c.error(root.get("layer_pattern")->source(), "the pattern uses linear_attention but there is no [linear_attention]");
    ok = false;
  }
  if (ok && sl && m.sliding_attention.num_heads != m.full_attention.num_heads) {
    c.error(sl->get("num_heads")->source(), "sliding and full layers share num_attention_heads in the HF config");
    ok = false;
  }

  if (const toml::table* l = get_table(root, "lora", true, top, c, ok)) {
    if (!check_keys(*l, {"target_modules"}, "[lora]", c)) ok = false;
    get_strings(*l, "target_modules", true, m.lora_targets, l->source(), c, ok);
  }
  if (const toml::table* k = get_table(root, "checkpoint", false, top, c, ok)) {
    if (!check_keys(*k, {"extra_params", "shard_bytes"}, "[checkpoint]", c)) ok = false;
    get_int(*k, "extra_params", false, 0, m.extra_params, k->source(), c, ok);
    get_int(*k, "shard_bytes", false, 1, m.shard_bytes, k->source(), c, ok);
  }
  if (const toml::table* h = get_table(root, "hf_extra", false, top, c, ok)) m.hf_extra = to_json(*h);
  if (!ok) return std::nullopt;

  m.layer_types.clear();
  for (int i = 0; i < m.num_layers; ++i)
    m.layer_types.push_back((i + 1) % m.pattern_period == 0 ? layer_kind::full_attention : m.other_kind);
  if (m.last_layer_full) m.layer_types.back() = layer_kind::full_attention;

  // Every LoRA target must name a Linear the model has, or PEFT would refuse the config.
  std::vector<std::string> have;
  for (layer_kind k : {layer_kind::full_attention, layer_kind::sliding_attention, layer_kind::linear_attention})
    if (m.count(k))
      for (const linear_module& lm : layer_linears(m, k))
        if (std::find(have.begin(), have.end(), lm.name) == have.end()) have.push_back(lm.name);
  const toml::array* targets = root.get("lora")->as_table()->get("target_modules")->as_array();
  for (size_t i = 0; i < m.lora_targets.size(); ++i) {
    if (std::find(have.begin(), have.end(), m.lora_targets[i]) != have.end()) continue;
    std::vector<std::string> near = closest_names(m.lora_targets[i], have, 3, 1);
    c.error((*targets)[i].source(), "LoRA target '" + m.lora_targets[i] + "' is not a Linear of this model" +
                                        (near.empty() ? "" : " (did you mean '" + near[0] + "'?)"));
    ok = false;
  }
  if (!ok) return std::nullopt;
  m.original_layers = m.num_layers;
  return m;
}

}  // namespace

std::string model_error::describe() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

std::vector<std::string> model_registry::names() const {
  std::vector<std::string> out;
  for (const model_spec& m : models) out.push_back(m.name);
  return out;
}

model_registry load_model_registry(const std::vector<model_source>& files) {
  model_registry reg;
  for (const model_source& f : files) {
    model_ctx c{f.path, &reg.errors};
    toml::table root;
    try {
      root = toml::parse(f.text, f.path);
    } catch (const toml::parse_error& e) {
      c.error(e.source(), std::string(e.description()));
      continue;
    }
    std::optional<model_spec> m = parse_model(root, c);
    if (!m) continue;
    bool dup = false;
    for (const model_spec& o : reg.models) {
      for (const std::string& n : [&] {
             std::vector<std::string> all{m->name};
             all.insert(all.end(), m->aliases.begin(), m->aliases.end());
             return all;
           }()) {
        if (n == o.name || std::find(o.aliases.begin(), o.aliases.end(), n) != o.aliases.end()) {
          c.error(root.get("name")->source(), "model name or alias '" + n + "' is already used by " + o.file);
          dup = true;
        }
      }
    }
    if (!dup) reg.models.push_back(std::move(*m));
  }
  return reg;
}

const model_registry& builtin_model_registry() {
  static const model_registry reg = [] {
    std::vector<model_source> files;
    for (const asset& a : assets_under("matrix/models/"))
      if (std::string_view(a.path).ends_with(".toml")) files.push_back({a.path, std::string(a.text)});
    return load_model_registry(files);
  }();
  return reg;
}

const model_spec* find_model(const model_registry& reg, std::string_view name, std::vector<std::string>* suggestions) {
  auto lower = [](std::string_view s) {
    std::string o(s);
    for (char& ch : o) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return o;
  };
  std::string want = lower(name);
  for (const model_spec& m : reg.models) {
    if (lower(m.name) == want) return &m;
    for (const std::string& a : m.aliases)
      if (lower(a) == want) return &m;
  }
  if (suggestions) {
    std::vector<std::string> cands;
    for (const model_spec& m : reg.models) cands.push_back(m.name);
    *suggestions = closest_names(want, cands, 4, 3);
  }
  return nullptr;
}

}  // namespace gs
