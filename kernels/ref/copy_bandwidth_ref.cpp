// CPU reference for kernels/copy_bandwidth.cu: written to be read, not to be fast. A copy moves
// bits, so kernel and reference must agree byte for byte, NaN payloads included.
#include "kernels/ref/copy_bandwidth_ref.h"

namespace gs {

void copy_ref(const float* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = src[i];
}

}  // namespace gs
