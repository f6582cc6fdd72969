// int8.cu: LLM.int8() on the GPU (probe quant.int8), bit-exact with kernels/ref/int8_ref.cpp.
// A, W, bias and outputs are fp16 bit patterns. Kernels:
//   int8_outlier_cols_v1   flags[c] = 1 when some |A[r][c]| >= threshold (rounded to fp16); one
//                          thread per column.
//   int8_row_quant_v1      one block per row: absmax over |x| < threshold (all |x| when threshold
//                          <= 0), scale = 127 / absmax, q = round-half-even(x * scale), NaN -> 0,
//                          flagged columns -> 0; blockDim a multiple of the wave size, <= 1024.
//   int8_gemm_i32_v1       C[M x N] = A[M x K] * B[N x K]^T in int32; block (16, 16) (naive).
//   int8_mm_dequant_v1     fp16(fmaf(float(C) * row * col, 6.200012e-05f, bias)); bias may be null.
//   int8_outlier_addmm_v1  out += A[:, O] @ (fp16(CW[:, O] * SCW / 127))^T, fmaf in column order,
//                          one rounding to fp16 (the fp16 side of Linear8bitLt).
// The scale is an IEEE division; bitsandbytes uses __fdividef (docs/quant.md).
#include "gs_device.h"

#define I8_DEQUANT_CONST 6.200012e-05f  // MM_DEQUANT_CONST: fl32(1 / 127^2), bits 0x38820610
#define I8_INV127 7.874015718698502e-3f // int8_vectorwise_dequant's float32(1/127)

__device__ __forceinline__ float i8_rint(float v) {
#if defined(GS_HIP)
  return __builtin_rintf(v);
#else
  return rintf(v);  // NVRTC built-in; the default rounding mode: to nearest, ties to even
#endif
}

// __float2int_rn semantics for the values that occur here (|v| <= 127 up to rounding): NaN -> 0.
__device__ __forceinline__ int i8_round_even(float v) {
  if (v != v) return 0;
  return (int)i8_rint(v);
}

__device__ __forceinline__ float i8_threshold16(float t) { return gs_f16_to_f32(gs_f32_to_f16(t)); }

GS_KERNEL void int8_outlier_cols_v1(const gs_u16* A, unsigned char* flags, int rows, int cols, float threshold) {
  const int c = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (c >= cols) return;
  const float t16 = i8_threshold16(threshold);
  unsigned char f = 0;
  if (threshold > 0.0f)
    for (int r = 0; r < rows; ++r)
      if (fabsf(gs_f16_to_f32(A[(gs_u64)r * (gs_u64)cols + (gs_u64)c])) >= t16) f = 1;
  flags[c] = f;
}

GS_KERNEL void int8_row_quant_v1(const gs_u16* A, const unsigned char* flags, signed char* q, float* stats, int rows,
                                 int cols, float threshold) {
  __shared__ float warp_max[GS_MAX_BLOCK / GS_WARP_SIZE];
  __shared__ float row_max;
  const int row = (int)blockIdx.x;
  if (row >= rows) return;  // the whole block leaves together
  const bool sparse = threshold > 0.0f;
  const float t16 = i8_threshold16(threshold);
  const gs_u16* a = A + (gs_u64)row * (gs_u64)cols;
  // Max is exact in any order and every |x| is >= +0, so the reduction order cannot show.
  float m = 0.0f;
  for (int c = (int)threadIdx.x; c < cols; c += (int)blockDim.x) {
    const float v = fabsf(gs_f16_to_f32(a[c]));
    if (!sparse || v < t16) m = fmaxf(m, v);  // fmaxf drops NaNs
  }
  for (int o = 1; o < GS_WARP_SIZE; o *= 2) m = fmaxf(m, __shfl_xor_sync(GS_FULL_MASK, m, o, GS_WARP_SIZE));
  if (threadIdx.x % GS_WARP_SIZE == 0) warp_max[threadIdx.x / GS_WARP_SIZE] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    float r = 0.0f;
    for (unsigned w = 0; w < blockDim.x / GS_WARP_SIZE; ++w) r = fmaxf(r, warp_max[w]);
    row_max = r;
    stats[row] = r;
  }
  __syncthreads();
  const float scale = 127.0f / row_max;  // an all-zero row: inf, and 0 * inf = NaN -> 0
  for (int c = (int)threadIdx.x; c < cols; c += (int)blockDim.x) {
    const float v = gs_f16_to_f32(a[c]);
    int code = 0;
    if (!(sparse && (flags[c] || !(fabsf(v) < threshold)))) code = i8_round_even(v * scale);
    q[(gs_u64)row * (gs_u64)cols + (gs_u64)c] = (signed char)code;
  }
}

GS_KERNEL void int8_gemm_i32_v1(const signed char* A, const signed char* B, int* C, int M, int N, int K) {
  const int j = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  const int i = (int)(blockIdx.y * blockDim.y + threadIdx.y);
  if (i >= M || j >= N) return;
  const signed char* a = A + (gs_u64)i * (gs_u64)K;
  const signed char* b = B + (gs_u64)j * (gs_u64)K;
  int acc = 0;  // exact: |acc| <= 127^2 K < 2^31 for K < 133143
  for (int k = 0; k < K; ++k) acc += (int)a[k] * (int)b[k];
  C[(gs_u64)i * (gs_u64)N + (gs_u64)j] = acc;
}

GS_KERNEL void int8_mm_dequant_v1(const int* C, const float* row_stats, const float* col_stats, const gs_u16* bias,
                                  gs_u16* out, int M, int N) {
  const gs_u64 idx = (gs_u64)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (gs_u64)M * (gs_u64)N) return;
  const int i = (int)(idx / (gs_u64)N), j = (int)(idx % (gs_u64)N);
  const float scaled = ((float)C[idx] * row_stats[i]) * col_stats[j];
  const float b = bias ? gs_f16_to_f32(bias[j]) : 0.0f;
  out[idx] = gs_f32_to_f16(fmaf(scaled, I8_DEQUANT_CONST, b));
}

GS_KERNEL void int8_outlier_addmm_v1(const gs_u16* A, const signed char* CW, const float* SCW, const int* ocols, int n_ocols,
                                     gs_u16* out, int M, int N, int K) {
  const gs_u64 idx = (gs_u64)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (gs_u64)M * (gs_u64)N) return;
  const int i = (int)(idx / (gs_u64)N), j = (int)(idx % (gs_u64)N);
  float s = gs_f16_to_f32(out[idx]);
  for (int t = 0; t < n_ocols; ++t) {
    const int c = ocols[t];
    // int8_vectorwise_dequant(CW, SCW).to(fp16): (q * scw) * (1/127) in float32, then fp16.
    const float w = gs_f16_to_f32(gs_f32_to_f16(((float)CW[(gs_u64)j * (gs_u64)K + (gs_u64)c] * SCW[j]) * I8_INV127));
    s = fmaf(gs_f16_to_f32(A[(gs_u64)i * (gs_u64)K + (gs_u64)c]), w, s);
  }
  out[idx] = gs_f32_to_f16(s);
}
