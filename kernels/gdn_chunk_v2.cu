// gdn_chunk_v2.cu: the gated delta rule forward of kernels/gdn_chunk.cu (same inputs, outputs and
// maths; read its header first), rewritten to use the hardware the way FLA's Triton kernels do:
// every product on the matrix unit (kernels/gs_mma.h: tensor cores, MFMA or WMMA) and the
// pipelined tiles moved by asynchronous copies where the arch has them (kernels/gs_async.h).
// It is the like-for-like control of `gpustack probe fla`: when a Triton kernel fails at a depth
// where this passes, the matrix unit, the async copies and the card are cleared. CPU reference:
// kernels/ref/gdn_v2_ref.cpp, which computes the same intermediates in the same order.
//
// Two kernels, as FLA splits its forward (chunk_scaled_dot_kkt + solve_tril, then chunk_fwd_h/o):
//
// gdn_v2_prep: grid (chunks, HV, B), one chunk per block, no dependence between chunks.
//   KK = k k^T and QK = q k^T (64 x 64, lower tiles only) on the matrix unit, K streamed in
//   slices of GDN2_KS columns through a ring of GS_STAGES slots; row norms and the gate cumsum G;
//   A[i][j] = beta_i rk_i rk_j KK exp(G_i - G_j) (j < i), P[i][j] = rq_i rk_j QK exp(G_i - G_j)
//   (j <= i); U = (I + A)^-1 diag(beta) by forward substitution (one thread per column, fp32).
//   Writes U and P as bf16 hi/lo planes, and G, rk, rq (kernels/gdn_v2_layout.h), to `prep`: 33 KiB
//   per chunk, 64 MiB at B2 T4096 HV16; written once, read by the V / 16 state blocks of the head
//   from L2.
// gdn_v2_state: grid (V / 16, HV, B), the recurrence over chunks for 16 value columns, the
//   sequence walked in 16-row tiles (q, k, v rows and their G, rk, rq) through the ring:
//     rhs'_i = v_i - exp(G_i) rk_i (k_i S)           o_i  = exp(G_i) rq_i (q_i S) + sum_j P_ij vn_j
//     vn     = U rhs'   (= (I + A)^-1 rhs of v1)     S'   = exp(G_L) S + sum_i k_i rk_i exp(G_L - G_i) vn_i
//   with S the chunk's start state, vn the chunk's new values. Per tile: waves 0-1 form k S and
//   waves 2-3 q S (halves of K each); wave 0 then forms rhs' and vn, wave 2 the output rows;
//   every wave adds its 16-row tiles of the state's change. S itself stays in registers in
//   those tiles' accumulator layout (fp32), with a split copy in shared memory for the matrix
//   unit that is rewritten once per chunk; rhs', vn and the kd-weighted vn are written split
//   once by the wave that makes them, so operand loads are plain 16-bit reads.
//
// Precision: q, k, v are bf16 and enter the matrix unit exactly. fp32 operands (S, U, P,
// rhs', vn) are split into bf16 hi + lo and multiplied as hi*hi + hi*lo + lo*hi (bf16 x bf16 is
// exact in fp32): ~2^-17 per product, so the probe's 1e-4 tolerance of v1 still holds; a single
// bf16 product would cost ~4e-3, FLA's level. That triples the fp32 x fp32 products; the card
// has ~30x more matrix throughput than this kernel uses, so the cost is latency, not rate.
//
// Shared memory (dynamic, gdn_v2_layout.h): the state kernel needs 9.2 KiB per ring slot at
// K = 128 plus 21 KiB, 58 KiB at depth 4 (AMD: 64 KiB per workgroup); with GS_V2_RING_UP (the
// host sets it on CUDA) a slot also carries the tile's U and P rows, 18.2 KiB, 94 KiB at depth 4
// (the runtime opts the launch in above 48 KiB); the prep kernel 10 KiB per slot, 41.5 KiB at depth 4.
// Block: 4 waves (GS_AMD_LAUNCH_BOUNDS says so to clang; gs_device.h says why). Needs K % 32 == 0,
// K <= 128, V % 16 == 0 (the probe falls back to v1 otherwise).
#include "gs_device.h"
#include "gs_mma.h"
#include "gs_async.h"
#include "gdn_v2_layout.h"

#ifndef GS_STAGES
#define GS_STAGES 2
#endif
#ifndef GS_DK
#define GS_DK 128
#endif
#if GS_STAGES < 1 || GS_STAGES > 8
#error "GS_STAGES must be 1..8"
#endif
#ifndef GS_V2_RING_UP
#define GS_V2_RING_UP 0
#endif
#if GS_DK % GDN2_KS != 0 || GS_DK > 128
#error "gdn_chunk_v2 needs GS_DK a multiple of 32, at most 128"
#endif

#define GDN2_QK_STRIDE (GS_DK + GDN2_PAD)
#define GDN2_SL_STRIDE (GDN2_KS + GDN2_PAD)
#define GDN2_S_STRIDE (GDN2_BV + 1)
#define GDN2_M_STRIDE (GDN2_CHUNK + 1)

extern __shared__ __attribute__((aligned(16))) unsigned char gs_smem[];

// ---- gdn_v2_prep ---------------------------------------------------------------------------------

struct gdn2_prep_slot {
  gs_u16 q[GDN2_CHUNK][GDN2_SL_STRIDE];
  gs_u16 k[GDN2_CHUNK][GDN2_SL_STRIDE];
};
static_assert(sizeof(gdn2_prep_slot) == gdn2_prep_slot_bytes(), "gdn_v2_layout.h prep slot");

// Issue slice p (columns p * KS ..) of the chunk's q and k rows into `slot`.
__device__ __forceinline__ void gdn2_prep_issue(gdn2_prep_slot& slot, int p, const gs_u16* __restrict__ q,
                                                const gs_u16* __restrict__ k, int b, int h, long long t0, int T,
                                                int H) {
  constexpr int pieces_per_row = GDN2_KS / 8;  // 16-byte pieces
  for (int idx = threadIdx.x; idx < 2 * GDN2_CHUNK * pieces_per_row; idx += blockDim.x) {
    const int which = idx / (GDN2_CHUNK * pieces_per_row), rem = idx % (GDN2_CHUNK * pieces_per_row);
    const int r = rem / pieces_per_row, c8 = (rem % pieces_per_row) * 8;
    const long long row = t0 + r;
    const bool live = row < T;
    const gs_u64 off = (((gs_u64)b * T + (live ? row : 0)) * H + h) * GS_DK + (gs_u64)p * GDN2_KS + c8;
    gs_u16* dst = which ? &slot.k[r][c8] : &slot.q[r][c8];
    gs_copy16(dst, (which ? k : q) + off, live);
  }
}

GS_KERNEL void GS_AMD_LAUNCH_BOUNDS(4 * GS_WARP_SIZE) gdn_v2_prep(const gs_u16* __restrict__ q, const gs_u16* __restrict__ k, const float* __restrict__ g,
                           const gs_u16* __restrict__ beta, float* __restrict__ prep, int T, int H, int HV,
                           float scale) {
  gdn2_prep_slot* ring = (gdn2_prep_slot*)gs_smem;
  float(*Am)[GDN2_M_STRIDE] = (float(*)[GDN2_M_STRIDE])gs_smem;  // after the K loop, over the ring
  float(*Tm)[GDN2_M_STRIDE] = Am + GDN2_CHUNK;
  const unsigned body = GS_STAGES * gdn2_prep_slot_bytes() > gdn2_prep_solve_bytes() ? GS_STAGES * gdn2_prep_slot_bytes()
                                                                                     : gdn2_prep_solve_bytes();
  float* G = (float*)(gs_smem + body);
  float* bet = G + GDN2_CHUNK;
  float* rk = bet + GDN2_CHUNK;
  float* rq = rk + GDN2_CHUNK;
  float* ssq = rq + GDN2_CHUNK;
  float* ssk = ssq + GDN2_CHUNK;

  const int tid = threadIdx.x, warp = tid / GS_WARP_SIZE, lane = gs_lane(), nw = blockDim.x / GS_WARP_SIZE;
  const int chunk = blockIdx.x, hv = blockIdx.y, b = blockIdx.z, h = hv / (HV / H);
  const int NT = gridDim.x;
  const long long t0 = (long long)chunk * GDN2_CHUNK;
  float* out = prep + (((gs_u64)b * HV + hv) * NT + chunk) * gdn2_prep_floats_per_chunk();

  for (int i = tid; i < GDN2_CHUNK; i += blockDim.x) {
    const long long row = t0 + i;
    const gs_u64 gi = ((gs_u64)b * T + (row < T ? row : 0)) * HV + hv;
    G[i] = row < T ? g[gi] : 0.0f;  // raw gates; summed below
    bet[i] = row < T ? gs_bf16_to_f32(beta[gi]) : 0.0f;
    ssq[i] = 0.0f;
    ssk[i] = 0.0f;
  }

  // Jobs: the 10 lower 16x16 tiles of KK, then those of QK; warp w takes w, w + nw, ...
  constexpr int kTiles = GDN2_CHUNK / 16, kLower = kTiles * (kTiles + 1) / 2, kJobs = 2 * kLower;
  constexpr int kMaxJobsPerWarp = (kJobs + 3) / 4;  // blocks have 4 waves
  gs_acc16 acc[kMaxJobsPerWarp];
  int job_ti[kMaxJobsPerWarp], job_tj[kMaxJobsPerWarp];
#pragma unroll
  for (int s = 0; s < kMaxJobsPerWarp; ++s) {
    gs_acc_zero(acc[s]);
    int m = (warp + s * nw) % kLower, ti = 0;
    while (m > ti) m -= ++ti;  // m-th lower tile in row order: (0,0), (1,0), (1,1), (2,0), ...
    job_ti[s] = ti;
    job_tj[s] = m;
  }

  constexpr int slices = GS_DK / GDN2_KS;
  for (int p = 0; p < GS_STAGES - 1 && p < slices; ++p) {
    gdn2_prep_issue(ring[p % GS_STAGES], p, q, k, b, h, t0, T, H);
    gs_async_commit();
  }
  for (int p = 0; p < slices; ++p) {
    const int ahead = p + GS_STAGES - 1;
    if (ahead < slices) gdn2_prep_issue(ring[ahead % GS_STAGES], ahead, q, k, b, h, t0, T, H);
    gs_async_commit();
    gs_async_wait<GS_STAGES - 1>();
    __syncthreads();
    const gdn2_prep_slot& sl = ring[p % GS_STAGES];
#pragma unroll
    for (int s = 0; s < kMaxJobsPerWarp; ++s) {
      if (warp + s * nw >= kJobs) break;  // uniform across the wave
      const bool qk = warp + s * nw >= kLower;
      const int ti = job_ti[s], tj = job_tj[s];
      const gs_u16(*X)[GDN2_SL_STRIDE] = qk ? sl.q : sl.k;
#pragma unroll
      for (int ks = 0; ks < GDN2_KS; ks += 16)
        gs_mma16(acc[s], [&](int r, int kk) { return X[16 * ti + r][ks + kk]; },
                 [&](int kk, int c) { return sl.k[16 * tj + c][ks + kk]; });
    }
    // Sums of squares in column order, as the CPU reference and v1.
    for (int idx = tid; idx < 2 * GDN2_CHUNK; idx += blockDim.x) {
      const int i = idx % GDN2_CHUNK;
      const gs_u16* row = idx < GDN2_CHUNK ? sl.q[i] : sl.k[i];
      float ss = idx < GDN2_CHUNK ? ssq[i] : ssk[i];
      for (int x = 0; x < GDN2_KS; ++x) {
        const float e = gs_bf16_to_f32(row[x]);
        ss += e * e;
      }
      if (idx < GDN2_CHUNK) ssq[i] = ss;
      else ssk[i] = ss;
    }
    __syncthreads();  // the slot is reissued next iteration; after the last, Am/Tm reuse the ring
  }

  if (tid == 0)
    for (int i = 1; i < GDN2_CHUNK; ++i) G[i] += G[i - 1];
  for (int i = tid; i < GDN2_CHUNK; i += blockDim.x) {
    rk[i] = 1.0f / sqrtf(ssk[i] + 1e-6f);
    rq[i] = scale / sqrtf(ssq[i] + 1e-6f);
  }
  __syncthreads();

  gs_u16* planes = (gs_u16*)out;  // U_hi, U_lo, P_hi, P_lo (gdn_v2_layout.h)
#pragma unroll
  for (int s = 0; s < kMaxJobsPerWarp; ++s) {
    if (warp + s * nw >= kJobs) break;
    const bool qk = warp + s * nw >= kLower;
    for (int e = 0; e < GS_ACC_N; ++e) {
      const int i = 16 * job_ti[s] + gs_acc_row(lane, e), j = 16 * job_tj[s] + gs_acc_col(lane, e);
      const float decay = j <= i ? expf(G[i] - G[j]) : 0.0f;
      if (qk) {
        const float pij = j <= i ? acc[s].x[e] * rq[i] * rk[j] * decay : 0.0f;
        planes[GDN2_P_HI + i * GDN2_CHUNK + j] = gs_bf16_hi(pij);
        planes[GDN2_P_LO + i * GDN2_CHUNK + j] = gs_bf16_lo(pij);
      } else {
        Am[i][j] = j < i ? bet[i] * acc[s].x[e] * rk[i] * rk[j] * decay : 0.0f;
      }
    }
  }
  for (int idx = tid; idx < GDN2_CHUNK * GDN2_CHUNK; idx += blockDim.x) {
    const int i = idx / GDN2_CHUNK, j = idx % GDN2_CHUNK;
    if (j / 16 > i / 16) planes[GDN2_P_HI + idx] = planes[GDN2_P_LO + idx] = 0;  // never computed: 0
  }
  __syncthreads();

  // T = (I + A)^-1: column c depends only on itself (T[j][c], j < i) and on A, so one thread
  // walks each column's rows in order with no barrier.
  for (int c = tid; c < GDN2_CHUNK; c += blockDim.x)
    for (int i = 0; i < GDN2_CHUNK; ++i) {
      float x = i == c ? 1.0f : 0.0f;
      if (i > c) {
        x = -Am[i][c];
        for (int j = c + 1; j < i; ++j) x -= Am[i][j] * Tm[j][c];
      }
      Tm[i][c] = x;
    }
  __syncthreads();
  for (int idx = tid; idx < GDN2_CHUNK * GDN2_CHUNK; idx += blockDim.x) {
    const int i = idx / GDN2_CHUNK, j = idx % GDN2_CHUNK;
    const float u = Tm[i][j] * bet[j];
    planes[GDN2_U_HI + idx] = gs_bf16_hi(u);
    planes[GDN2_U_LO + idx] = gs_bf16_lo(u);
  }
  float* scal = out + GDN2_SCAL;
  for (int i = tid; i < GDN2_CHUNK; i += blockDim.x) {
    scal[i] = G[i];
    scal[GDN2_CHUNK + i] = rk[i];
    scal[2 * GDN2_CHUNK + i] = rq[i];
  }
}

// ---- gdn_v2_state --------------------------------------------------------------------------------

struct gdn2_state_slot {
  gs_u16 q[GDN2_TR][GDN2_QK_STRIDE];
  gs_u16 k[GDN2_TR][GDN2_QK_STRIDE];
  gs_u16 v[GDN2_TR][GDN2_BV];
  float G[GDN2_TR], rk[GDN2_TR], rq[GDN2_TR];
  float GL4[4];  // G of the chunk's rows 60..63: [3] is G_L
#if GS_V2_RING_UP
  gs_u16 up[4][GDN2_TR][GDN2_UP_STRIDE];  // the tile's rows of U_hi, U_lo, P_hi, P_lo
#endif
};
static_assert(sizeof(gdn2_state_slot) == gdn2_state_slot_bytes(GS_DK, GS_V2_RING_UP), "gdn_v2_layout.h state slot");

// Issue tile t (rows t * 16 ..) into `slot`: q, k rows, v columns v0 .. v0 + 15, the rows' G,
// rk, rq and the chunk's G_L from the prep output (and U, P rows with GS_V2_RING_UP); the
// 16-byte pieces are shared among `workers` threads, this one being `worker`.
__device__ __forceinline__ void gdn2_state_issue(gdn2_state_slot& slot, long long t, const gs_u16* __restrict__ q,
                                                 const gs_u16* __restrict__ k, const gs_u16* __restrict__ v,
                                                 const float* __restrict__ chunk_scal0, int b, int h, int hv,
                                                 int v0, int T, int H, int HV, int V, int worker, int workers) {
  constexpr int qk_pieces = GS_DK / 8, v_pieces = GDN2_BV / 8, s_pieces = GDN2_TR / 4;
  constexpr int up_pieces = GS_V2_RING_UP ? 4 * GDN2_TR * (GDN2_CHUNK / 8) : 0;
  constexpr int n_qk = 2 * GDN2_TR * qk_pieces, n_v = GDN2_TR * v_pieces, n_s = 3 * s_pieces + 1;
  const long long chunk = t / (GDN2_CHUNK / GDN2_TR);
  const int r0 = (int)(t % (GDN2_CHUNK / GDN2_TR)) * GDN2_TR;
  const float* chunk_scal = chunk_scal0 + chunk * gdn2_prep_floats_per_chunk();
  for (int idx = worker; idx < n_qk + n_v + n_s + up_pieces; idx += workers) {
    if (idx < n_qk) {
      const int which = idx / (GDN2_TR * qk_pieces), rem = idx % (GDN2_TR * qk_pieces);
      const int r = rem / qk_pieces, c8 = (rem % qk_pieces) * 8;
      const long long row = t * GDN2_TR + r;
      const bool live = row < T;
      const gs_u64 off = (((gs_u64)b * T + (live ? row : 0)) * H + h) * GS_DK + c8;
      gs_copy16(which ? &slot.k[r][c8] : &slot.q[r][c8], (which ? k : q) + off, live);
    } else if (idx < n_qk + n_v) {
      const int e = idx - n_qk, r = e / v_pieces, c8 = (e % v_pieces) * 8;
      const long long row = t * GDN2_TR + r;
      const bool live = row < T;
      const gs_u64 off = (((gs_u64)b * T + (live ? row : 0)) * HV + hv) * V + v0 + c8;
      gs_copy16(&slot.v[r][c8], v + off, live);
    } else if (idx < n_qk + n_v + n_s) {
      const int e = idx - n_qk - n_v, which = e / s_pieces, c4 = (e % s_pieces) * 4;
      if (which == 3) {
        gs_copy16(slot.GL4, chunk_scal + GDN2_CHUNK - 4, true);
      } else {
        float* dst = (which == 0 ? slot.G : which == 1 ? slot.rk : slot.rq) + c4;
        gs_copy16(dst, chunk_scal + which * GDN2_CHUNK + r0 + c4, true);
      }
    } else {
#if GS_V2_RING_UP
      const int e = idx - n_qk - n_v - n_s, plane = e / (GDN2_TR * (GDN2_CHUNK / 8));
      const int rem = e % (GDN2_TR * (GDN2_CHUNK / 8)), r = rem / (GDN2_CHUNK / 8), c8 = (rem % (GDN2_CHUNK / 8)) * 8;
      const gs_u16* planes = (const gs_u16*)(chunk_scal - GDN2_SCAL);
      gs_copy16(&slot.up[plane][r][c8], planes + plane * GDN2_CHUNK * GDN2_CHUNK + (r0 + r) * GDN2_CHUNK + c8, true);
#endif
    }
  }
}

GS_KERNEL void GS_AMD_LAUNCH_BOUNDS(4 * GS_WARP_SIZE) gdn_v2_state(const gs_u16* __restrict__ q, const gs_u16* __restrict__ k, const gs_u16* __restrict__ v,
                            const float* __restrict__ h0, const float* __restrict__ prep, float* __restrict__ o,
                            float* __restrict__ ht, int T, int H, int HV, int V) {
  // Split copies of the B operands, n-major (gdn_v2_layout.h): [hi/lo][value column][k].
  constexpr int kSt = GS_DK + GDN2_PAD, kCt = GDN2_CHUNK + GDN2_PAD, kWt = GDN2_TR + GDN2_PAD;
  gdn2_state_slot* ring = (gdn2_state_slot*)gs_smem;
  gs_u16(*St)[GDN2_BV][kSt] = (gs_u16(*)[GDN2_BV][kSt])(gs_smem + GS_STAGES * gdn2_state_slot_bytes(GS_DK, GS_V2_RING_UP));
  gs_u16(*Rt)[GDN2_BV][kCt] = (gs_u16(*)[GDN2_BV][kCt])(St + 2);  // rhs' of the chunk's rows
  gs_u16(*Vt)[GDN2_BV][kCt] = Rt + 2;                              // v_new of the chunk's rows
  gs_u16(*Wt)[GDN2_BV][kWt] = (gs_u16(*)[GDN2_BV][kWt])(Vt + 2);  // the tile's kd-weighted v_new
  float(*part)[GDN2_TR][GDN2_TR] = (float(*)[GDN2_TR][GDN2_TR])(Wt + 2);  // waves 1, 3 -> 0, 2

  const int tid = threadIdx.x, warp = tid / GS_WARP_SIZE, lane = gs_lane(), nw = blockDim.x / GS_WARP_SIZE;
  const int v0 = blockIdx.x * GDN2_BV, hv = blockIdx.y, b = blockIdx.z, h = hv / (HV / H);
  const int NT = (T + GDN2_CHUNK - 1) / GDN2_CHUNK;
  const float* head_prep = prep + ((gs_u64)b * HV + hv) * NT * gdn2_prep_floats_per_chunk();
  const float* scal0 = head_prep + GDN2_SCAL;
  const gs_u64 state_base = ((gs_u64)b * HV + hv) * GS_DK * V;

  // The state lives in registers as each wave's 16-row tiles (the layout of dS, so the update
  // at a chunk's end is element-wise); St is its split copy for the matrix unit, rewritten once
  // per chunk.
  constexpr int kSTiles = GS_DK / 16, kMaxSTilesPerWarp = (kSTiles + 3) / 4;
  gs_acc16 S[kMaxSTilesPerWarp], dS[kMaxSTilesPerWarp];
#pragma unroll
  for (int s = 0; s < kMaxSTilesPerWarp; ++s) {
    const int m = warp + s * nw;
    gs_acc_zero(dS[s]);
    gs_acc_zero(S[s]);
    if (m >= kSTiles) continue;
    for (int e = 0; e < GS_ACC_N; ++e) {
      const int x = 16 * m + gs_acc_row(lane, e), y = gs_acc_col(lane, e);
      const float s0 = h0 ? h0[state_base + (gs_u64)x * V + v0 + y] : 0.0f;
      S[s].x[e] = s0;
      St[0][y][x] = gs_bf16_hi(s0);
      St[1][y][x] = gs_bf16_lo(s0);
    }
  }
  gs_acc16 acc, acc2;  // waves 0..3: partial k S / q S; wave 2 then carries o

  // The ring (as Triton's pipeliner orders it): with two or more slots, wait for tile t, one
  // barrier, then issue tile t + STAGES - 1 into the slot tile t - 1 left (every wave is past
  // it), so a tile costs one barrier fewer; waves 1 and 3 issue it while wave 0 is alone on the
  // tile's critical path (step 2). With one slot: load, wait, compute, barrier.
  const long long tiles = ((long long)T + GDN2_TR - 1) / GDN2_TR;
  for (long long p = 0; p < GS_STAGES - 1 && p < tiles; ++p) {
    gdn2_state_issue(ring[p % GS_STAGES], p, q, k, v, scal0, b, h, hv, v0, T, H, HV, V, tid, blockDim.x);
    gs_async_commit();
  }
  for (long long t = 0; t < tiles; ++t) {
#if GS_STAGES == 1
    gdn2_state_issue(ring[0], t, q, k, v, scal0, b, h, hv, v0, T, H, HV, V, tid, blockDim.x);
    gs_async_commit();
    gs_async_wait<0>();
#else
    gs_async_wait<GS_STAGES - 2>();
#endif
    __syncthreads();

    const gdn2_state_slot& sl = ring[t % GS_STAGES];
    const int r = (int)(t % (GDN2_CHUNK / GDN2_TR)), r0 = r * GDN2_TR;
#if GS_V2_RING_UP
    const gs_u16 *Uh = sl.up[0][0], *Ul = sl.up[1][0], *Ph = sl.up[2][0], *Pl = sl.up[3][0];
    constexpr int ldu = GDN2_UP_STRIDE;
#else
    const long long chunk = t / (GDN2_CHUNK / GDN2_TR);
    const gs_u16* planes = (const gs_u16*)(head_prep + chunk * gdn2_prep_floats_per_chunk()) + r0 * GDN2_CHUNK;
    const gs_u16 *Uh = planes + GDN2_U_HI, *Ul = planes + GDN2_U_LO, *Ph = planes + GDN2_P_HI, *Pl = planes + GDN2_P_LO;
    constexpr int ldu = GDN2_CHUNK;
#endif
    const float GL = sl.GL4[3];

    // 1. k S (waves 0, 1: halves of K) and q S (waves 2, 3); two accumulators per wave so
    //    consecutive matrix ops do not wait on each other. Waves 1 and 3 hand theirs over.
    if (warp < 4) {
      gs_acc_zero(acc);
      gs_acc_zero(acc2);
      const gs_u16* X = warp < 2 ? sl.k[0] : sl.q[0];
      const int k0 = (warp & 1) * (GS_DK / 2);
#pragma unroll
      for (int ks = k0; ks < k0 + GS_DK / 2; ks += 16) {
        gs_mma16_kmajor(acc, X + ks, GDN2_QK_STRIDE, St[0][0] + ks, kSt);
        gs_mma16_kmajor(acc2, X + ks, GDN2_QK_STRIDE, St[1][0] + ks, kSt);
      }
      for (int e = 0; e < GS_ACC_N; ++e) {
        acc.x[e] += acc2.x[e];
        if (warp & 1) part[warp >> 1][gs_acc_row(lane, e)][gs_acc_col(lane, e)] = acc.x[e];
      }
    }
    __syncthreads();

    // 2. Wave 0: rhs' rows, then v_new rows = U[rows][0 .. r0 + 16) rhs' (three products, each
    //    on its own accumulator), then the kd-weighted copy for dS. Wave 2: o starts as
    //    exp(G_i) q^_i S.
    if (warp == 0) {
      for (int e = 0; e < GS_ACC_N; ++e) {
        const int i = gs_acc_row(lane, e), y = gs_acc_col(lane, e);
        const float rv = gs_bf16_to_f32(sl.v[i][y]) - expf(sl.G[i]) * sl.rk[i] * (acc.x[e] + part[0][i][y]);
        Rt[0][y][r0 + i] = gs_bf16_hi(rv);
        Rt[1][y][r0 + i] = gs_bf16_lo(rv);
      }
      gs_syncwarp();
      gs_acc16 v1, v2, v3;
      gs_acc_zero(v1);
      gs_acc_zero(v2);
      gs_acc_zero(v3);
      for (int j0 = 0; j0 <= r0; j0 += 16) {
        gs_mma16_kmajor(v1, Uh + j0, ldu, Rt[0][0] + j0, kCt);
        gs_mma16_kmajor(v2, Uh + j0, ldu, Rt[1][0] + j0, kCt);
        gs_mma16_kmajor(v3, Ul + j0, ldu, Rt[0][0] + j0, kCt);
      }
      for (int e = 0; e < GS_ACC_N; ++e) {
        const int i = gs_acc_row(lane, e), y = gs_acc_col(lane, e);
        const float vn = v1.x[e] + v2.x[e] + v3.x[e];
        const float w = sl.rk[i] * expf(GL - sl.G[i]) * vn;
        Vt[0][y][r0 + i] = gs_bf16_hi(vn);
        Vt[1][y][r0 + i] = gs_bf16_lo(vn);
        Wt[0][y][i] = gs_bf16_hi(w);
        Wt[1][y][i] = gs_bf16_lo(w);
      }
    } else if (warp == 2) {
      for (int e = 0; e < GS_ACC_N; ++e) {
        const int i = gs_acc_row(lane, e), y = gs_acc_col(lane, e);
        acc.x[e] = (acc.x[e] + part[1][i][y]) * (expf(sl.G[i]) * sl.rq[i]);
      }
    }
#if GS_STAGES > 1
    else if ((warp == 1 || warp == 3) && t + GS_STAGES - 1 < tiles) {
      gdn2_state_issue(ring[(t + GS_STAGES - 1) % GS_STAGES], t + GS_STAGES - 1, q, k, v, scal0, b, h, hv, v0, T, H, HV,
                       V, (warp >> 1) * GS_WARP_SIZE + lane, 2 * GS_WARP_SIZE);
    }
    gs_async_commit();  // every thread, every tile: the group counts stay one per tile
#endif
    __syncthreads();

    // 3. Wave 2: o rows += P[rows][0 .. r0 + 16) v_new, stored. Every wave: dS += k^T W.
    if (warp == 2) {
      gs_acc16 o2, o3;
      gs_acc_zero(o2);
      gs_acc_zero(o3);
      for (int j0 = 0; j0 <= r0; j0 += 16) {
        gs_mma16_kmajor(acc, Ph + j0, ldu, Vt[0][0] + j0, kCt);
        gs_mma16_kmajor(o2, Ph + j0, ldu, Vt[1][0] + j0, kCt);
        gs_mma16_kmajor(o3, Pl + j0, ldu, Vt[0][0] + j0, kCt);
      }
      for (int e = 0; e < GS_ACC_N; ++e) {
        const long long row = t * GDN2_TR + gs_acc_row(lane, e);
        if (row < T) o[(((gs_u64)b * T + row) * HV + hv) * V + v0 + gs_acc_col(lane, e)] = acc.x[e] + o2.x[e] + o3.x[e];
      }
    }
#pragma unroll
    for (int s = 0; s < kMaxSTilesPerWarp; ++s) {
      const int m = warp + s * nw;
      if (m >= kSTiles) break;
      auto a = [&](int x, int kk) { return sl.k[kk][16 * m + x]; };
      gs_mma16(dS[s], a, [&](int kk, int c) { return Wt[0][c][kk]; });
      gs_mma16(dS[s], a, [&](int kk, int c) { return Wt[1][c][kk]; });
    }

    // 4. At the chunk's end: S = exp(G_L) S + dS, element-wise in registers, and its split
    //    copy rewritten (read next after the barrier at the top of the next tile).
    if (r == GDN2_CHUNK / GDN2_TR - 1 || t == tiles - 1) {
      const float eL = expf(GL);
#pragma unroll
      for (int s = 0; s < kMaxSTilesPerWarp; ++s) {
        const int m = warp + s * nw;
        if (m >= kSTiles) break;
        for (int e = 0; e < GS_ACC_N; ++e) {
          const float x = eL * S[s].x[e] + dS[s].x[e];
          S[s].x[e] = x;
          St[0][gs_acc_col(lane, e)][16 * m + gs_acc_row(lane, e)] = gs_bf16_hi(x);
          St[1][gs_acc_col(lane, e)][16 * m + gs_acc_row(lane, e)] = gs_bf16_lo(x);
        }
        gs_acc_zero(dS[s]);
      }
    }
#if GS_STAGES == 1
    __syncthreads();  // one slot: the next tile's load overwrites it
#endif
  }

#pragma unroll
  for (int s = 0; s < kMaxSTilesPerWarp; ++s) {
    const int m = warp + s * nw;
    if (m >= kSTiles) break;
    for (int e = 0; e < GS_ACC_N; ++e)
      ht[state_base + (gs_u64)(16 * m + gs_acc_row(lane, e)) * V + v0 + gs_acc_col(lane, e)] = S[s].x[e];
  }
}
