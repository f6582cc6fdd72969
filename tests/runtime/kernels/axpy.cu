// axpy.cu: y = a * x + y, the runtime tests' own kernel (not embedded; tests read it from the
// source tree). It uses the prelude's vendor mapping (__shfl_xor_sync) and GS_WARP_SIZE, so a
// compile proves both reached the compiler; warp_total is written by lane 0 of each warp.
#include "gs_device.h"

GS_KERNEL void axpy(float a, const float* __restrict__ x, float* __restrict__ y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Sum of x over each warp (n must be a multiple of GS_WARP_SIZE, one thread per element).
GS_KERNEL void warp_total(const float* __restrict__ x, float* __restrict__ out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int off = GS_WARP_SIZE / 2; off > 0; off >>= 1) v += __shfl_xor_sync(GS_FULL_MASK, v, off, GS_WARP_SIZE);
  if (i < n && threadIdx.x % GS_WARP_SIZE == 0) out[i / GS_WARP_SIZE] = v;
}
