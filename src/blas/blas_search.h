// Where the `blas.*` probes look for a vendor BLAS, in the order training would load it: the copy
// inside the user's torch (torch/lib: ROCm wheels bundle hipBLASLt and rocBLAS there; CUDA wheels
// take cuBLASLt from the nvidia-cublas wheel, site-packages/nvidia/cublas/lib), then the system
// (the loader's path, then /opt/rocm/lib or the CUDA toolkit's lib64). An environment variable
// (GPUSTACK_CUBLASLT_LIBRARY, GPUSTACK_HIPBLASLT_LIBRARY, GPUSTACK_ROCBLAS_LIBRARY) names one file
// instead, as for every dlopen'ed library (vendor/dl_library.h). torch is the one `check` found
// (facts.python: the --python interpreter's site-packages).
#pragma once
#include <string>
#include <vector>

#include "blas/blas_library.h"
#include "core/facts.h"

namespace gs {

/// The override variable of a library ("GPUSTACK_CUBLASLT_LIBRARY").
const char* blas_override_env(blas_id id);

/// Candidate files and sonames for dl_library::open, torch's first. `facts` may be null (no
/// Python found): then only the system is searched.
std::vector<std::string> blas_candidates(blas_id id, const machine_facts* facts);

}  // namespace gs
