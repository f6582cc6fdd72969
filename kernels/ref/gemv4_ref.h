// CPU reference for the 4-bit GEMV of bitsandbytes' decode path (kgemm_4bit_inference_naive,
// the CUDA `gemv_4bit` op; research/kernel-specs.md §1.9): out[n] = sum_k A[k] * W[n][k] with
// W dequantized on the fly from packed NF4/FP4 codes, computed with the kernel's roundings:
//   bf16/fp16: code value, absmax, W = code * absmax and each product A*W rounded to the type,
//              the products summed in float32;
//   fp32:      W = code * absmax in float, acc = fmaf(A, W, acc).
// Summation order (kernels/quant4.cu's quant4_gemv_* does the same): lane l of a warp of
// `warp_size` lanes owns the 32-element chunks l, l + warp_size, ... of the row and sums its
// products in k order; the lanes' sums are combined by a butterfly with offsets 1, 2, 4, ...
// (lane 0 sees ((s0 + s1) + (s2 + s3)) + ..., the order of CUB's WarpReduce::Sum).
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "kernels/ref/quant4_ref.h"

namespace gs {

enum class gemv_type { f32, bf16, f16 };

/// "f32" / "bf16" / "f16".
const char* gemv_type_name(gemv_type t);

/// Shapes the kernel takes: K a positive multiple of 32 (a lane's 16-byte load of 32 codes stays
/// inside one row and one absmax block, since blocksize >= 32), N >= 1, a valid blocksize.
/// Empty when fine, else what is wrong.
std::string gemv4_shape_error(long long N, long long K, long long blocksize);

/// out[N] = W[N x K] * A[K]. A and out are float32 values (f32) or raw 16-bit patterns (bf16 /
/// f16) as `void*`. packed holds W row-major, K/2 bytes per row; absmax[(n*K + k) / blocksize].
void gemv4_ref(gemv_type t, quant4_kind k, const void* A, std::span<const uint8_t> packed,
               std::span<const float> absmax, int N, int K, int blocksize, int warp_size, void* out);

/// One output row (same arithmetic), as float32 before the final rounding to the type.
float gemv4_ref_row_sum(gemv_type t, quant4_kind k, const void* A, std::span<const uint8_t> packed,
                        std::span<const float> absmax, int row, int K, int blocksize, int warp_size);

}  // namespace gs
