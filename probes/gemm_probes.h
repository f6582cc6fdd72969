// Probes gemm.fp32, gemm.bf16 and gemm.fp16: kernels/gemm.cu on seeded random inputs, checked
// against the CPU reference with a written error bound, then timed on a large square product.
// The rate is judged against what this kernel can reach on the card (expected_perf.toml), not
// against the tensor-core peak that cuBLAS / torch.matmul reach; docs/kernels.md says why.
#pragma once
#include <memory>

#include "probes/gemm_inputs.h"
#include "probes/probe.h"
#include "runtime/runtime.h"

namespace gs {

extern const probe_spec gemm_fp32_probe;
extern const probe_spec gemm_bf16_probe;
extern const probe_spec gemm_fp16_probe;

/// The probe for `type` on `rt` (tests pass open_cpu_runtime()); null `rt` opens ctx.device.
/// Options: kernel (v1 naive | v2 tiled, default v2), size (square size of the timed product),
/// iters (timed launches).
probe_result run_gemm_with(const probe_context& ctx, gemm_type type, std::unique_ptr<runtime> rt);

}  // namespace gs
