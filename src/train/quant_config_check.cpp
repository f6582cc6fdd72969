// quant_config_check.h: the checkpoint's quantization_config field by field against the pipeline.
#include "train/quant_config_check.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "core/text_scan.h"

namespace gs {
namespace {

std::string show(const nlohmann::json* v) { return v ? v->dump() : "absent"; }

const nlohmann::json* field(const nlohmann::json& q, const char* key) {
  auto it = q.find(key);
  return it == q.end() ? nullptr : &*it;
}

/// "torch.bfloat16" and "bfloat16" are the same dtype (older transformers wrote the first).
std::string dtype_name(const nlohmann::json* v, const char* fallback) {
  if (!v || v->is_null()) return fallback;
  if (!v->is_string()) return v->dump();
  std::string s = v->get<std::string>();
  if (s.rfind("torch.", 0) == 0) s = s.substr(6);
  return s;
}

bool truthy(const nlohmann::json* v) { return v && v->is_boolean() && v->get<bool>(); }

/// Skip entries that keep a decoder Linear in 16 bit: the Linear itself, or a module that
/// holds some (a whole layer, its attention or MLP block).
std::vector<std::string> decoder_skips(const nlohmann::json& list, const std::vector<std::string>& decoder_linears) {
  static const std::set<std::string, std::less<>> containers = {"layers", "self_attn", "linear_attn", "mlp"};
  std::vector<std::string> out;
  for (const nlohmann::json& e : list) {
    if (!e.is_string()) continue;
    for (std::string_view part : scan::split(e.get_ref<const std::string&>(), '.'))
      if (containers.count(part) ||
          std::find(decoder_linears.begin(), decoder_linears.end(), part) != decoder_linears.end()) {
        out.push_back(e.get<std::string>());
        break;
      }
  }
  return out;
}

bool names_lm_head(const nlohmann::json& list) {
  for (const nlohmann::json& e : list)
    if (e.is_string()) {
      std::vector<std::string_view> parts = scan::split(e.get_ref<const std::string&>(), '.');
      if (std::find(parts.begin(), parts.end(), "lm_head") != parts.end()) return true;
    }
  return false;
}

}  // namespace

quant_config_check check_quant_config(const nlohmann::json& config_json,
                                      const std::vector<std::string>& decoder_linears) {
  quant_config_check c;
  const nlohmann::json* qp = config_json.is_object() ? field(config_json, "quantization_config") : nullptr;
  if (!qp || qp->is_null()) return c;
  c.present = true;
  c.checkpoint_config = *qp;
  auto differ = [&c](std::string f, std::string got, std::string want, std::string effect) {
    c.differences.push_back({std::move(f), std::move(got), std::move(want), std::move(effect)});
  };
  if (!qp->is_object()) {
    differ("quantization_config", qp->dump(), "an object", "transformers cannot read it");
    return c;
  }
  const nlohmann::json& q = *qp;
  const nlohmann::json* method = field(q, "quant_method");
  if (!method || !method->is_string() || method->get<std::string>() != "bitsandbytes") {
    differ("quant_method", show(method), "\"bitsandbytes\"",
           "quantized by another method: the NF4 pipeline, its numerics and gpustack's memory figures do not apply");
    return c;
  }
  bool four = truthy(field(q, "load_in_4bit")) || truthy(field(q, "_load_in_4bit"));
  if (!four) {
    bool eight = truthy(field(q, "load_in_8bit")) || truthy(field(q, "_load_in_8bit"));
    differ("load_in_4bit", show(field(q, "load_in_4bit")), "true",
           eight ? "LLM.int8 weights: about 1 byte per parameter instead of ~0.52, and int8 matmuls"
                 : "no 4-bit weights are loaded");
    return c;
  }
  // The defaults below are BitsAndBytesConfig's, which is what transformers applies to a key the
  // file does not have.
  const nlohmann::json* qt = field(q, "bnb_4bit_quant_type");
  std::string type = qt && qt->is_string() ? qt->get<std::string>() : "fp4";
  if (type != "nf4")
    differ("bnb_4bit_quant_type", show(qt), "\"nf4\"",
           "4-bit code " + type + " instead of NormalFloat4: other rounding of the same weights, same memory");
  const nlohmann::json* dq = field(q, "bnb_4bit_use_double_quant");
  if (!truthy(dq))
    differ("bnb_4bit_use_double_quant", show(dq), "true",
           "absmax kept in fp32: 0.5625 bytes per weight instead of 0.5159 (+9 % on the quantized Linears)");
  const nlohmann::json* cd = field(q, "bnb_4bit_compute_dtype");
  std::string compute = dtype_name(cd, "float32");
  if (compute != "bfloat16")
    differ("bnb_4bit_compute_dtype", show(cd), "\"bfloat16\"",
           compute == "float16" ? "matmuls in fp16: activations of a bf16-trained model can overflow"
           : compute == "float32" ? "matmuls in fp32: slower, and larger dequantized weights per layer"
                                  : "matmuls in " + compute);
  const nlohmann::json* qs = field(q, "bnb_4bit_quant_storage");
  std::string storage = dtype_name(qs, "uint8");
  if (storage != "uint8")
    differ("bnb_4bit_quant_storage", show(qs), "\"uint8\"",
           "packed codes stored as " + storage + " (the FSDP layout): same bytes, another parameter dtype");
  const nlohmann::json* skip = field(q, "llm_int8_skip_modules");
  if (skip && skip->is_array()) {
    std::vector<std::string> kept = decoder_skips(*skip, decoder_linears);
    if (!kept.empty()) {
      std::string names;
      for (const std::string& k : kept) names += (names.empty() ? "" : ", ") + k;
      differ("llm_int8_skip_modules", skip->dump(), "null (only lm_head and modules outside the decoder stay 16-bit)",
             "decoder Linears kept in 16 bit (" + names +
                 "): about 2 bytes per parameter there instead of ~0.52, more GPU memory than gpustack estimates");
    }
    if (!names_lm_head(*skip))
      differ("llm_int8_skip_modules", skip->dump(), "a list naming lm_head, or null",
             "an explicit list without lm_head quantizes the output projection to 4 bit too (transformers adds "
             "its default skips only when the list is null): other logits than the pipeline's bf16 lm_head");
  } else if (skip && !skip->is_null()) {
    differ("llm_int8_skip_modules", skip->dump(), "a list or null", "transformers expects a list of module names");
  }
  c.matches = c.differences.empty();
  return c;
}

std::string quant_config_check::summary() const {
  if (!present) return "no quantization_config: train-smoke quantizes the bf16 weights itself";
  if (matches) return "quantization_config matches the pipeline (bitsandbytes NF4, double quant, bf16 compute)";
  std::string s = "quantization_config differs from the pipeline in ";
  for (size_t i = 0; i < differences.size(); ++i)
    s += (i ? ", " : "") + differences[i].field + " (" + differences[i].checkpoint + ")";
  return s;
}

nlohmann::json quant_config_check::to_json() const {
  nlohmann::json d = nlohmann::json::array();
  for (const quant_difference& x : differences)
    d.push_back({{"field", x.field}, {"checkpoint", x.checkpoint}, {"pipeline", x.pipeline}, {"effect", x.effect}});
  return {{"present", present}, {"matches", matches}, {"differences", d},
          {"checkpoint", checkpoint_config}, {"summary", summary()}};
}

std::optional<checkpoint_dir> read_checkpoint_dir(const std::string& dir, std::string* error) {
  auto fail = [error](std::string why) -> std::optional<checkpoint_dir> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return fail(dir + " is not a directory");
  std::ifstream in(dir + "/config.json", std::ios::binary);
  if (!in) return fail(dir + " has no config.json (a Hugging Face checkpoint directory has one)");
  checkpoint_dir c;
  try {
    c.config = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    return fail(dir + "/config.json is not valid JSON: " + e.what());
  }
  if (!c.config.is_object()) return fail(dir + "/config.json is not a JSON object");
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 12 && n.compare(n.size() - 12, 12, ".safetensors") == 0) c.safetensors.push_back(n);
    }
    ::closedir(d);
  }
  std::sort(c.safetensors.begin(), c.safetensors.end());
  if (c.safetensors.empty()) return fail(dir + " has no *.safetensors file (train-smoke loads safetensors only)");
  return c;
}

}  // namespace gs
