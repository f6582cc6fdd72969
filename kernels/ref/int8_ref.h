// CPU reference for bitsandbytes' LLM.int8() (research/kernel-specs.md §2), bit for bit with its
// CUDA kernels where they are exact:
//   row-wise quant (kInt8VectorQuant): absmax per row over |x| < threshold, scale = 127 / absmax,
//     q = round-to-nearest-even(x * scale), NaN -> 0; with threshold > 0 every column holding a
//     value with |x| >= threshold is an outlier column and is zeroed in the int8 matrix;
//   int8 GEMM with exact int32 accumulation (cuBLASLt igemmlt);
//   dequant (kdequant_mm_int32_fp16): fp16(fmaf(float(C) * row * col, MM_DEQUANT_CONST, bias));
//   Linear8bitLt forward: the dequantized int8 product plus A[:, O] @ (CW[:, O] * SCW / 127)^T.
// Inputs that are fp16 in bitsandbytes (A, W, bias) are passed as their float values.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace gs {

/// 1.0f / (127.0f * 127.0f) as the kernel spells it: 6.200012e-05f, bits 0x38820610.
inline constexpr float int8_mm_dequant_const = 6.200012e-05f;
/// float32(1/127), int8_vectorwise_dequant's factor.
inline constexpr float int8_inv127 = 7.874015718698502e-3f;

/// What int8_vectorwise_quant returns.
struct int8_quant {
  std::vector<int8_t> q;          ///< rows x cols, outlier columns zeroed
  std::vector<float> stats;       ///< per-row absmax ("SCA" / "SCB")
  std::vector<int> outlier_cols;  ///< ascending; empty when threshold <= 0
};

/// Row-wise quantization of a rows x cols fp16 matrix (values as float). threshold <= 0: no
/// outlier decomposition. The scale is the IEEE 127.0f / absmax; bitsandbytes divides with
/// __fdividef (approximate), see int8_code_tolerated. An all-zero row gives scale inf and codes 0.
int8_quant int8_vectorwise_quant_ref(std::span<const float> A, int rows, int cols, float threshold);

/// One row as the kernel does it: absmax over |x| < threshold (fp16-rounded; every |x| when
/// threshold <= 0), codes with outlier_flags[c] != 0 or |x| >= threshold set to 0. Returns the
/// row's absmax. outlier_flags is ignored when threshold <= 0.
float int8_quant_row_ref(std::span<const float> row, float threshold, std::span<const uint8_t> outlier_flags,
                         std::span<int8_t> q);

/// The int8 code of x in a row with this absmax (without the outlier rule).
int8_t int8_code(float x, float absmax);

/// Whether `got` is what __fdividef's scale (within `ulps` ulp of the IEEE 127/absmax) can give.
bool int8_code_tolerated(float x, float absmax, int got, int ulps = 2);

/// C[M x N] = A[M x K] * B[N x K]^T with int32 accumulation.
std::vector<int32_t> int8_gemm_i32_ref(std::span<const int8_t> A, std::span<const int8_t> B, int M, int N, int K);

/// One dequantized element as an fp16 bit pattern: fp16(fmaf((float(c) * row) * col, K, bias)).
uint16_t int8_dequant_element(int32_t c, float row_stat, float col_stat, float bias);

/// Every element; bias has N fp16 values (as floats) or is empty (then 0).
std::vector<uint16_t> int8_mm_dequant_ref(std::span<const int32_t> C, std::span<const float> row_stats,
                                          std::span<const float> col_stats, std::span<const float> bias, int M, int N);

/// The int8-dequantized weight value as fp16: fp16(fl32(fl32(q * scb) * float32(1/127))).
uint16_t int8_weight_dequant_f16(int8_t q, float scb);

/// One element of the fp16 outlier product added to `prev` (an fp16 value):
/// fp16(prev + sum over c in cols of A[c] * fp16(CW[c] * SCW / 127)), fmaf in column order.
uint16_t int8_outlier_addmm_element(float prev, std::span<const float> a_row, std::span<const int8_t> cw_row, float scw,
                                    std::span<const int> cols);

/// Linear8bitLt forward (inference, has_fp16_weights=False) on fp16 A [M x K] with the
/// quantized weight CW [N x K], SCW [N] and optional fp16 bias [N]: returns fp16 patterns.
/// The outlier part is summed in float32 in column order and added to the fp16 int8 result
/// with one rounding; cuBLAS's fp16 addmm may order the sum differently (see docs/quant.md).
std::vector<uint16_t> linear8bitlt_forward_ref(std::span<const float> A, std::span<const int8_t> CW,
                                               std::span<const float> SCW, std::span<const float> bias, int M,
                                               int N, int K, float threshold);

}  // namespace gs
