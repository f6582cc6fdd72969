// gs_async.h: 16-byte global-to-shared copies that do not wait, for software pipelines.
//   CUDA sm_80+  cp.async.cg (the copy engine path Triton's pipeliner emits: the data lands in
//                shared memory without passing through registers, and the wave goes on)
//   elsewhere    a plain 16-byte load and store (AMD's LDS-direct loads differ by generation;
//                gfx90a has none for 16 bytes), so the same ring still runs, synchronously
// Use: gs_copy16 for every piece of a tile, gs_async_commit() once per tile (also when there
// was nothing to issue, so group counts stay aligned with tiles), then gs_async_wait<N>()
// leaves at most N tiles in flight; a block barrier must follow before other threads read.
#pragma once
#include "gs_device.h"

#if defined(GS_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GS_ASYNC_COPY 1
#define GS_ASYNC_KIND "cp.async.cg"
#else
#define GS_ASYNC_KIND "plain loads"
#endif

/// Copy 16 bytes (both addresses 16-byte aligned); when `live` is false write 16 zero bytes
/// (rows past the sequence end). The source address must be in bounds either way: cp.async
/// reads nothing then, the plain path reads and discards it.
__device__ __forceinline__ void gs_copy16(void* smem_dst, const void* gmem_src, bool live) {
#if defined(GS_ASYNC_COPY)
  gs_u32 dst;
  asm volatile("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }\n" : "=r"(dst) : "l"(smem_dst));
  // src-size 0 reads nothing and zero-fills the 16 bytes; the address must still be valid
  // for the instruction's form, so callers pass a clamped in-bounds one.
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src), "r"(live ? 16 : 0));
#else
  // Load always (the address is in bounds: the callers' contract above) and select per lane:
  // a load under `if (live)` or `live ? *src : z` left the vector in scratch on gfx9 and gfx11
  // (32 B per lane; the gfx build check, tests/runtime/clang_gfx_compile_test.cpp, found it).
  const gs_f32x4 g = *(const gs_f32x4*)gmem_src;
  gs_f32x4 v;
  v.x = live ? g.x : 0.0f;
  v.y = live ? g.y : 0.0f;
  v.z = live ? g.z : 0.0f;
  v.w = live ? g.w : 0.0f;
  *(gs_f32x4*)smem_dst = v;
#endif
}

__device__ __forceinline__ void gs_async_commit() {
#if defined(GS_ASYNC_COPY)
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

template <int N>
__device__ __forceinline__ void gs_async_wait() {
#if defined(GS_ASYNC_COPY)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}
