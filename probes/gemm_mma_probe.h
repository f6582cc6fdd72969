// Probes gemm.mma.bf16 and gemm.mma.fp16: kernels/gemm_mma.cu, GEMM on the GPU's matrix unit
// (mma.sync on sm_80+, WMMA on gfx11/gfx12, MFMA on gfx9), nn.Linear's layout, checked against the
// CPU reference with gemm_inputs.h's bound and timed; the rate is judged against the card's dense
// matrix peak (expected_perf.toml), not against any kernel of ours.
#pragma once
#include <memory>
#include <string>

#include "probes/gemm_inputs.h"
#include "probes/probe.h"
#include "runtime/runtime.h"

namespace gs {

extern const probe_spec gemm_mma_bf16_probe;
extern const probe_spec gemm_mma_fp16_probe;

/// The matrix instruction kernels/gs_mma.h lowers to on this device ("mma.sync.m16n8k16",
/// "wmma_f32_16x16x16 (gfx12)", "mfma_f32_16x16x16", "cpu reference"), or "" where it has none.
std::string matrix_unit_for(const device_props& p);

/// The probe for `type` (bf16 or fp16) on `rt` (tests pass open_cpu_runtime()); null `rt` opens
/// ctx.device. Options: size (square size of the timed product), iters (timed launches).
probe_result run_gemm_mma_with(const probe_context& ctx, gemm_type type, std::unique_ptr<runtime> rt);

}  // namespace gs
