// CPU references for kernels/reduce_sum.cu: written to be read, not to be fast. Two of them:
// the plain sum (what the answer should be) and a replay of reduce_sum_v1's exact order of
// fp32 additions for a given grid, block and wave size (what the cpu backend runs).
#pragma once
#include <cstddef>

namespace gs {

/// Sum of x[0..n) accumulated in double: the answer the kernel approximates.
double reduce_sum_ref(const float* x, size_t n);

/// The sum of a warp of `wave` lane values after reduce_sum's xor butterfly (v += shfl_xor).
float warp_butterfly_ref(const float* lanes, unsigned wave);

/// Replays reduce_sum_v1 launched with `grid` blocks of `block` threads on a device whose wave
/// has `wave` lanes: writes partial[0..grid). False, writing nothing, when the launch breaks the
/// kernel's precondition (block a multiple of wave, at most 1024 threads; wave 32 or 64).
bool reduce_sum_blocks_ref(const float* x, unsigned n, float* partial, unsigned grid,
                           unsigned block, unsigned wave);

}  // namespace gs
