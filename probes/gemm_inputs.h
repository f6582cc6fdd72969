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

/// Input element type of a GEMM.
enum class gemm_type { fp32, bf16, fp16 };

size_t gemm_elem_bytes(gemm_type t);

/// Random values in [-1, 1]: `raw` is what is uploaded (fp32 bits or rounded 16-bit patterns),
/// `wide` the exact fp32 values the kernel sees after widening.
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
