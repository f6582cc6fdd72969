// gemm_mma.cu: C = A Bt^T on the GPU's matrix unit (probes gemm.mma.bf16 / gemm.mma.fp16): the
// path a training step's GEMMs take, beside gemm.cu's CUDA-core kernels, which stay as controls.
// Layout as nn.Linear keeps it: A M x K row-major, Bt N x K row-major (B given n-major, so both
// operands are k-contiguous, what the matrix fragments want), C M x N fp32. K must be a multiple
// of 8 (rows move in 16-byte pieces; the probe pads A and Bt with zero columns). 16-bit products
// are exact in fp32, so only the order of the fp32 sums differs from the CPU reference
// (kernels/ref/gemm_ref.cpp gemm_nt_ref_element), a difference gemm_probes.cpp's bound covers.
//
// gemm_mma_fp8 is the same kernels on E4M3 codes where the arch has an fp8 matrix instruction
// (gs_mma.h GS_MMA_FP8, the sm_90a path below); 16-bit rows become rows of fp8 pairs.
// Two kernels under one set of names: with -DGS_MMA_WGMMA=1 (the probe on cc 9.0, NVRTC sm_90a)
// the Hopper path at the end of this file (TMA + wgmma, its own napkin math there); otherwise:
// Block tile 128 x 256 x 32, 256 threads, grid (ceil(N/256), ceil(M/128)). Napkin: a k-tile is
// (128 + 256) x 32 x 2 B = 24 KiB of copies for 2 x 128 x 256 x 32 = 2.1 MFLOP, 85 FLOP/B, so at
// 4096^3 (137 GFLOP) the copies from L2 are 1.6 GB; an H200 SM's tensor cores (989 TFLOP/s / 132)
// need ~88 B/clk of L2 bandwidth per SM at that ratio, inside what L2 gives (~1.5-2x more).
//   CUDA sm_80+  8 warps as 2 x 4, each 64 x 64 = 4 x 8 mma.sync.m16n8k16 per 16-k step, operands
//                read with ldmatrix.x4 (4 for A, 4 for B per step); a 4-stage cp.async ring,
//                4 x 24 KiB = 96 KiB of dynamic shared memory (opt-in above 48 KiB).
//   elsewhere    the waves take 16 x 16 tiles of the block tile through gs_mma16 (WMMA on gfx11 and
//                gfx12, MFMA on gfx9, the ALUs elsewhere), 2 stages = 48 KiB (under the 64 KiB of
//                LDS a workgroup gets on RDNA and CDNA), plain copies (gs_async.h).
// Shared layout: a tile row (32 k = four 16-byte chunks, 64 B) keeps chunk c at c ^ ((row >> 1) & 3).
// ldmatrix reads one chunk column of 8 consecutive rows; rows are 64 B apart, two per 128-byte
// bank period, and the XOR sends the four row pairs to four different chunks: 8 distinct 16-byte
// bank groups, no conflicts and no padding.
#include "gs_device.h"
#include "gs_async.h"
#include "gs_mma.h"

#define GS_MMA_BM 128
#define GS_MMA_BN 256
#define GS_MMA_BK 32
#define GS_MMA_THREADS 256
// The host passes the stage count (probes/gemm_probes.cpp, which sizes the shared memory with
// it); the defaults are the same choice.
#ifndef GS_MMA_STAGES
#if defined(GS_MMA_PTX)
#define GS_MMA_STAGES 4
#else
#define GS_MMA_STAGES 2
#endif
#endif
#define GS_MMA_TILE_A (GS_MMA_BM * GS_MMA_BK)  // elements of one stage's A tile
#define GS_MMA_TILE_B (GS_MMA_BN * GS_MMA_BK)

#if defined(GS_DEVICE_COMPILE)
extern __shared__ __attribute__((aligned(16))) unsigned char gs_smem[];
#endif  // the host emulation (tests/kernels/mma_emu.h) supplies its own buffer

// Index of element (row, k) in a swizzled tile.
__device__ __forceinline__ int mma_swz(int row, int k) {
  return row * GS_MMA_BK + ((((k >> 3) ^ (row >> 1)) & 3) << 3) + (k & 7);
}

// One stage's tile of ROWS rows starting at row0, k from k0: 16-byte pieces; rows past `rows` or
// k past K are zero-filled (the source address is clamped to the matrix start, which cp.async's
// zero-fill form still requires to be valid).
template <int ROWS>
__device__ __forceinline__ void mma_load_tile(gs_u16* tile, const gs_u16* g, int row0, int rows, int k0, int K) {
  for (int p = threadIdx.x; p < ROWS * 4; p += GS_MMA_THREADS) {
    const int r = p >> 2, c = p & 3;
    const int gr = row0 + r, gk = k0 + 8 * c;
    const bool live = gr < rows && gk < K;
    gs_copy16(tile + mma_swz(r, 8 * c), g + (live ? (gs_u64)gr * K + gk : 0), live);
  }
}


template <class E>
__device__ __forceinline__ void gemm_mma(const gs_u16* __restrict__ A, const gs_u16* __restrict__ Bt,
                                         float* __restrict__ C, int M, int N, int K) {
  gs_u16* As = (gs_u16*)gs_smem;                   // [stage][128 x 32]
  gs_u16* Bs = As + GS_MMA_STAGES * GS_MMA_TILE_A;  // [stage][256 x 32]
  const int m0 = blockIdx.y * GS_MMA_BM, n0 = blockIdx.x * GS_MMA_BN;
  const int ktiles = (K + GS_MMA_BK - 1) / GS_MMA_BK;
  const int lane = gs_lane(), wave = threadIdx.x / GS_WARP_SIZE;

  // Prologue: the first STAGES-1 k-tiles in flight (one commit per tile, also an empty one).
  for (int s = 0; s < GS_MMA_STAGES - 1; ++s) {
    if (s < ktiles) {
      mma_load_tile<GS_MMA_BM>(As + s * GS_MMA_TILE_A, A, m0, M, s * GS_MMA_BK, K);
      mma_load_tile<GS_MMA_BN>(Bs + s * GS_MMA_TILE_B, Bt, n0, N, s * GS_MMA_BK, K);
    }
    gs_async_commit();
  }

#if defined(GS_MMA_PTX)
  const int wm = (wave >> 2) * (GS_MMA_BM / 2), wn = (wave & 3) * (GS_MMA_BN / 4);  // this warp's 64 x 64
  float acc[4][8][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;
#else
  // 8 waves (wave32) as 2 x 4 of 64 x 64, or 4 waves (wave64) as 2 x 2 of 64 x 128.
  const int waves_n = (GS_MMA_THREADS / GS_WARP_SIZE) / 2;
  const int wm = (wave / waves_n) * (GS_MMA_BM / 2), wn = (wave % waves_n) * (GS_MMA_BN / waves_n);
  const int tiles_n = GS_MMA_BN / waves_n / 16;  // 4 or 8 16-wide tiles across
  gs_acc16 acc[4][8];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) gs_acc_zero(acc[i][j]);
#endif

  for (int kt = 0; kt < ktiles; ++kt) {
    gs_async_wait<GS_MMA_STAGES - 2>();
    __syncthreads();  // tile kt landed for every thread; the stage refilled below was read at kt-1
    const int next = kt + GS_MMA_STAGES - 1;
    if (next < ktiles) {
      const int s = next % GS_MMA_STAGES;
      mma_load_tile<GS_MMA_BM>(As + s * GS_MMA_TILE_A, A, m0, M, next * GS_MMA_BK, K);
      mma_load_tile<GS_MMA_BN>(Bs + s * GS_MMA_TILE_B, Bt, n0, N, next * GS_MMA_BK, K);
    }
    gs_async_commit();
    const gs_u16* a = As + (kt % GS_MMA_STAGES) * GS_MMA_TILE_A;
    const gs_u16* b = Bs + (kt % GS_MMA_STAGES) * GS_MMA_TILE_B;
#pragma unroll
    for (int ks = 0; ks < GS_MMA_BK; ks += 16) {
#if defined(GS_MMA_PTX)
      gs_u32 af[4][4], bf[8][2];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)  // rows 0-7/8-15 x k 0-7/8-15: a0..a3 of m16n8k16
        gs_ldmatrix_x4(af[mi], a + mma_swz(wm + mi * 16 + (lane & 15), ks + (lane >> 4) * 8));
#pragma unroll
      for (int nj = 0; nj < 4; ++nj) {  // n 0-7 k 0-7, n 0-7 k 8-15, n 8-15 k 0-7, n 8-15 k 8-15
        gs_u32 r[4];
        gs_ldmatrix_x4(r, b + mma_swz(wn + nj * 16 + (lane & 7) + ((lane >> 4) << 3), ks + ((lane >> 3) & 1) * 8));
        bf[2 * nj][0] = r[0], bf[2 * nj][1] = r[1], bf[2 * nj + 1][0] = r[2], bf[2 * nj + 1][1] = r[3];
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 8; ++ni)
          gs_mma_m16n8k16<E>(acc[mi][ni], af[mi][0], af[mi][1], af[mi][2], af[mi][3], bf[ni][0], bf[ni][1]);
#else
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 8; ++ni)
          if (ni < tiles_n)
            gs_mma16<E>(
                acc[mi][ni], [&](int i, int kk) { return a[mma_swz(wm + mi * 16 + i, ks + kk)]; },
                [&](int kk, int n) { return b[mma_swz(wn + ni * 16 + n, ks + kk)]; });
#endif
    }
  }
  gs_async_wait<0>();

#if defined(GS_MMA_PTX)
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 8; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) {  // c0,c1: row g, columns 2t, 2t+1; c2,c3: row g + 8
        const int row = m0 + wm + mi * 16 + (lane >> 2) + ((e & 2) ? 8 : 0);
        const int col = n0 + wn + ni * 8 + 2 * (lane & 3) + (e & 1);
        if (row < M && col < N) C[(gs_u64)row * N + col] = acc[mi][ni][e];
      }
#else
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 8; ++ni)
      if (ni < tiles_n)
#pragma unroll
        for (int i = 0; i < GS_ACC_N; ++i) {
          const int row = m0 + wm + mi * 16 + gs_acc_row(lane, i), col = n0 + wn + ni * 16 + gs_acc_col(lane, i);
          if (row < M && col < N) C[(gs_u64)row * N + col] = acc[mi][ni].x[i];
        }
#endif
}

#if defined(GS_MMA_WGMMA)
// ---- sm_90a: TMA + wgmma, one producer and two consumer warpgroups ----------------------------
// The probe compiles this path with -DGS_MMA_WGMMA=1 for sm_90a on cc 9.0 only (wgmma and
// setmaxnreg do not exist on sm_80/86/89, and sm_100/120 would need the arch's own `a` target);
// the entries keep their names and take two tensor maps in place of A and Bt.
// Block tile 128 x 256 x 64, 384 threads, grid (ceil(N/256), ceil(M/128)). Napkin: a k-tile is
// (128 + 256) x 64 x 2 B = 48 KiB for 2 x 128 x 256 x 64 = 4.2 MFLOP, 85 FLOP/B as before, but now
// one thread issues it (two TMA boxes) and the tensor cores read it from shared memory without
// a register round trip (mma.sync's ldmatrix traffic, 8 x 4 per 16-k step and warp, is gone).
// Per SM at ~989 TFLOP/s / 132 SMs / 1.83 GHz ~ 4 kFLOP/clk a k-tile is ~1 k clocks of tensor
// work against 48 KiB of L2 traffic: 48 B/clk, inside L2's bandwidth. Ring: 4 stages x 48 KiB =
// 192 KiB (+ 64 B of mbarriers, + 1 KiB alignment slack; gemm_ref.h gemm_wgmma_tiling), so 3
// k-tiles are in flight while one is multiplied; 1 block per SM.
// Registers: a consumer holds its 64 x 256 fp32 accumulator as 128 registers a thread (the m64nNk16
// D fragment: warp w of the group has rows 16w..16w+15; for each 8-column block i, lane l holds
// d[4i], d[4i+1] at row l/4, columns 8i + 2(l%4) + 0/1, and d[4i+2], d[4i+3] 8 rows lower; PTX ISA
// "wgmma D matrix fragment" figure). __launch_bounds__(384, 1) caps ptxas at 168 a thread;
// setmaxnreg moves the producer to 40 and the consumers to 232 (128 x 40 + 256 x 232 = 64,512 of
// the SM's 65,536).
// Ring protocol (gs_wgmma.h): full[s] expects one arrival (the producer's arrive.expect_tx of
// 48 KiB) plus the two boxes' bytes; empty[s] expects one arrival per consumer warp. A consumer
// keeps one wgmma group in flight: after committing k-tile kt it waits for kt-1's group and only
// then releases kt-1's stage.
// Edges: TMA zero-fills rows past M or N and k past K (both maps have the true extents), so a
// ragged tile multiplies zeros; the stores check row < M and col < N.
// fp8 (gemm_mma_fp8, E4M3): the same bytes per stage, so the same ring, boxes of 128 B rows and
// descriptors; a 128-byte row now holds 128 k, the block tile is 128 x 256 x 128 and a k-tile is 4
// wgmma.m64n256k32 (32 B of each row apiece, the 16-bit path's descriptor steps). Napkin: 2 x 128 x
// 256 x 128 = 8.4 MFLOP per 48 KiB, 171 FLOP/B; at 1979 dense TFLOP/s / 132 SMs / 1.83 GHz ~
// 8.2 kFLOP/clk a k-tile is again ~1 k clocks, so the L2 traffic per clock stays ~48 B/clk.
// Left out (each worth a few % in the public write-ups, none needed for the 60 % line): a
// persistent tile scheduler (4096^3 is 512 tiles on 132 SMs, 3.9 waves), 2-CTA clusters sharing
// B by TMA multicast, an epilogue through shared memory and a TMA store.
#include "gs_wgmma.h"

#define GS_WG_BM 128
#define GS_WG_BN 256
#define GS_WG_BK 64
#define GS_WG_THREADS 384
#ifndef GS_WG_STAGES
#define GS_WG_STAGES 4
#endif
#define GS_WG_GROUP 128           // threads of a warpgroup
#define GS_WG_CONSUMER_ROWS 64    // rows of C each consumer group owns: one m64 wgmma tall
#define GS_WG_CONSUMER_WARPS 8    // arrivals that release a stage: every consumer warp
#define GS_WG_ROW_BYTES 128       // one k-tile row (64 16-bit k) = the 128-byte swizzle width
#define GS_WG_KSTEP_BYTES 32      // one wgmma's k slice of a row (k16 of 16-bit, k32 of fp8): the descriptor's step
#define GS_WG_A_BYTES (GS_WG_BM * GS_WG_ROW_BYTES)
#define GS_WG_B_BYTES (GS_WG_BN * GS_WG_ROW_BYTES)
#define GS_WG_D_REGS 128          // 64 x 256 fp32 over 128 threads

__device__ __forceinline__ void wg_store_pair(float* p, float x, float y) {
#if defined(GS_DEVICE_COMPILE)
  *(float2*)p = make_float2(x, y);
#else
  p[0] = x, p[1] = y;
#endif
}

// One wgmma over the next 32 bytes of each row: k16 of bf16/fp16, k32 of E4M3.
template <class E>
__device__ __forceinline__ void wg_mma_step(float* d, gs_u64 desc_a, gs_u64 desc_b, int scale_d) {
  if constexpr (E::fp8) gs_wgmma_m64n256k32_e4m3(d, desc_a, desc_b, scale_d);
  else gs_wgmma_m64n256k16<E>(d, desc_a, desc_b, scale_d);
}

template <class E>
__device__ __forceinline__ void gemm_wgmma(const gs_tensor_map* tm_a, const gs_tensor_map* tm_b, float* __restrict__ C,
                                           int M, int N, int K) {
  const gs_u32 raw = gs_smem_u32(gs_smem);
  unsigned char* As = gs_smem + (((raw + GS_WGMMA_ATOM_BYTES - 1) & ~(GS_WGMMA_ATOM_BYTES - 1)) - raw);
  unsigned char* Bs = As + GS_WG_STAGES * GS_WG_A_BYTES;
  gs_u64* full = (gs_u64*)(Bs + GS_WG_STAGES * GS_WG_B_BYTES);
  gs_u64* empty = full + GS_WG_STAGES;
  const int group = threadIdx.x / GS_WG_GROUP;
  constexpr int bk = GS_WG_ROW_BYTES / E::bytes;  // k of one tile row: 64 (16-bit) or 128 (fp8)
  const int ktiles = (K + bk - 1) / bk;
  const int m0 = blockIdx.y * GS_WG_BM, n0 = blockIdx.x * GS_WG_BN;
  if (threadIdx.x == 0) {
    for (int s = 0; s < GS_WG_STAGES; ++s) {
      gs_mbar_init(&full[s], 1);
      gs_mbar_init(&empty[s], GS_WG_CONSUMER_WARPS);
    }
    gs_mbar_init_fence();
  }
  __syncthreads();

  if (group == 0) {  // producer: one thread issues every copy
    gs_setmaxnreg_dec<40>();
    if (threadIdx.x == 0)
      for (int kt = 0; kt < ktiles; ++kt) {
        const int s = kt % GS_WG_STAGES;
        if (kt >= GS_WG_STAGES) gs_mbar_wait(&empty[s], (kt / GS_WG_STAGES - 1) & 1);  // kt - STAGES released
        gs_mbar_arrive_expect_tx(&full[s], GS_WG_A_BYTES + GS_WG_B_BYTES);
        gs_tma_load_2d(As + s * GS_WG_A_BYTES, tm_a, kt * bk, m0, &full[s]);
        gs_tma_load_2d(Bs + s * GS_WG_B_BYTES, tm_b, kt * bk, n0, &full[s]);
      }
    return;
  }

  gs_setmaxnreg_inc<232>();
  const int c = group - 1;
  float d[GS_WG_D_REGS];  // written first by a wgmma with scale_d = 0 (gs_wgmma.h says why)
  for (int kt = 0; kt < ktiles; ++kt) {
    const int s = kt % GS_WG_STAGES;
    gs_mbar_wait(&full[s], (kt / GS_WG_STAGES) & 1);
    const gs_u32 a = gs_smem_u32(As + s * GS_WG_A_BYTES + c * GS_WG_CONSUMER_ROWS * GS_WG_ROW_BYTES);
    const gs_u32 b = gs_smem_u32(Bs + s * GS_WG_B_BYTES);
#pragma unroll
    for (int i = 0; i < GS_WG_D_REGS; ++i) gs_wgmma_hold(d[i]);
    gs_wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < GS_WG_ROW_BYTES / GS_WG_KSTEP_BYTES; ++ks)
      wg_mma_step<E>(d, gs_wgmma_desc(a + ks * GS_WG_KSTEP_BYTES), gs_wgmma_desc(b + ks * GS_WG_KSTEP_BYTES),
                     kt > 0 || ks > 0);
    gs_wgmma_commit();
#pragma unroll
    for (int i = 0; i < GS_WG_D_REGS; ++i) gs_wgmma_hold(d[i]);
    gs_wgmma_wait<1>();  // k-tile kt-1's group has read its stage
    if (kt > 0 && gs_lane() == 0) gs_mbar_arrive(&empty[(kt - 1) % GS_WG_STAGES]);
  }
  gs_wgmma_wait<0>();
#pragma unroll
  for (int i = 0; i < GS_WG_D_REGS; ++i) gs_wgmma_hold(d[i]);

  const int w = (threadIdx.x % GS_WG_GROUP) / GS_WARP_SIZE, l = gs_lane();
  const int row0 = m0 + c * GS_WG_CONSUMER_ROWS + 16 * w + l / 4;
  const bool pairs = (N & 1) == 0;  // 8-byte aligned column pairs
#pragma unroll
  for (int i = 0; i < GS_WG_D_REGS / 4; ++i) {
    const int col = n0 + 8 * i + 2 * (l % 4);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + 8 * h;
      if (row >= M || col >= N) continue;
      float* p = C + (gs_u64)row * N + col;
      if (pairs) wg_store_pair(p, d[4 * i + 2 * h], d[4 * i + 2 * h + 1]);
      else {
        p[0] = d[4 * i + 2 * h];
        if (col + 1 < N) p[1] = d[4 * i + 2 * h + 1];
      }
    }
  }
}

GS_KERNEL void __launch_bounds__(GS_WG_THREADS, 1)
gemm_mma_bf16(const __grid_constant__ gs_tensor_map tm_a, const __grid_constant__ gs_tensor_map tm_b, float* C, int M,
              int N, int K) {
  gemm_wgmma<gs_in_bf16>(&tm_a, &tm_b, C, M, N, K);
}
GS_KERNEL void __launch_bounds__(GS_WG_THREADS, 1)
gemm_mma_f16(const __grid_constant__ gs_tensor_map tm_a, const __grid_constant__ gs_tensor_map tm_b, float* C, int M,
             int N, int K) {
  gemm_wgmma<gs_in_f16>(&tm_a, &tm_b, C, M, N, K);
}
// E4M3 (OCP) A and Bt through uint8 tensor maps; K in elements, a multiple of 16 (16-byte rows).
GS_KERNEL void __launch_bounds__(GS_WG_THREADS, 1)
gemm_mma_fp8(const __grid_constant__ gs_tensor_map tm_a, const __grid_constant__ gs_tensor_map tm_b, float* C, int M,
             int N, int K) {
  gemm_wgmma<gs_in_e4m3>(&tm_a, &tm_b, C, M, N, K);
}
#else
GS_KERNEL void __launch_bounds__(GS_MMA_THREADS)
gemm_mma_bf16(const gs_u16* A, const gs_u16* Bt, float* C, int M, int N, int K) {
  gemm_mma<gs_in_bf16>(A, Bt, C, M, N, K);
}
GS_KERNEL void __launch_bounds__(GS_MMA_THREADS)
gemm_mma_f16(const gs_u16* A, const gs_u16* Bt, float* C, int M, int N, int K) {
  gemm_mma<gs_in_f16>(A, Bt, C, M, N, K);
}
#if defined(GS_MMA_FP8) || (defined(GS_MMA_SCALAR) && !defined(GS_DEVICE_COMPILE))
// E4M3 in the arch's encoding (gs_mma.h: FNUZ on MI300, OCP on RDNA4 and sm_89+), K in elements, a
// multiple of 16. The tiles move as 16-bit words, two fp8 each: the same bytes, copies, swizzle
// and ldmatrix as the 16-bit entries, a k-tile of 64 fp8; one mma.sync.m16n8k32 (sm_89+) or
// gs_mma16 call (AMD) per 32 k. Also built for the host emulation of the scalar lowering
// (tests/kernels/gemm_mma_emu_waves_test.cpp); never for a GPU without an fp8 instruction.
GS_KERNEL void __launch_bounds__(GS_MMA_THREADS)
gemm_mma_fp8(const gs_u16* A, const gs_u16* Bt, float* C, int M, int N, int K) {
  gemm_mma<gs_in_e4m3>(A, Bt, C, M, N, K / 2);
}
#endif
#endif  // GS_MMA_WGMMA
