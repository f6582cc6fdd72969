// CPU reference for kernels/copy_bandwidth.cu (copy_v1 and copy_v2 both mean dst = src).
#pragma once
#include <cstddef>

namespace gs {

/// dst[i] = src[i] for i < n.
void copy_ref(const float* src, float* dst, size_t n);

}  // namespace gs
