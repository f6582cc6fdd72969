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

// mma.m16n8k16 on 16-bit inputs, from the registers the warp left in mma_emu_lanes: lane l = 4g + t
// holds a0 = A[g][2t..2t+1], a1 = A[g+8][2t..], a2 = A[g][2t+8..], a3 = A[g+8][2t+8..],
// b0 = B[2t..2t+1][g], b1 = B[2t+8..2t+9][g]; the lower k in the low 16 bits.
template <class E>
inline void mma_emu_m16n8k16(float* c, unsigned warp0, unsigned lane) {
  float A[16][16], B[16][8];
  for (unsigned l = 0; l < 32; ++l) {
    const mma_emu_fragments& f = mma_emu_lanes[warp0 + l];
    const unsigned g = l / 4, k = 2 * (l % 4);
    auto lo = [](gs_u32 v) { return E::widen(gs_u16(v & 0xffffu)); };
    auto hi = [](gs_u32 v) { return E::widen(gs_u16(v >> 16)); };
    A[g][k] = lo(f.a[0]), A[g][k + 1] = hi(f.a[0]);
    A[g + 8][k] = lo(f.a[1]), A[g + 8][k + 1] = hi(f.a[1]);
    A[g][k + 8] = lo(f.a[2]), A[g][k + 9] = hi(f.a[2]);
    A[g + 8][k + 8] = lo(f.a[3]), A[g + 8][k + 9] = hi(f.a[3]);
    B[k][g] = lo(f.b[0]), B[k + 1][g] = hi(f.b[0]);
    B[k + 8][g] = lo(f.b[1]), B[k + 9][g] = hi(f.b[1]);
  }
  emu_block.barrier->arrive_and_wait();  // every lane has read the table before it is refilled
  for (unsigned e = 0; e < 4; ++e) {     // c0, c1: row g, columns 2t, 2t+1; c2, c3: row g + 8
    const unsigned row = lane / 4 + (e & 2 ? 8 : 0), col = 2 * (lane % 4) + (e & 1);
    float s = c[e];
    for (int k = 0; k < 16; ++k) s = std::fma(A[row][k], B[k][col], s);
    c[e] = s;
  }
}

// mma.m16n8k32 .e4m3 (what gs_mma_m16n8k16 issues for gs_in_e4m3): lane l = 4g + t holds
// a0 = A[g][4t..4t+3], a1 = A[g+8][4t..], a2 = A[g][4t+16..], a3 = A[g+8][4t+16..],
// b0 = B[4t..4t+3][g], b1 = B[4t+16..][g], the lowest k in the low byte (PTX ISA "Matrix
// Fragments for mma.m16n8k32"); C as m16n8k16's.
template <class E>
inline void mma_emu_m16n8k32_e4m3(float* c, unsigned warp0, unsigned lane) {
  float A[16][32], B[32][8];
  for (unsigned l = 0; l < 32; ++l) {
    const mma_emu_fragments& f = mma_emu_lanes[warp0 + l];
    const unsigned g = l / 4, k = 4 * (l % 4);
    for (unsigned i = 0; i < 4; ++i) {
      auto byte = [&](gs_u32 v) { return E::widen8((v >> (8 * i)) & 0xffu); };
      A[g][k + i] = byte(f.a[0]), A[g + 8][k + i] = byte(f.a[1]);
      A[g][k + 16 + i] = byte(f.a[2]), A[g + 8][k + 16 + i] = byte(f.a[3]);
      B[k + i][g] = byte(f.b[0]), B[k + 16 + i][g] = byte(f.b[1]);
    }
  }
  emu_block.barrier->arrive_and_wait();
  for (unsigned e = 0; e < 4; ++e) {
    const unsigned row = lane / 4 + (e & 2 ? 8 : 0), col = 2 * (lane % 4) + (e & 1);
    float s = c[e];
    for (int k = 0; k < 32; ++k) s = std::fma(A[row][k], B[k][col], s);
    c[e] = s;
  }
}

template <class E>
inline void gs_mma_m16n8k16(float* c, gs_u32 a0, gs_u32 a1, gs_u32 a2, gs_u32 a3, gs_u32 b0, gs_u32 b1) {
  const unsigned t = mma_emu_thread(), lane = t % 32, warp0 = t - lane;
  mma_emu_lanes[t].a[0] = a0, mma_emu_lanes[t].a[1] = a1, mma_emu_lanes[t].a[2] = a2, mma_emu_lanes[t].a[3] = a3;
  mma_emu_lanes[t].b[0] = b0, mma_emu_lanes[t].b[1] = b1;
  emu_block.barrier->arrive_and_wait();
  if constexpr (E::fp8) mma_emu_m16n8k32_e4m3<E>(c, warp0, lane);
  else mma_emu_m16n8k16<E>(c, warp0, lane);
}
#endif
