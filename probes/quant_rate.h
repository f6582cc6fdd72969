// The timed part of quant.nf4 / quant.fp4: dequantize an S x S matrix to bf16 with each version
// (v1 naive, v2 and v3 vectorised) and run the bf16 4-bit GEMV on it, every output checked bit
// for bit against the reference, each timed over `iters` launches with the runtime's events.
// Bandwidth counts the bytes a kernel must move: codes + absmax + output (dequant), codes +
// absmax + A + out (GEMV); docs/quant.md compares them with bitsandbytes on the same card.
#pragma once
#include <nlohmann/json.hpp>

#include "kernels/ref/quant4_ref.h"
#include "probes/quant_probe_util.h"

namespace gs {

struct quant_rate_options {
  quant4_kind kind = quant4_kind::nf4;
  int size = 8192;      ///< S
  int iters = 50;
  int blocksize = 64;
};

/// Fill `out` with {"size", "blocksize", "iters", "dequant_bf16": {v1, v2, v3: {us, gbps}},
/// "gemv_bf16": {us, gbps}, "bytes": {...}}; comparisons go to `log`. False after a runtime
/// failure (already recorded in the session).
bool time_quant4(gpu_session& s, quant_module& m, const quant_rate_options& o, nlohmann::json& out, check_log& log);

}  // namespace gs
