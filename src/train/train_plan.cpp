// train_plan.h: arguments -> plan, with every refusal said in one line.
#include "train/train_plan.h"


#include <fmt/format.h>

#include <algorithm>

#include "models/model_registry.h"
#include "train/quant_config_check.h"
#include "train/train_estimate.h"

namespace gs {
namespace {

std::string pattern_text(const model_spec& m) {
  std::string out;
  for (const layer_kind k : m.layer_types) {
    if (out.size() >= 2 * size_t(m.pattern_period)) break;  // one period says it
    out += k == layer_kind::linear_attention ? "L" : k == layer_kind::full_attention ? "F" : "S";
    out += ' ';
  }
  if (!out.empty()) out.pop_back();
  return out + fmt::format(" x{}", m.pattern_period > 0 ? m.num_layers / m.pattern_period : m.num_layers);
}

nlohmann::json model_json(const model_spec& m, const model_spec& real) {
  nlohmann::json counts = nlohmann::json::object();
  for (layer_kind k : {layer_kind::linear_attention, layer_kind::full_attention, layer_kind::sliding_attention})
    if (int n = m.count(k)) counts[std::string(layer_kind_name(k))] = n;
  return {{"name", real.name}, {"shrunk_name", m.name},
          {"model_type", m.model_type},
          {"layers", m.num_layers},
          {"real_layers", real.num_layers},
          {"width_scale", m.width_scale},
          {"hidden_size", m.hidden_size},
          {"intermediate_size", m.intermediate_size},
          {"vocab_size", m.vocab_size},
          {"layer_types", counts},
          {"pattern", pattern_text(m)},
          {"lora_targets", m.lora_targets},
          {"shrunk", m.num_layers != real.num_layers || m.width_scale != 1.0}};
}

}  // namespace

std::vector<std::string> decoder_linear_names(const model_spec& m) {
  std::vector<std::string> names;
  for (layer_kind k : {layer_kind::linear_attention, layer_kind::full_attention, layer_kind::sliding_attention}) {
    if (!m.count(k)) continue;
    for (const linear_module& l : layer_linears(m, k))
      if (std::find(names.begin(), names.end(), l.name) == names.end()) names.push_back(l.name);
  }
  return names;
}

std::optional<train_smoke_plan> plan_train_smoke(const train_smoke_cli& o, std::string* error) {
  auto fail = [error](std::string why) -> std::optional<train_smoke_plan> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  const model_registry& reg = builtin_model_registry();
  std::vector<std::string> near;
  const model_spec* real = find_model(reg, o.model, &near);
  if (!real) {
    std::string msg = "unknown model '" + o.model + "'";
    for (size_t i = 0; i < near.size(); ++i) msg += (i == 0 ? " (did you mean " : ", ") + near[i];
    if (!near.empty()) msg += "?)";
    std::string all;
    for (const std::string& n : reg.names()) all += (all.empty() ? "" : ", ") + n;
    return fail(msg + "; known models: " + all);
  }
  if (o.layers < 0) return fail("--layers must be positive");
  if (!o.weights.empty() && (o.layers > 0 || o.width_scale != 1.0))
    return fail("--layers and --width-scale shrink the registry model; a --weights checkpoint is trained as it is");
  std::string why;
  std::optional<model_spec> m = shrink(*real, o.layers, o.width_scale, &why);
  if (!m) return fail(why);

  train_smoke_plan p;
  train_smoke_request& r = p.request;
  r.model = real->name;  // the report id names the registry model; data.model says how it was shrunk
  nlohmann::json hf = to_hf_config_json(*m);
  r.model_type = hf.value("model_type", m->model_type);
  hf.erase("model_type");  // AutoConfig.for_model takes it positionally
  r.hf_config = std::move(hf);
  r.target_modules = m->lora_targets;
  r.seq = o.seq;
  r.batch = o.batch;
  r.steps = o.steps;
  r.grad_ckpt = !o.no_grad_ckpt;
  r.lr = o.lr;
  r.timeout_s = o.timeout_s;
  r.fresh = o.fresh;
  r.weights = o.weights;
  p.model_json = model_json(*m, *real);

  if (!o.weights.empty()) {
    std::optional<checkpoint_dir> ck = read_checkpoint_dir(o.weights, &why);
    if (!ck) return fail("--weights: " + why);
    quant_config_check q = check_quant_config(ck->config, decoder_linear_names(*m));
    p.quant_check = q.to_json();
    if (q.present) p.notes.push_back("--weights: " + q.summary());
    std::string mt = ck->config.value("model_type", std::string());
    std::string fam = m->family;
    if (!mt.empty() && mt.rfind(fam, 0) != 0)
      p.notes.push_back(fmt::format("--weights: the checkpoint's model_type is {}, not {}'s {}: LoRA targets and "
                                    "the estimate come from the registry model",
                                    mt, m->name, m->model_type));
    p.model_json["weights"] = {{"dir", o.weights}, {"safetensors", ck->safetensors}, {"model_type", mt}};
  }
  p.estimate = estimate_train_smoke(*m, r);
  return p;
}

}  // namespace gs
