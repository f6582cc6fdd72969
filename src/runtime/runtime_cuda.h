// The cuda backend: libcuda.so.1 and NVRTC through dlopen, the device's primary context (never
// cuCtxCreate, which CUDA 13's header maps to a _v4 with another signature), kernels compiled
// for the device's own sm_XX and cached on disk.
#pragma once
#include <memory>
#include <string>

#include "runtime/runtime.h"

namespace gs {

struct cuda_options {
  std::string cache_dir = "env";  ///< "env": jit_cache::from_environment(); "": no cache; else a dir
};

/// Open CUDA device `ordinal`. Null with `why` set when libcuda is missing, cuInit fails
/// (CUDA_ERROR_NO_DEVICE, a driver/library mismatch) or the ordinal does not exist. A missing
/// NVRTC does not fail the open: compile() reports it, and props().compiler says "".
std::unique_ptr<runtime> open_cuda_runtime(int ordinal, runtime_status& why, const cuda_options& opts = {});

}  // namespace gs
