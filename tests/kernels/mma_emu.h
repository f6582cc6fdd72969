// The host emulation of kernels/gemm_mma.cu's two paths, on top of tests/quant/kernel_emu.h
// (threads as std::threads, one block at a time). A test that defines GS_MMA_EMULATE_PTX before
// including this header runs the CUDA sm_80+ path: ldmatrix.x4 and mma.sync.m16n8k16 (and the
// m16n8k32 .e4m3 of the fp8 entry, sm_89+) are emulated here from the fragment layouts of the PTX ISA ("Matrix Fragments for
// mma.m16n8k16", "ldmatrix"), so the kernel's swizzle, addressing and fragment order are checked
// without a GPU; without it, the portable path (waves of 16 x 16 tiles through gs_mma16) runs on
// gs_mma.h's ALU lowering. The warp-collective calls exchange through a per-thread table between
// two block barriers: every thread of the block makes the same sequence of calls (true of the
// kernel: no divergence around them).
#pragma once
#include <cmath>

#include "quant/kernel_emu.h"

struct mma_emu_fragments {
  const gs_u16* row = nullptr;  // ldmatrix: this lane's row address
  gs_u32 a[4] = {}, b[2] = {};  // mma: this lane's A and B registers
};
inline mma_emu_fragments mma_emu_lanes[GS_MAX_BLOCK];

inline unsigned mma_emu_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

#if defined(GS_MMA_EMULATE_PTX)
inline void gs_ldmatrix_x4(gs_u32* r, const gs_u16* p) {
  const unsigned t = mma_emu_thread(), lane = t % 32, warp0 = t - lane;
  mma_emu_lanes[t].row = p;
  emu_block.barrier->arrive_and_wait();
  for (unsigned i = 0; i < 4; ++i) {  // matrix i: rows from lanes 8i..8i+7; lane holds row lane/4
    const gs_u16* row = mma_emu_lanes[warp0 + 8 * i + lane / 4].row;
    r[i] = gs_u32(row[2 * (lane % 4)]) | gs_u32(row[2 * (lane % 4) + 1]) << 16;
  }
  emu_block.barrier->arrive_and_wait();
}

// One lane's four accumulators of C (16 x 8) += A (16 x K) B (K x 8): c0, c1 are row g, columns
// 2t, 2t+1 and c2, c3 row g + 8 (lane = 4g + t), each the fma chain in k order.
template <int K>
inline void mma_emu_accumulate(float* c, const float (&A)[16][K], const float (&B)[K][8], unsigned lane) {
  for (unsigned e = 0; e < 4; ++e) {
    const unsigned row = lane / 4 + (e & 2 ? 8 : 0), col = 2 * (lane % 4) + (e & 1);
    float s = c[e];
    for (int k = 0; k < K; ++k) s = std::fma(A[row][k], B[k][col], s);
    c[e] = s;
  }
}

// mma.m16n8k16 on 16-bit inputs and mma.m16n8k32 .e4m3 (what gs_mma_m16n8k16 issues for
// gs_in_e4m3), from the registers the warp left in mma_emu_lanes. A register holds P elements of k
// (P = 2 of 16 bits, or 4 bytes; the lowest k in the low bits), K = 8P, and lane l = 4g + t holds
// a0 = A[g][Pt..Pt+P-1], a1 = A[g+8][Pt..], a2 = A[g][Pt+K/2..], a3 = A[g+8][Pt+K/2..],
// b0 = B[Pt..][g], b1 = B[Pt+K/2..][g] (PTX ISA "Matrix Fragments for mma.m16n8k16 / m16n8k32").
template <class E>
inline void mma_emu_m16n8(float* c, unsigned warp0, unsigned lane) {
  constexpr unsigned P = E::fp8 ? 4 : 2, K = 8 * P, half = K / 2, bits = 32 / P;
  float A[16][K], B[K][8];
  for (unsigned l = 0; l < 32; ++l) {
    const mma_emu_fragments& f = mma_emu_lanes[warp0 + l];
    const unsigned g = l / 4, k = P * (l % 4);
    for (unsigned i = 0; i < P; ++i) {
      auto el = [&](gs_u32 v) {
        const gs_u32 x = (v >> (bits * i)) & ((1u << bits) - 1);
        if constexpr (E::fp8) return E::widen8(x);
        else return E::widen(gs_u16(x));
      };
      A[g][k + i] = el(f.a[0]), A[g + 8][k + i] = el(f.a[1]);
      A[g][k + half + i] = el(f.a[2]), A[g + 8][k + half + i] = el(f.a[3]);
      B[k + i][g] = el(f.b[0]), B[k + half + i][g] = el(f.b[1]);
    }
  }
  emu_block.barrier->arrive_and_wait();  // every lane has read the table before it is refilled
  mma_emu_accumulate(c, A, B, lane);
}

template <class E>
inline void gs_mma_m16n8k16(float* c, gs_u32 a0, gs_u32 a1, gs_u32 a2, gs_u32 a3, gs_u32 b0, gs_u32 b1) {
  const unsigned t = mma_emu_thread(), lane = t % 32, warp0 = t - lane;
  mma_emu_lanes[t].a[0] = a0, mma_emu_lanes[t].a[1] = a1, mma_emu_lanes[t].a[2] = a2, mma_emu_lanes[t].a[3] = a3;
  mma_emu_lanes[t].b[0] = b0, mma_emu_lanes[t].b[1] = b1;
  emu_block.barrier->arrive_and_wait();
  mma_emu_m16n8<E>(c, warp0, lane);
}
#endif
