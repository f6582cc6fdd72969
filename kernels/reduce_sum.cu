// reduce_sum.cu: sum of n floats in two launches (probe tensor.reduce). Each block writes the
// sum of the elements its threads visit to partial[blockIdx.x]; a second launch with one block
// reduces the partials. No atomics, so the order of additions is fixed and the CPU backend can
// replay it exactly (kernels/ref/reduce_sum_ref.cpp).
// Launch: 1-D, blockDim.x a multiple of GS_WARP_SIZE and <= GS_MAX_BLOCK; any grid.
#include "gs_device.h"

// Butterfly over one warp: after log2(GS_WARP_SIZE) steps every lane holds the warp's sum.
// The width comes from the JIT (32 on NVIDIA and RDNA, 64 on CDNA), never from a literal.
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = GS_WARP_SIZE / 2; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(GS_FULL_MASK, v, offset, GS_WARP_SIZE);
  return v;
}

// Version 1: grid-stride accumulation per thread, warp butterfly, then the first warp reduces
// the per-warp sums. 4 bytes read per add: memory-bound, about one HBM pass over x.
GS_KERNEL void reduce_sum_v1(const float* __restrict__ x, float* __restrict__ partial, unsigned n) {
  __shared__ float warp_sums[GS_MAX_BLOCK / GS_WARP_SIZE];
  const unsigned tid = threadIdx.x;
  const unsigned lane = tid % GS_WARP_SIZE, warp = tid / GS_WARP_SIZE;
  const unsigned warps = blockDim.x / GS_WARP_SIZE;

  float s = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) s += x[i];
  s = warp_sum(s);
  if (lane == 0) warp_sums[warp] = s;
  __syncthreads();

  // warps <= GS_MAX_BLOCK / GS_WARP_SIZE <= GS_WARP_SIZE (1024/32 = 32, 1024/64 = 16), so one
  // warp holds every per-warp sum.
  if (warp == 0) {
    float t = lane < warps ? warp_sums[lane] : 0.0f;
    t = warp_sum(t);
    if (lane == 0) partial[blockIdx.x] = t;
  }
}
