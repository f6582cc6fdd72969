// CPU references for kernels/reduce_sum.cu: written to be read, not to be fast.
// reduce_sum_blocks_ref does the same fp32 additions in the same order as the kernel, so on the
// cpu backend the probe sees what a GPU with that wave size would produce, bit for bit.
#include "kernels/ref/reduce_sum_ref.h"

#include <vector>

namespace gs {

double reduce_sum_ref(const float* x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

float warp_butterfly_ref(const float* lanes, unsigned wave) {
  std::vector<float> v(lanes, lanes + wave), next(wave);
  // Step by step as the hardware does it: every lane adds its partner's value at the same time.
  for (unsigned offset = wave / 2; offset > 0; offset >>= 1) {
    for (unsigned l = 0; l < wave; ++l) next[l] = v[l] + v[l ^ offset];
    v.swap(next);
  }
  return v[0];  // every lane ends with the same value (a + b == b + a in IEEE arithmetic)
}

bool reduce_sum_blocks_ref(const float* x, unsigned n, float* partial, unsigned grid,
                           unsigned block, unsigned wave) {
  if ((wave != 32 && wave != 64) || block == 0 || block > 1024 || block % wave != 0) return false;
  const unsigned warps = block / wave;
  for (unsigned b = 0; b < grid; ++b) {
    // 1. Each thread's grid-stride partial sum (unsigned arithmetic, as in the kernel).
    std::vector<float> thread_sums(block);
    for (unsigned t = 0; t < block; ++t) {
      float s = 0.0f;
      for (unsigned i = b * block + t; i < n; i += grid * block) s += x[i];
      thread_sums[t] = s;
    }
    // 2. Butterfly inside each warp; lane 0 of warp w leaves its sum in warp_sums[w].
    // 3. Warp 0 butterflies the per-warp sums, zero-filled to a full wave.
    std::vector<float> first_warp(wave, 0.0f);
    for (unsigned w = 0; w < warps; ++w) first_warp[w] = warp_butterfly_ref(&thread_sums[w * wave], wave);
    partial[b] = warp_butterfly_ref(first_warp.data(), wave);
  }
  return true;
}

}  // namespace gs
