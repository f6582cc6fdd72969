// blas.bf16 / blas.fp16 (issue 17): the vendor BLAS that training loads (cuBLASLt on NVIDIA;
// hipBLASLt and rocBLAS on ROCm, both, since TORCH_BLAS_PREFER_HIPBLASLT picks between them) at
// every GEMM of a QLoRA step of a registry model: checked against the CPU reference, timed, judged
// against the card. One probe per dtype, not per library: a ROCm user needs the two libraries side
// by side in one result (which one fails, which one is slow), and bf16 and fp16 are separate
// kernel sets with separate failures. docs/blas.md.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "blas/blas_library.h"
#include "models/qlora_gemms.h"
#include "probes/probe.h"
#include "runtime/runtime.h"

namespace gs {

/// What tests replace; empty members mean "as the probe does it".
struct blas_probe_setup {
  std::function<std::unique_ptr<runtime>()> open_rt;  ///< opened in each library's child
  std::optional<std::vector<qlora_gemm>> gemms;       ///< instead of the model's step
};

probe_result run_blas_with(const probe_context& ctx, blas_type type, const blas_probe_setup& setup);

extern const probe_spec blas_bf16_probe;
extern const probe_spec blas_fp16_probe;

}  // namespace gs
