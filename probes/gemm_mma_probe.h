// Probes gemm.mma.bf16 and gemm.mma.fp16: kernels/gemm_mma.cu, GEMM on the GPU's matrix unit
// (wgmma + TMA on sm_90, mma.sync on other sm_80+, WMMA on gfx11/gfx12, MFMA on gfx9), nn.Linear's layout, checked against the
// CPU reference with gemm_inputs.h's bound and timed; the rate is judged against the card's dense
// matrix peak (expected_perf.toml), not against any kernel of ours.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "probes/gemm_inputs.h"
#include "probes/probe.h"
#include "runtime/runtime.h"

namespace gs {

extern const probe_spec gemm_mma_bf16_probe;
extern const probe_spec gemm_mma_fp16_probe;
extern const probe_spec gemm_mma_fp8_probe;

/// The matrix instruction kernels/gs_mma.h lowers to on this device ("mma.sync.m16n8k16",
/// "wmma_f32_16x16x16 (gfx12)", "mfma_f32_16x16x16", "cpu reference"), or "" where it has none.
std::string matrix_unit_for(const device_props& p);

/// The fp8 (E4M3) matrix instruction gemm.mma.fp8 runs on here ("wgmma.mma_async.m64n256k32.e4m3 (TMA,
/// sm_90a)" on cc 9.0, "mma.sync.m16n8k32.e4m3" on sm_89 and sm_120, "mfma_f32_16x16x32_fp8_fp8 (FNUZ e4m3)", "wmma_f32_16x16x16_fp8_fp8 (gfx12, OCP
/// e4m3)", "cpu reference"), or "" with `why_not` saying why there is none (the probe's skip).
std::string fp8_unit_for(const device_props& p, std::string& why_not);

/// The E4M3 encoding this device's fp8 instruction reads: FNUZ on MI300 (gfx940/941/942), OCP
/// e4m3fn everywhere else (Hopper, RDNA4, the cpu reference).
gemm_type fp8_type_for(const device_props& p);

/// Whether the probe takes gemm_mma.cu's sm_90a path (TMA + wgmma) here: CUDA cc 9.0 only, the one
/// arch whose `a` target has wgmma (sm_100's tcgen05 is another instruction set).
bool wgmma_path_for(const device_props& p);

/// The two tensor maps the sm_90a path reads A (M x K) and Bt (N x K) through: the true extents
/// (TMA zero-fills the ragged edges), boxes of one 128-byte row per k-tile (64 k of bf16/fp16, 128
/// of fp8 as uint8) x 128 rows of A and x 256 rows of Bt, the 128-byte swizzle that gs_wgmma_desc
/// assumes. The emulation test feeds the same maps to its TMA model.
std::array<tensor_map_2d, 2> gemm_wgmma_maps(void* a, void* bt, tensor_elem elem, int M, int N, int K);

/// The defines the probe compiles gemm_mma.cu with: the sm_90a path's (GS_MMA_WGMMA, GS_WG_STAGES)
/// or the ring depth of the others (GS_MMA_STAGES).
std::vector<std::string> gemm_mma_defines(bool wgmma, int stages);

/// The probe for `type` (bf16, fp16, or either fp8: the device picks the encoding) on `rt` (tests pass open_cpu_runtime()); null `rt` opens
/// ctx.device. Options: size (square size of the timed product), iters (timed launches), wgmma
/// (0: the mma.sync path on sm_90 too, for a side-by-side rate).
probe_result run_gemm_mma_with(const probe_context& ctx, gemm_type type, std::unique_ptr<runtime> rt);

}  // namespace gs
