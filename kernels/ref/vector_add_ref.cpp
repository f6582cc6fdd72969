// CPU reference for kernels/vector_add.cu: written to be read, not to be fast. One fp32 add per
// element, so it matches the kernel bit for bit (IEEE addition is correctly rounded everywhere).
#include "kernels/ref/vector_add_ref.h"

namespace gs {

void vector_add_ref(const float* a, const float* b, float* c, size_t n) {
  for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

}  // namespace gs
