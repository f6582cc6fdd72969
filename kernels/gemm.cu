// gemm.cu: C = A * B, row-major, A is M x K, B is K x N, C is M x N in fp32 (probes gemm.fp32,
// gemm.bf16, gemm.fp16). Inputs are fp32, bf16 or fp16 (raw 16-bit patterns, converted with the
// gs_device.h helpers); accumulation is always fp32, in k order. CPU reference:
// kernels/ref/gemm_ref.cpp. These are plain CUDA-core kernels, not tensor-core ones: a bf16 input
// here runs at the fp32 FMA rate, and docs/kernels.md says what that means for the probe.
//   v1 (naive):  block (16, 16), grid (ceil(N/16), ceil(M/16)); one thread per C element.
//   v2 (tiled):  block (GS_GEMM_BN/GS_GEMM_TN, GS_GEMM_BM/GS_GEMM_TM) = (16, 16),
//                grid (ceil(N/GS_GEMM_BN), ceil(M/GS_GEMM_BM)); any M, N, K (edges zero-filled).
#include "gs_device.h"

// Tile shape of v2. The host passes these as defines (kernels/ref/gemm_ref.h holds the values);
// the defaults here are the same numbers so the file compiles on its own.
#ifndef GS_GEMM_BM
#define GS_GEMM_BM 128
#endif
#ifndef GS_GEMM_BN
#define GS_GEMM_BN 128
#endif
#ifndef GS_GEMM_BK
#define GS_GEMM_BK 8
#endif
#ifndef GS_GEMM_TM
#define GS_GEMM_TM 8
#endif
#ifndef GS_GEMM_TN
#define GS_GEMM_TN 8
#endif
#define GS_GEMM_TX (GS_GEMM_BN / GS_GEMM_TN)  // threads along N
#define GS_GEMM_TY (GS_GEMM_BM / GS_GEMM_TM)  // threads along M
#define GS_GEMM_THREADS (GS_GEMM_TX * GS_GEMM_TY)

// One loader per input type: everything is widened to fp32 before it is multiplied.
struct load_f32 {
  typedef float in_t;
  static __device__ __forceinline__ float get(const float* p, gs_u64 i) { return p[i]; }
};
struct load_bf16 {
  typedef gs_u16 in_t;
  static __device__ __forceinline__ float get(const gs_u16* p, gs_u64 i) { return gs_bf16_to_f32(p[i]); }
};
struct load_f16 {
  typedef gs_u16 in_t;
  static __device__ __forceinline__ float get(const gs_u16* p, gs_u64 i) { return gs_f16_to_f32(p[i]); }
};

// Version 1, naive: each thread walks a row of A and a column of B in global memory, 2 loads per
// FMA; kept as the readable baseline (and as the slow path the probe can be pointed at).
template <class L>
__device__ __forceinline__ void gemm_naive(const typename L::in_t* __restrict__ A,
                                           const typename L::in_t* __restrict__ B,
                                           float* __restrict__ C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += L::get(A, (gs_u64)row * K + k) * L::get(B, (gs_u64)k * N + col);
  C[(gs_u64)row * N + col] = acc;
}

// Version 2, shared-memory tiled with an 8 x 8 register tile per thread. Per BK step a block
// loads (BM + BN) * BK = 2048 values and does BM * BN * BK = 131072 FMAs: 64 FMAs per load, so
// the FMA units, not memory, set the pace. A thread owns rows ty + 16 i and columns tx + 16 j
// (strided, not contiguous), so a warp reads consecutive shared-memory words: no bank conflicts.
template <class L>
__device__ __forceinline__ void gemm_tiled(const typename L::in_t* __restrict__ A,
                                           const typename L::in_t* __restrict__ B,
                                           float* __restrict__ C, int M, int N, int K) {
  // A is stored transposed (k-major) so the inner loop reads a column of the tile as a row;
  // +4 pads the row so the transposing stores of 8 consecutive threads land in distinct banks.
  __shared__ float As[GS_GEMM_BK][GS_GEMM_BM + 4];
  __shared__ float Bs[GS_GEMM_BK][GS_GEMM_BN];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * GS_GEMM_TX + tx;
  const int m0 = blockIdx.y * GS_GEMM_BM, n0 = blockIdx.x * GS_GEMM_BN;

  float acc[GS_GEMM_TM][GS_GEMM_TN];
  for (int i = 0; i < GS_GEMM_TM; ++i)
    for (int j = 0; j < GS_GEMM_TN; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += GS_GEMM_BK) {
    for (int e = tid; e < GS_GEMM_BM * GS_GEMM_BK; e += GS_GEMM_THREADS) {
      const int r = e / GS_GEMM_BK, c = e % GS_GEMM_BK;
      const int gm = m0 + r, gk = k0 + c;
      As[c][r] = (gm < M && gk < K) ? L::get(A, (gs_u64)gm * K + gk) : 0.0f;
    }
    for (int e = tid; e < GS_GEMM_BK * GS_GEMM_BN; e += GS_GEMM_THREADS) {
      const int r = e / GS_GEMM_BN, c = e % GS_GEMM_BN;
      const int gk = k0 + r, gn = n0 + c;
      Bs[r][c] = (gk < K && gn < N) ? L::get(B, (gs_u64)gk * N + gn) : 0.0f;
    }
    __syncthreads();
    for (int kk = 0; kk < GS_GEMM_BK; ++kk) {
      float a[GS_GEMM_TM], b[GS_GEMM_TN];
      for (int i = 0; i < GS_GEMM_TM; ++i) a[i] = As[kk][ty + i * GS_GEMM_TY];
      for (int j = 0; j < GS_GEMM_TN; ++j) b[j] = Bs[kk][tx + j * GS_GEMM_TX];
      for (int i = 0; i < GS_GEMM_TM; ++i)
        for (int j = 0; j < GS_GEMM_TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();  // the next tile overwrites As/Bs
  }

  for (int i = 0; i < GS_GEMM_TM; ++i) {
    const int gm = m0 + ty + i * GS_GEMM_TY;
    if (gm >= M) continue;
    for (int j = 0; j < GS_GEMM_TN; ++j) {
      const int gn = n0 + tx + j * GS_GEMM_TX;
      if (gn < N) C[(gs_u64)gm * N + gn] = acc[i][j];
    }
  }
}

GS_KERNEL void gemm_f32_v1(const float* A, const float* B, float* C, int M, int N, int K) {
  gemm_naive<load_f32>(A, B, C, M, N, K);
}
GS_KERNEL void gemm_bf16_v1(const gs_u16* A, const gs_u16* B, float* C, int M, int N, int K) {
  gemm_naive<load_bf16>(A, B, C, M, N, K);
}
GS_KERNEL void gemm_f16_v1(const gs_u16* A, const gs_u16* B, float* C, int M, int N, int K) {
  gemm_naive<load_f16>(A, B, C, M, N, K);
}
GS_KERNEL void __launch_bounds__(GS_GEMM_THREADS)
gemm_f32_v2(const float* A, const float* B, float* C, int M, int N, int K) {
  gemm_tiled<load_f32>(A, B, C, M, N, K);
}
GS_KERNEL void __launch_bounds__(GS_GEMM_THREADS)
gemm_bf16_v2(const gs_u16* A, const gs_u16* B, float* C, int M, int N, int K) {
  gemm_tiled<load_bf16>(A, B, C, M, N, K);
}
GS_KERNEL void __launch_bounds__(GS_GEMM_THREADS)
gemm_f16_v2(const gs_u16* A, const gs_u16* B, float* C, int M, int N, int K) {
  gemm_tiled<load_f16>(A, B, C, M, N, K);
}
