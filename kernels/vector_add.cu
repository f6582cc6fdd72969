// vector_add.cu: c[i] = a[i] + b[i], the smallest kernel that proves compile, load, launch and
// copy work end to end (probe tensor.vector_add). CPU reference: kernels/ref/vector_add_ref.cpp.
// Launch: 1-D, any block size; grid >= ceil(n / block) covers every element.
#include "gs_device.h"

// Version 1, naive: one element per thread. 12 bytes moved per 1 add, so it is memory-bound;
// the probe checks values, not speed.
GS_KERNEL void vector_add_v1(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ c, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
