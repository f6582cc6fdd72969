// copy_bandwidth.cu: dst = src over a large buffer, timed by probe memory.bandwidth. Each byte is
// read once and written once, so GB/s = 2 * bytes / time (the convention of the 3.9 TB/s H200
// device-copy figure). CPU reference: kernels/ref/copy_bandwidth_ref.cpp.
#include "gs_device.h"

// Version 1, naive: one float per thread; grid must cover n (ceil(n / block) blocks). 64-bit
// index because 1 GiB of floats is 2^28 elements and buffers may be larger.
GS_KERNEL void copy_v1(const float* __restrict__ src, float* __restrict__ dst, gs_u64 n) {
  gs_u64 i = (gs_u64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

// Version 2: 16-byte loads and stores in a grid-stride loop, so a grid of a few waves per SM
// covers any n; fewer, wider memory transactions are what reach the HBM band. src and dst must be
// 16-byte aligned (device allocations are 256-byte aligned); the n % 4 tail is copied by thread 0.
GS_KERNEL void copy_v2(const float* __restrict__ src, float* __restrict__ dst, gs_u64 n) {
  const gs_u64 n4 = n / 4;
  const gs_u64 stride = (gs_u64)gridDim.x * blockDim.x;
  const gs_f32x4* s4 = reinterpret_cast<const gs_f32x4*>(src);
  gs_f32x4* d4 = reinterpret_cast<gs_f32x4*>(dst);
  for (gs_u64 i = (gs_u64)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) d4[i] = s4[i];
  if (blockIdx.x == 0 && threadIdx.x == 0)
    for (gs_u64 i = n4 * 4; i < n; ++i) dst[i] = src[i];
}
