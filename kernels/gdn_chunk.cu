// gdn_chunk.cu: the gated delta rule (GatedDeltaNet, flash-linear-attention's chunk_gated_delta_rule
// with use_qk_l2norm_in_kernel=True) forward, chunked (WY/UT form, chunk 64), for `gpustack probe
// fla`'s native backend. CPU reference: kernels/ref/gdn_ref.cpp (gdn_chunk_cpu follows this file
// step for step; gdn_recurrent_ref is the fp64 ground truth). research kernel-specs.md 3.1, 3.5.
//
//   launch: grid (ceil(V / GS_BV), HV, B), block (n, 1, 1) with n a multiple of the wave size.
//   q, k [B,T,H,GS_DK] bf16; v [B,T,HV,V] bf16; g [B,T,HV] fp32 (log-space decay); beta [B,T,HV]
//   bf16; h0 [B,HV,GS_DK,V] fp32 or null; o [B,T,HV,V] fp32; ht [B,HV,GS_DK,V] fp32;
//   scratch: 2 * 64 * 64 fp32 per block (the chunk's A and P matrices, see below).
//
// Each block owns one (batch, value head, slice of GS_BV value columns) and walks the sequence
// in row tiles of GS_ROWS rows. The tiles of q, k, v, g and beta are loaded from global memory
// into a ring of GS_STAGES slots in shared memory, tile t + GS_STAGES - 1 issued before tile t is
// consumed: the software pipeline whose depth `num_stages` sets in Triton. With GS_STAGES = 1
// each tile is loaded right before its use. Loads are plain (no cp.async) on both vendors, so the
// depth changes the schedule and the shared-memory footprint, which is what pipeliner bugs hinge
// on, and the kernel is the control: if this passes at a depth where Triton fails, the fault is
// Triton's compiler, not the driver or the card.
//
// Why tiles of 8 rows and not whole chunks: one chunk's q and k at K = 128 are 32 KiB of bf16, so
// four chunk-sized slots would need 128 KiB; CUDA gives a block 48 KiB without an opt-in and RDNA
// and CDNA have 64 KiB. With 8-row tiles and 8 value columns per block the footprint at K = 128
// is ~42 KiB at 4 stages: ring 4 x 4.3 KiB, the chunk's raw k rows 16.5 KiB, state 4 KiB,
// right-hand sides 4 KiB. The chunk's 64 x 64 A and P matrices live in a per-block global scratch
// (16 KiB x blocks, L2-resident) for the same reason.
//
// Per chunk (natural-log gates, G = cumulative sum of g inside the chunk, fp32 throughout):
//   as each tile arrives, for its rows i and every j <= i of the chunk:
//     A[i][j] = beta_i (k^_i . k^_j) exp(G_i - G_j)   (j < i)      P[i][j] = (q^_i . k^_j) exp(G_i - G_j)
//     rhs_i   = beta_i (v_i - exp(G_i) k^_i S)        qs_i = q^_i S     (S: the chunk's start state)
//   then (I + A) v_new = rhs by forward substitution (one thread per value column), and
//     o_i   = exp(G_i) qs_i + sum_{j<=i} P[i][j] v_new_j
//     S'    = exp(G_L) S + sum_i k^_i exp(G_L - G_i) v_new_i
// where k^ = k / sqrt(|k|^2 + 1e-6) and q^ = scale q / sqrt(|q|^2 + 1e-6); the norms are folded
// in as per-row factors so the bf16 inputs are used exactly as stored.
// Version 1: naive loops over shared memory, fp32 CUDA-core arithmetic, no tensor cores.
#include "gs_device.h"

#ifndef GS_STAGES
#define GS_STAGES 2
#endif
#ifndef GS_DK
#define GS_DK 128
#endif
#ifndef GS_BV
#define GS_BV 8
#endif
#ifndef GS_ROWS
#define GS_ROWS 8
#endif
#define GS_CHUNK 64
#define GS_TILES_PER_CHUNK (GS_CHUNK / GS_ROWS)
// Row stride of the chunk's k rows: 2 extra bf16 move consecutive rows to different banks, so
// threads reading k_j for different j at the same column do not all hit one bank.
#define GS_KW_STRIDE (GS_DK + 2)

#if GS_STAGES < 1 || GS_STAGES > 8
#error "GS_STAGES must be 1..8"
#endif
#if GS_CHUNK % GS_ROWS != 0
#error "GS_ROWS must divide the chunk length"
#endif

struct gdn_ring {
  gs_u16 q[GS_STAGES][GS_ROWS][GS_DK];
  gs_u16 k[GS_STAGES][GS_ROWS][GS_DK];
  gs_u16 v[GS_STAGES][GS_ROWS][GS_BV];
  float g[GS_STAGES][GS_ROWS];
  float beta[GS_STAGES][GS_ROWS];
};

// Issue the loads of tile `t` into ring slot `slot`; rows past T and columns past V read as 0.
__device__ __forceinline__ void gdn_load_tile(gdn_ring& ring, int slot, long long t, const gs_u16* __restrict__ q,
                                              const gs_u16* __restrict__ k, const gs_u16* __restrict__ v,
                                              const float* __restrict__ g, const gs_u16* __restrict__ beta,
                                              int b, int h, int hv, int v0, int T, int H, int HV, int V) {
  const int n = blockDim.x;
  for (int idx = threadIdx.x; idx < GS_ROWS * GS_DK; idx += n) {
    int r = idx / GS_DK, x = idx % GS_DK;
    long long row = t * GS_ROWS + r;
    bool live = row < T;
    gs_u64 off = (((gs_u64)b * T + (live ? row : 0)) * H + h) * GS_DK + x;
    ring.q[slot][r][x] = live ? q[off] : (gs_u16)0;
    ring.k[slot][r][x] = live ? k[off] : (gs_u16)0;
  }
  for (int idx = threadIdx.x; idx < GS_ROWS * GS_BV; idx += n) {
    int r = idx / GS_BV, y = idx % GS_BV;
    long long row = t * GS_ROWS + r;
    bool live = row < T && v0 + y < V;
    gs_u64 off = (((gs_u64)b * T + (row < T ? row : 0)) * HV + hv) * V + (v0 + y < V ? v0 + y : 0);
    ring.v[slot][r][y] = live ? v[off] : (gs_u16)0;
  }
  for (int r = threadIdx.x; r < GS_ROWS; r += n) {
    long long row = t * GS_ROWS + r;
    bool live = row < T;
    gs_u64 gi = ((gs_u64)b * T + (live ? row : 0)) * HV + hv;
    ring.g[slot][r] = live ? g[gi] : 0.0f;
    ring.beta[slot][r] = live ? gs_bf16_to_f32(beta[gi]) : 0.0f;
  }
}

GS_KERNEL void gdn_chunk_v1(const gs_u16* __restrict__ q, const gs_u16* __restrict__ k,
                            const gs_u16* __restrict__ v, const float* __restrict__ g,
                            const gs_u16* __restrict__ beta, const float* __restrict__ h0,
                            float* __restrict__ o, float* __restrict__ ht, float* __restrict__ scratch,
                            int T, int H, int HV, int V, float scale) {
  __shared__ gdn_ring ring;
  __shared__ gs_u16 kw[GS_CHUNK][GS_KW_STRIDE];  // raw k rows of the current chunk
  __shared__ float S[GS_DK][GS_BV];              // state slice, fp32
  __shared__ float rhs[GS_CHUNK][GS_BV];         // right-hand sides, then v_new in place
  __shared__ float qs[GS_CHUNK][GS_BV];
  __shared__ float G[GS_CHUNK], bet[GS_CHUNK], rk[GS_CHUNK], rq[GS_CHUNK];

  const int n = blockDim.x, tid = threadIdx.x;
  const int v0 = blockIdx.x * GS_BV, hv = blockIdx.y, b = blockIdx.z;
  const int h = hv / (HV / H);
  const gs_u64 block_id = ((gs_u64)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  float* A = scratch + block_id * 2 * GS_CHUNK * GS_CHUNK;
  float* P = A + GS_CHUNK * GS_CHUNK;
  const gs_u64 state_base = ((gs_u64)b * HV + hv) * GS_DK * V;

  for (int idx = tid; idx < GS_DK * GS_BV; idx += n) {
    int x = idx / GS_BV, y = idx % GS_BV;
    S[x][y] = (h0 && v0 + y < V) ? h0[state_base + (gs_u64)x * V + v0 + y] : 0.0f;
  }

  const long long tiles = (T + GS_ROWS - 1) / GS_ROWS;
  // Prologue: GS_STAGES - 1 tiles in flight before the first one is consumed.
  for (long long p = 0; p < GS_STAGES - 1 && p < tiles; ++p)
    gdn_load_tile(ring, (int)(p % GS_STAGES), p, q, k, v, g, beta, b, h, hv, v0, T, H, HV, V);

  for (long long t = 0; t < tiles; ++t) {
    // Issue tile t + STAGES - 1 into the slot tile t - 1 used (consumed: the loop ends in a barrier).
    long long ahead = t + GS_STAGES - 1;
    if (ahead < tiles) gdn_load_tile(ring, (int)(ahead % GS_STAGES), ahead, q, k, v, g, beta, b, h, hv, v0, T, H, HV, V);
    __syncthreads();

    const int slot = (int)(t % GS_STAGES);
    const long long chunk = t / GS_TILES_PER_CHUNK;
    const int r0 = (int)(t % GS_TILES_PER_CHUNK) * GS_ROWS;
    const long long left = (long long)T - chunk * GS_CHUNK;
    const int L = left < GS_CHUNK ? (int)left : GS_CHUNK;

    // 1. The tile's k rows into the chunk's set; row norms; the running gate sum (one thread:
    //    8 additions in row order, the same order as the CPU path).
    for (int idx = tid; idx < GS_ROWS * GS_DK; idx += n) {
      int r = idx / GS_DK, x = idx % GS_DK;
      if (r0 + r < L) kw[r0 + r][x] = ring.k[slot][r][x];
    }
    for (int idx = tid; idx < 2 * GS_ROWS; idx += n) {
      int r = idx >> 1;
      if (r0 + r >= L) continue;
      const gs_u16* row = (idx & 1) ? ring.k[slot][r] : ring.q[slot][r];
      float ss = 0.0f;
      for (int x = 0; x < GS_DK; ++x) {
        float e = gs_bf16_to_f32(row[x]);
        ss += e * e;
      }
      if (idx & 1) rk[r0 + r] = 1.0f / sqrtf(ss + 1e-6f);
      else rq[r0 + r] = scale / sqrtf(ss + 1e-6f);
    }
    if (tid == 0)
      for (int r = 0; r < GS_ROWS && r0 + r < L; ++r) {
        int i = r0 + r;
        G[i] = (i == 0 ? 0.0f : G[i - 1]) + ring.g[slot][r];
        bet[i] = ring.beta[slot][r];
      }
    __syncthreads();

    // 2. Rows of A and P, and the right-hand sides and q S for the tile's rows.
    for (int idx = tid; idx < GS_ROWS * GS_CHUNK + GS_ROWS * GS_BV; idx += n) {
      if (idx < GS_ROWS * GS_CHUNK) {
        int r = idx / GS_CHUNK, j = idx % GS_CHUNK, i = r0 + r;
        if (i >= L || j > i) continue;
        float kk = 0.0f, qk = 0.0f;
        for (int x = 0; x < GS_DK; ++x) {
          float kj = gs_bf16_to_f32(kw[j][x]);
          kk += gs_bf16_to_f32(kw[i][x]) * kj;
          qk += gs_bf16_to_f32(ring.q[slot][r][x]) * kj;
        }
        float decay = expf(G[i] - G[j]);
        A[i * GS_CHUNK + j] = j < i ? bet[i] * kk * rk[i] * rk[j] * decay : 0.0f;
        P[i * GS_CHUNK + j] = qk * rq[i] * rk[j] * decay;
      } else {
        int e = idx - GS_ROWS * GS_CHUNK;
        int r = e / GS_BV, y = e % GS_BV, i = r0 + r;
        if (i >= L) continue;
        float ks = 0.0f, qsum = 0.0f;
        for (int x = 0; x < GS_DK; ++x) {
          float sv = S[x][y];
          ks += gs_bf16_to_f32(kw[i][x]) * sv;
          qsum += gs_bf16_to_f32(ring.q[slot][r][x]) * sv;
        }
        float vv = gs_bf16_to_f32(ring.v[slot][r][y]);
        rhs[i][y] = bet[i] * (vv - expf(G[i]) * ks * rk[i]);
        qs[i][y] = qsum * rq[i];
      }
    }
    __syncthreads();

    if (r0 + GS_ROWS >= L) {
      // 3. (I + A) v_new = rhs: columns are independent, so one thread walks each column's rows
      //    in order and needs no barrier between rows.
      for (int y = tid; y < GS_BV; y += n)
        for (int i = 0; i < L; ++i) {
          float x = rhs[i][y];
          for (int j = 0; j < i; ++j) x -= A[i * GS_CHUNK + j] * rhs[j][y];
          rhs[i][y] = x;
        }
      __syncthreads();
      // 4. Outputs of the chunk's rows, and 5. the state at its end (independent: one pass).
      const float glast = G[L - 1], elast = expf(glast);
      for (int idx = tid; idx < GS_CHUNK * GS_BV + GS_DK * GS_BV; idx += n) {
        if (idx < GS_CHUNK * GS_BV) {
          int i = idx / GS_BV, y = idx % GS_BV;
          if (i >= L || v0 + y >= V) continue;
          float acc = expf(G[i]) * qs[i][y];
          for (int j = 0; j <= i; ++j) acc += P[i * GS_CHUNK + j] * rhs[j][y];
          o[(((gs_u64)b * T + chunk * GS_CHUNK + i) * HV + hv) * V + v0 + y] = acc;
        } else {
          int e = idx - GS_CHUNK * GS_BV;
          int x = e / GS_BV, y = e % GS_BV;
          float acc = elast * S[x][y];
          for (int i = 0; i < L; ++i) acc += gs_bf16_to_f32(kw[i][x]) * rk[i] * expf(glast - G[i]) * rhs[i][y];
          S[x][y] = acc;
        }
      }
    }
    __syncthreads();  // the slot just consumed is the next iteration's load target
  }

  for (int idx = tid; idx < GS_DK * GS_BV; idx += n) {
    int x = idx / GS_BV, y = idx % GS_BV;
    if (v0 + y < V) ht[state_base + (gs_u64)x * V + v0 + y] = S[x][y];
  }
}
