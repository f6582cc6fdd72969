// The host emulation of kernels/gs_wgmma.h, so kernels/gemm_mma.cu's sm_90a path (TMA + wgmma,
// warp-specialized) runs as plain C++ on top of tests/quant/kernel_emu.h (each thread a
// std::thread, one block at a time). Each piece models what the PTX ISA and the CUDA driver API
// say the hardware does, so the kernel's own choices (tile offsets, the descriptor it encodes,
// the k16 step, the ring's parities, the fragment -> C mapping) and the host's tensor maps
// (probes/gemm_mma_probe.cpp gemm_wgmma_maps: extents, box, swizzle) are what is under test:
//   shared memory   a shared address is a byte offset from wgmma_emu.smem (set by the test);
//   mbarrier        arrival count, transaction bytes and phase under one mutex; try_wait.parity P
//                   returns once the current phase's parity differs from P (PTX ISA "mbarrier":
//                   the phase of parity P has completed);
//   TMA             the box is copied when issued: element (row r, column c) of the box goes to
//                   byte (r x box_cols + c) x e of the destination (e: the map's element bytes, 2
//                   for bf16/fp16, 1 for the fp8 path's uint8 maps), then the swizzle (CUDA
//                   Programming Guide, "TMA Swizzle": the 16-byte chunk index XORs with address
//                   bits 7.., i.e. bits 4-6 ^= 7-9 for 128 B, 4-5 ^= 7-8 for 64 B, 4 ^= 7 for 32 B);
//                   outside the tensor's extents it writes zeros; then complete_tx of the box's
//                   full bytes, zero-filled ones included;
//   wgmma           (k16 of 16-bit inputs, or k32 of E4M3: the same 32 bytes of each row)
//                   each thread computes its own D fragment (PTX ISA, "wgmma .m64nNk16 D
//                   fragment": warp w of the group has rows 16w..16w+15, d[4i + e] is row
//                   l/4 + 8(e/2), column 8i + 2(l%4) + e%2 for lane l), reading A and B through the
//                   descriptors as the ISA's canonical K-major layouts place them ("Matrix
//                   Descriptor Format", "Shared Memory Matrix Layout": swizzled modes put row r,
//                   k at start + (r/8) SBO + (r%8) span + e k, then the swizzle above; no swizzle
//                   puts it in 8 x 16-byte core matrices, start + (r/8) SBO + (ek/16) LBO + 16(r%8) +
//                   (ek)%16, for element bytes e). Products are exact fp32 FMAs: the model does
//                   not reproduce the fp8 accumulator's reduced precision, which the probe's bound
//                   covers (probes/gemm_inputs.h gemm_fp8_error_bound). The products complete when issued, so fence / commit / setmaxnreg are
//                   no-ops and this cannot see a stage released before its wgmma finished (that
//                   is the hardware run's and compute-sanitizer's job); wait_group is a barrier
//                   of the warp's 32 threads, as .sync.aligned makes the warp converge there: on
//                   the GPU a warp's lane 0 cannot release a stage (the kernel's empty arrival)
//                   before the warp's other lanes passed their wait on it, and without this the
//                   emulated threads could (a consumer lane then waits for a phase that already
//                   came round twice).
// A phase that never completes (a wrong parity, a missing arrival) aborts after 20 s instead of
// hanging the suite.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "quant/kernel_emu.h"
#include "kernels/gs_mma.h"  // the input types (gs_in_bf16, gs_in_e4m3, ...) the products widen with
#include "runtime/runtime.h"

#define GS_WGMMA_EMULATE 1
#define __grid_constant__
#include "kernels/gs_wgmma.h"

struct wgmma_emu_barrier {
  unsigned count = 0, pending = 0, phase = 0;
  long long tx = 0;
};

struct wgmma_emu_state {
  unsigned char* smem = nullptr;  // shared address 0
  std::mutex mu;
  std::condition_variable cv;
  std::map<gs_u32, wgmma_emu_barrier> bars;
  std::vector<std::unique_ptr<std::barrier<>>> warps;  // one per warp of the block (wgmma_emu_start)
};
inline wgmma_emu_state wgmma_emu;

// What the emulated TMA reads from a gs_tensor_map: the request itself (the real one is opaque).
struct wgmma_emu_map {
  const unsigned char* base;
  uint64_t cols, rows, row_stride_bytes;
  uint32_t box_cols, box_rows, swizzle_bytes, elem_bytes;
};
static_assert(sizeof(wgmma_emu_map) <= sizeof(gs_tensor_map));

inline gs_tensor_map wgmma_emu_encode(const gs::tensor_map_2d& t) {
  const wgmma_emu_map m{static_cast<const unsigned char*>(t.base), t.cols, t.rows, t.row_stride_bytes,
                        t.box_cols, t.box_rows, t.swizzle_bytes, gs::tensor_elem_bytes(t.elem)};
  gs_tensor_map out{};
  std::memcpy(&out, &m, sizeof m);
  return out;
}

/// Before a launch: `smem` is shared address 0; one warp barrier per warp of a `threads` block.
inline void wgmma_emu_start(unsigned char* smem, unsigned threads) {
  wgmma_emu.smem = smem;
  wgmma_emu.bars.clear();
  wgmma_emu.warps.clear();
  for (unsigned w = 0; w < threads / GS_WARP_SIZE; ++w) wgmma_emu.warps.push_back(std::make_unique<std::barrier<>>(GS_WARP_SIZE));
}

inline gs_u32 wgmma_emu_swizzle(gs_u32 addr, unsigned span_bytes) {
  const unsigned bits = span_bytes == 128 ? 3 : span_bytes == 64 ? 2 : span_bytes == 32 ? 1 : 0;
  return addr ^ (((addr >> 7) & ((1u << bits) - 1)) << 4);
}

inline gs_u32 gs_smem_u32(const void* p) { return gs_u32(static_cast<const unsigned char*>(p) - wgmma_emu.smem); }

inline void wgmma_emu_settle(wgmma_emu_barrier& b) {
  if (b.pending == 0 && b.tx == 0) {
    ++b.phase;
    b.pending = b.count;
    wgmma_emu.cv.notify_all();
  }
}

inline void gs_mbar_init(gs_u64* bar, unsigned arrivals) {
  std::lock_guard<std::mutex> lock(wgmma_emu.mu);
  wgmma_emu.bars[gs_smem_u32(bar)] = {arrivals, arrivals, 0, 0};
}
inline void gs_mbar_init_fence() {}
inline void gs_mbar_arrive(gs_u64* bar) {
  std::lock_guard<std::mutex> lock(wgmma_emu.mu);
  wgmma_emu_barrier& b = wgmma_emu.bars.at(gs_smem_u32(bar));
  --b.pending;
  wgmma_emu_settle(b);
}
inline void gs_mbar_arrive_expect_tx(gs_u64* bar, unsigned bytes) {
  std::lock_guard<std::mutex> lock(wgmma_emu.mu);
  wgmma_emu_barrier& b = wgmma_emu.bars.at(gs_smem_u32(bar));
  b.tx += bytes;
  --b.pending;
  wgmma_emu_settle(b);
}
inline void gs_mbar_wait(gs_u64* bar, unsigned parity) {
  std::unique_lock<std::mutex> lock(wgmma_emu.mu);
  wgmma_emu_barrier& b = wgmma_emu.bars.at(gs_smem_u32(bar));
  if (!wgmma_emu.cv.wait_for(lock, std::chrono::seconds(20), [&] { return (b.phase & 1) != parity; })) {
    std::fprintf(stderr, "wgmma_emu: mbarrier at shared %u never completed the phase of parity %u (thread %u)\n",
                 gs_smem_u32(bar), parity, threadIdx.x);
    std::abort();
  }
}

inline void gs_tma_load_2d(void* dst, const gs_tensor_map* map, int x, int y, gs_u64* bar) {
  wgmma_emu_map m;
  std::memcpy(&m, map, sizeof m);
  const gs_u32 d0 = gs_smem_u32(dst), e = m.elem_bytes;
  for (uint32_t r = 0; r < m.box_rows; ++r)
    for (uint32_t c = 0; c < m.box_cols; ++c) {
      const uint64_t gr = uint64_t(y) + r, gc = uint64_t(x) + c;
      unsigned char v[2] = {0, 0};
      if (gr < m.rows && gc < m.cols) std::memcpy(v, m.base + gr * m.row_stride_bytes + gc * e, e);
      std::memcpy(wgmma_emu.smem + wgmma_emu_swizzle(d0 + (r * m.box_cols + c) * e, m.swizzle_bytes), v, e);
    }
  std::lock_guard<std::mutex> lock(wgmma_emu.mu);
  wgmma_emu_barrier& b = wgmma_emu.bars.at(gs_smem_u32(bar));
  b.tx -= (long long)m.box_rows * m.box_cols * e;
  wgmma_emu_settle(b);
}

template <int N>
inline void gs_setmaxnreg_inc() {}
template <int N>
inline void gs_setmaxnreg_dec() {}
inline void gs_wgmma_fence() {}
inline void gs_wgmma_commit() {}
template <int N>
inline void gs_wgmma_wait() {
  wgmma_emu.warps.at(threadIdx.x / GS_WARP_SIZE)->arrive_and_wait();
}
inline void gs_wgmma_hold(float&) {}

// Element (row, k) of a K-major operand of E::bytes-wide elements as the descriptor places it.
template <class E>
inline float wgmma_emu_operand(gs_u64 desc, unsigned row, unsigned k) {
  const unsigned e = unsigned(E::bytes);
  const gs_u32 start = gs_u32(desc & 0x3fff) << 4, lbo = gs_u32((desc >> 16) & 0x3fff) << 4,
               sbo = gs_u32((desc >> 32) & 0x3fff) << 4;
  const unsigned mode = unsigned(desc >> 62), span = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 0;
  gs_u32 addr = span ? wgmma_emu_swizzle(start + (row / 8) * sbo + (row % 8) * span + e * k, span)
                     : start + (row / 8) * sbo + (e * k / 16) * lbo + 16 * (row % 8) + (e * k) % 16;
  if constexpr (E::fp8) return E::widen8(wgmma_emu.smem[addr]);
  else {
    gs_u16 v;
    std::memcpy(&v, wgmma_emu.smem + addr, 2);
    return E::widen(v);
  }
}

// m64n256kK for K = 16 (16-bit inputs) or 32 (E4M3): the D fragment does not depend on K.
template <class E, unsigned KSTEP>
inline void wgmma_emu_m64n256(float* d, gs_u64 desc_a, gs_u64 desc_b, int scale_d) {
  const unsigned t = threadIdx.x % 128, w = t / GS_WARP_SIZE, l = t % GS_WARP_SIZE;
  float a[2][KSTEP];
  for (unsigned h = 0; h < 2; ++h)
    for (unsigned k = 0; k < KSTEP; ++k) a[h][k] = wgmma_emu_operand<E>(desc_a, 16 * w + l / 4 + 8 * h, k);
  for (unsigned i = 0; i < 256 / 8; ++i)
    for (unsigned e = 0; e < 4; ++e) {
      const unsigned col = 8 * i + 2 * (l % 4) + e % 2;
      float s = scale_d ? d[4 * i + e] : 0.0f;
      for (unsigned k = 0; k < KSTEP; ++k) s = std::fma(a[e / 2][k], wgmma_emu_operand<E>(desc_b, col, k), s);
      d[4 * i + e] = s;
    }
}
template <class E>
inline void gs_wgmma_m64n256k16(float* d, gs_u64 desc_a, gs_u64 desc_b, int scale_d) {
  wgmma_emu_m64n256<E, 16>(d, desc_a, desc_b, scale_d);
}
inline void gs_wgmma_m64n256k32_e4m3(float* d, gs_u64 desc_a, gs_u64 desc_b, int scale_d) {
  wgmma_emu_m64n256<gs_in_e4m3, 32>(d, desc_a, desc_b, scale_d);
}
