// The estimator's prediction for a train-smoke shape, beside the measured peak (issue 7 asks
// for them within 15 %). The one place train-smoke touches `gpustack estimate`'s code.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>

#include "train/train_smoke.h"

namespace gs {

struct model_spec;

/// The prediction for model m (already shrunk) trained as r describes: the estimator's JSON
/// with its peak GPU bytes ("peak_gpu_bytes"); nullopt when the estimator has no figure for it.
std::optional<nlohmann::json> estimate_train_smoke(const model_spec& m, const train_smoke_request& r);

}  // namespace gs
