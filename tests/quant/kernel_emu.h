// A small host emulation of the CUDA execution model, enough to run kernels/quant4.cu and
// kernels/int8.cu as plain C++ in the unit tests: every thread of a block is a std::thread,
// __syncthreads is a std::barrier, __shared__ is a function-local static (blocks run one after
// another), and __shfl_xor_sync exchanges through a per-block array between two barriers. A
// thread that returns early drops out of the barrier, as an exited GPU thread does. The GPU
// backends compile the same files with NVRTC / comgr; this checks their indexing, tails,
// packing and summation order on a machine without a GPU.
//
// Use: define GS_WARP_SIZE, include this header, then include the .cu inside a namespace:
//   #define GS_WARP_SIZE 32
//   #include "quant/kernel_emu.h"
//   namespace emu32 {
//   #include "kernels/quant4.cu"
//   }
#pragma once
#include <barrier>
#include <cmath>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "kernels/gs_device.h"

#ifndef GS_WARP_SIZE
#error "define GS_WARP_SIZE before including kernel_emu.h"
#endif

// The emulated files define kernels a test may not call.
#pragma GCC diagnostic ignored "-Wunused-function"

// Kernels become static functions, so two emulation units (wave 32 and 64) can coexist.
#undef GS_KERNEL
#define GS_KERNEL static
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __constant__ static
// Qualifiers the matrix kernels use that mean nothing on the host (tests/kernels/*_emu.h).
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif
#ifndef __restrict__
#define __restrict__
#endif
#define GS_FULL_MASK 0xffffffffu

struct emu_dim3 {
  unsigned x = 1, y = 1, z = 1;
};

inline thread_local emu_dim3 threadIdx;
inline emu_dim3 blockIdx, blockDim, gridDim;

struct emu_block_state {
  std::unique_ptr<std::barrier<>> barrier;
  std::vector<float> exchange;
};
inline emu_block_state emu_block;

inline void __syncthreads() { emu_block.barrier->arrive_and_wait(); }

// Lanes of one warp exchange through the block array; every live thread of the block must make
// the same sequence of shuffle calls (true of the kernels emulated here).
inline float __shfl_xor_sync(unsigned, float v, int lane_mask, int width) {
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  emu_block.exchange[t] = v;
  emu_block.barrier->arrive_and_wait();
  const unsigned lane = t % unsigned(width), base = t - lane;
  const float r = emu_block.exchange[base + (lane ^ unsigned(lane_mask))];
  emu_block.barrier->arrive_and_wait();
  return r;
}

/// Run `body` as the grid would: block after block, each block's threads concurrently.
inline void emu_launch(emu_dim3 grid, emu_dim3 block, const std::function<void()>& body) {
  gridDim = grid;
  blockDim = block;
  const unsigned threads = block.x * block.y * block.z;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        blockIdx = {bx, by, bz};
        emu_block.barrier = std::make_unique<std::barrier<>>(threads);
        emu_block.exchange.assign(threads, 0.0f);
        std::vector<std::thread> pool;
        pool.reserve(threads);
        for (unsigned t = 0; t < threads; ++t)
          pool.emplace_back([&, t] {
            threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
            body();
            emu_block.barrier->arrive_and_drop();
          });
        for (std::thread& th : pool) th.join();
      }
}

/// A 1-D launch covering `threads` threads in blocks of `block`.
inline void emu_launch_1d(unsigned long long threads, unsigned block, const std::function<void()>& body) {
  emu_launch({unsigned((threads + block - 1) / block), 1, 1}, {block, 1, 1}, body);
}
