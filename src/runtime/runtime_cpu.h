// The cpu backend (issue 3): always available. "Compiling" kernels/x.cu maps the file name to the
// CPU implementations registered for it (runtime_cpu_kernels.cpp, built on kernels/ref/), and a
// launch runs them with the same void** arguments and grid/block semantics a GPU launch has, so
// one probe body runs unchanged on cpu, cuda and hip. Buffers are host memory; copies and frees
// are checked against live allocations, the way a driver rejects a stray device pointer.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "runtime/runtime.h"

namespace gs {

/// What a CPU kernel implementation sees of its launch.
struct cpu_launch {
  launch_dims dims;
  int wave_size = 32;                         ///< GS_WARP_SIZE of the module, else the backend's
  std::map<std::string, std::string> defines; ///< the module's -D values ("GS_GEMM_BM" -> "128")
  /// True when [p, p + bytes) lies inside one live allocation: a kernel checks each pointer
  /// argument before touching it, and fails where a GPU would raise an illegal-address error.
  std::function<bool(const void* p, size_t bytes)> valid_range;
  /// A define as an integer, or `fallback` when absent or not a number.
  int define_int(const std::string& name, int fallback) const;
  /// Threads the grid launches along x: a 1-D kernel covers this many elements, no more.
  uint64_t threads_x() const { return uint64_t(dims.grid[0]) * dims.block[0]; }
};

/// Argument `i` of a launch, typed as the kernel declares it (`args` as cuLaunchKernel takes
/// them).
template <class T>
T launch_arg(void** args, int i) {
  return *static_cast<T*>(args[i]);
}

/// What a CPU kernel returns for a pointer argument whose `what` ("input", "output") range lies
/// outside every allocation: CUDA_ERROR_ILLEGAL_ADDRESS (700), the error a GPU gives for the
/// same bug.
runtime_status illegal_address(const char* kernel, const char* what);

/// Runs one kernel: unpacks `args` (pointers to each argument, as cuLaunchKernel takes them).
using cpu_kernel_fn = runtime_status (*)(const cpu_launch& launch, void** args);

/// One registered CPU implementation: the kernel `name` of source file `file`.
struct cpu_kernel {
  const char* file;  ///< "gemm.cu"
  const char* name;  ///< "gemm_f32_v2" (the extern "C" name in the .cu)
  cpu_kernel_fn run;
};

/// Every registered CPU kernel (runtime_cpu_kernels.cpp).
std::span<const cpu_kernel> cpu_kernels();

/// The cpu backend. `wave_size` (32 or 64) is what props() reports and what a module compiled
/// without GS_WARP_SIZE emulates; tests pass 64 to replay a CDNA device.
std::unique_ptr<runtime> open_cpu_runtime(int wave_size = 32);

}  // namespace gs
