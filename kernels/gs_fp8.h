// gs_fp8.h: the two 8-bit E4M3 encodings the fp8 matrix instructions read, decoded to fp32
// exactly (every E4M3 value has 4 significant bits and an exponent in [-10, 8], well inside fp32).
// One home for the kernels' scalar path and the CPU reference (kernels/ref/gemm_ref.h widen_fp8,
// probes/gemm_inputs.cpp random_matrix); tests/kernels/fp8_decode_test.cpp checks all 256 codes of
// both against the spec tables.
//   OCP E4M3 ("E4M3FN": torch.float8_e4m3fn, CUDA __nv_fp8_e4m3, what Hopper's wgmma .e4m3 and
//     RDNA4's v_wmma_*_fp8 read): sign, 4 exponent bits with bias 7, 3 mantissa bits; exponent 0
//     is subnormal (m x 2^-9); S.1111.111 is NaN (two codes), no infinities; largest 448
//     (S.1111.110), smallest normal 2^-6; +0 and -0. (OCP "8-bit Floating Point Specification
//     (OFP8)" rev. 1.0, 2023, table 1; PyTorch float8_e4m3fn.)
//   E4M3FNUZ (torch.float8_e4m3fnuz, what MI300's gfx940/941/942 v_mfma_*_fp8 read): bias 8, so
//     every value is half the OCP one of the same bits; 0x80 (negative zero's pattern) is the one
//     NaN, no -0, no infinities, S.1111.111 is an ordinary 240 (largest), subnormals m x 2^-10.
//     (LLVM APFloat Float8E4M3FNUZ, llvm/include/llvm/ADT/APFloat.h; AMD CDNA3 ISA "FP8"; torch
//     float8_e4m3fnuz.)
#pragma once
#include "gs_device.h"

/// The value of E4M3 code `v`: OCP (fnuz = false) or FNUZ (true).
GS_HD float gs_fp8_e4m3_to_f32(unsigned v, bool fnuz) {
  v &= 0xffu;
  const unsigned sign = (v >> 7) << 31, e = (v >> 3) & 15u, m = v & 7u;
  const int bias = fnuz ? 8 : 7;
  if (fnuz ? v == 0x80u : (v & 0x7fu) == 0x7fu) return gs_bits_f32(0x7fc00000u);  // NaN
  if (e == 0) {
    // Subnormal: m x 2^(1 - bias - 3); m <= 7 and the power of two are exact, so is the product.
    const float scale = gs_bits_f32((gs_u32)(127 + 1 - bias - 3) << 23);
    return gs_bits_f32(sign | gs_f32_bits((float)m * scale));
  }
  return gs_bits_f32(sign | (gs_u32)(e - bias + 127) << 23 | m << 20);
}
