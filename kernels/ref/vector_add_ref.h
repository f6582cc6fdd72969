// CPU reference for kernels/vector_add.cu: written to be read, not to be fast.
#pragma once
#include <cstddef>

namespace gs {

/// c[i] = a[i] + b[i] for i < n, in fp32 like the kernel.
void vector_add_ref(const float* a, const float* b, float* c, size_t n);

}  // namespace gs
