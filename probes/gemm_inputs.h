// What every GEMM probe checks with (gemm.*, gemm.mma.*, and the vendor-BLAS probes): seeded
// inputs stored as a kernel reads them, the fp32 values it computes with, and the per-element
// error bound of an fp32-accumulated product. One home, so every GEMM is judged the same way.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "probes/verify.h"

namespace gs {

/// Input element type of a GEMM. The fp8 types are E4M3 in the two encodings matrix units read
/// (kernels/gs_fp8.h): OCP e4m3fn (NVIDIA, RDNA4, torch.float8_e4m3fn) and FNUZ (MI300).
enum class gemm_type { fp32, bf16, fp16, fp8_e4m3fn, fp8_e4m3fnuz };

size_t gemm_elem_bytes(gemm_type t);
inline bool gemm_type_is_fp8(gemm_type t) { return t == gemm_type::fp8_e4m3fn || t == gemm_type::fp8_e4m3fnuz; }

/// Random inputs: `raw` is what is uploaded (fp32 bits, rounded 16-bit patterns, fp8 codes), `wide`
/// the exact fp32 values the kernel sees after widening. fp32/bf16/fp16: uniform in [-1, 1]. fp8: a
/// uniform choice among the encoding's finite codes (NaN codes left out), so every exponent, the
/// subnormals, both zeros of OCP and the largest values (448 OCP, 240 FNUZ) all occur: a decoder
/// or an operand path that mistakes one encoding for the other, or drops a bit, moves products.
struct matrix_input {
  std::vector<unsigned char> raw;
  std::vector<float> wide;
};
matrix_input random_matrix(gemm_type t, size_t n, uint32_t seed);

/// The bound on |kernel - reference| for one element of C whose K products have absolute sum
/// `abs_sum` (sum over k of |a_k b_k|). Kernel and reference both sum K fp32 products, each with
/// error at most gamma_K * abs_sum (gamma_K ~ K 2^-24) whatever the order, blocking or FMA
/// contraction, so they differ by at most 2 K 2^-24 abs_sum. 16-bit inputs are rounded once on
/// the host and both sides read the same rounded values, and bf16/fp16 products are exact in
/// fp32: input rounding adds no difference. (K = 4096, inputs in [-1, 1]: abs_sum ~ 1000, bound
/// ~ 0.5 where |C| ~ 20 and a correct kernel's error is ~1e-4; a wrong index or a lost k-tile
/// moves an element by ~|C|, far outside.)
double gemm_error_bound(int K, double abs_sum);

/// The bound for one element of an fp8 product (row `a` of A, row `bt` of Bt, K each), whose
/// products are exact in fp32 (4 x 4 significant bits) but whose matrix-unit accumulator is not a
/// full fp32 chain. Figures: DeepSeek-V3 technical report (arXiv 2412.19437, section 3.3.2): "the
/// accumulation precision of FP8 GEMM on NVIDIA H800 GPUs is limited to retaining around 14
/// bits", with a maximum relative error of nearly 2 % at K = 4096 on random matrices;
/// SageAttention2 (arXiv 2411.10958): the fp8 mma's accumulator is FP22 (1 sign, 8 exponent, 13
/// mantissa bits). Model: each k32 step (one wgmma.m64nNk32, one MFMA 16x16x32) adds its 32
/// products to D and keeps 14 significant bits, truncating: an error of at most u = 2^-13 of what
/// it holds, |D| + the step's sum of |products| <= |P_{c-1}| + A_c (P: exact prefix sum through
/// the previous step, A_c: the step's absolute sum). Bound: 2 u sum_c (|P_{c-1}| + A_c), the 2 for
/// the addends' own alignment inside the step, plus gemm_error_bound for the reference's fp32 chain.
/// Napkin, K = 4096, products of rms s with random signs: |P_c| ~ sqrt(32 c) s, sum over 128 steps
/// ~ 5,500 s, plus sum A_c ~ 3,300 s, bound ~ 2 x 1.2e-4 x 8,800 s ~ 2.1 s, ~3 % of |C| ~ 64 s (the
/// model's own error ~ 0.7 s, ~1 %, as DeepSeek's "nearly 2 %" at the tail). A lost 128-k tile
/// moves an element by ~ sqrt(128) s ~ 11 s and a wrong row or column by ~ 90 s: far outside.
/// (tests/probes/gemm_mma_fp8_test.cpp: on inputs of every finite code the model's worst error is
/// 0.17 of the bound, and the lost tile and the wrong row fall outside it.)
double gemm_fp8_error_bound(const float* a, const float* bt, int K);

/// Rows of an M-row result to compare when comparing them all costs too much host time: both
/// ends, thirds, the middle and one seeded row (8 rows; K x N multiply-adds each).
std::vector<int> gemm_sample_rows(int M, uint32_t seed);

/// Compare the rows of C (M x N row-major in `got`) a GEMM probe checks, every row or
/// gemm_sample_rows(M, seed), with want(r, c) within bound(r, c); with a sample, an element never
/// written anywhere in C counts as bad too. `each_row` runs before each row (the watchdog's
/// heartbeat: at K = 4096 a row is ~0.1 s of host work).
f32_check check_gemm_rows(std::span<const float> got, int M, int N, bool all_rows, uint32_t seed,
                          const std::function<float(int, int)>& want, const std::function<double(int, int)>& bound,
                          const std::function<void()>& each_row);

}  // namespace gs
