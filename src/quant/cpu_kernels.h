// The cpu backend's implementations of kernels/quant4.cu and kernels/int8.cu: each unpacks the
// launch arguments exactly as the GPU kernel declares them, works out which elements the
// launched grid covers (a short grid leaves elements unwritten, as on a GPU), checks every
// pointer range, and computes them with the references in kernels/ref/. Registered in
// src/runtime/runtime_cpu_kernels.cpp's table.
#pragma once
#include <span>

#include "runtime/runtime_cpu.h"

namespace gs {

/// Every quant4.cu and int8.cu kernel, for the cpu backend's table.
std::span<const cpu_kernel> cpu_quant_kernels();

}  // namespace gs
