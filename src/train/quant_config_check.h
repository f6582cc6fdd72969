// The quantization_config of a pre-quantized checkpoint against train-smoke's pipeline
// (docs/train-smoke.md): bitsandbytes 4-bit, NF4, double quant, bf16 compute, uint8 storage, and
// every nn.Linear inside the decoder layers quantized (only what lies outside them, lm_head, the
// embeddings, a vision tower, stays 16-bit). A checkpoint that differs still loads and trains,
// but with other numerics and another memory figure than the one gpustack measured or estimated:
// the check says which field differs, both values, and what that changes.
//
// C++ rather than Python so it is tested here on fixtures, and so `--weights DIR` says what is
// wrong before a Python process is started.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gs {

struct quant_difference {
  std::string field;       ///< "bnb_4bit_quant_type"
  std::string checkpoint;  ///< the checkpoint's value, as JSON text ("\"fp4\"", "null", "absent")
  std::string pipeline;    ///< what train-smoke uses ("\"nf4\"")
  std::string effect;      ///< one line: what the difference changes
};

struct quant_config_check {
  bool present = false;  ///< the checkpoint has a quantization_config
  bool matches = false;  ///< present and no difference
  std::vector<quant_difference> differences;
  nlohmann::json checkpoint_config;  ///< the quantization_config as read (null when absent)
  std::string summary() const;       ///< one line for the report
  nlohmann::json to_json() const;
};

/// Compares config.json's `quantization_config` (as parsed) with the pipeline's.
/// `decoder_linears` are the module names of the Linear layers inside a decoder layer
/// ("q_proj", "in_proj_qkv", ...): a skip entry naming one of them keeps it 16-bit where the
/// pipeline quantizes it. Missing keys take transformers' BitsAndBytesConfig defaults (fp4, no
/// double quant, float32 compute), which is what loading the checkpoint would use.
quant_config_check check_quant_config(const nlohmann::json& config_json,
                                      const std::vector<std::string>& decoder_linears);

/// A `--weights DIR` checkpoint: its config.json (parsed) and the safetensors files beside it.
struct checkpoint_dir {
  nlohmann::json config;
  std::vector<std::string> safetensors;  ///< file names, sorted
};
/// Reads DIR/config.json; nullopt with *error when DIR or config.json is missing or unreadable,
/// or when no *.safetensors file is there.
std::optional<checkpoint_dir> read_checkpoint_dir(const std::string& dir, std::string* error);

}  // namespace gs
