// From `gpustack train-smoke` arguments to what runs: the registry model (shrunk or not), the HF
// config and LoRA targets the script builds it from, the --weights checkpoint's config check,
// and the estimator's prediction for the same shape. Every bad argument is an error here, said
// before anything starts (exit 2).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "train/train_smoke.h"

namespace gs {

struct model_spec;

struct train_smoke_cli {
  std::string model;
  int layers = 0;            ///< 0 = the model's own count
  double width_scale = 1.0;
  int seq = 512, batch = 1, steps = 5;
  bool no_grad_ckpt = false;
  std::string weights;
  double timeout_s = 0;
  double lr = 1e-3;
  bool fresh = false;  ///< --fresh
};

struct train_smoke_plan {
  train_smoke_request request;
  nlohmann::json model_json;                 ///< data.model: name, layers, pattern, widths
  std::optional<nlohmann::json> quant_check; ///< --weights: quant_config_check::to_json()
  std::optional<nlohmann::json> estimate;    ///< the estimator's prediction, when it has one
  std::vector<std::string> notes;            ///< said on stderr before the run
};

/// nullopt with *error (one line, close model names included) on any bad argument.
std::optional<train_smoke_plan> plan_train_smoke(const train_smoke_cli& o, std::string* error);

/// The Linear module names inside m's decoder layers (every layer kind), for the quant check.
std::vector<std::string> decoder_linear_names(const model_spec& m);

}  // namespace gs
