#include "blas/blas_search.h"

#include <cstdlib>

#include "python/packages.h"
#include "vendor/dl_library.h"
#include "vendor/hip_api.h"

namespace gs {
namespace {

// Sonames, newest first: cuBLASLt 13 (CUDA 13), 12, 11; hipBLASLt .so.1 (ROCm 7), .so.0 (ROCm 6);
// rocBLAS .so.5 (ROCm 7), .so.4 (ROCm 6), .so.0 (ROCm 5, Debian's librocblas0).
std::vector<std::string> sonames_of(blas_id id) {
  switch (id) {
    case blas_id::cublaslt: return {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"};
    case blas_id::hipblaslt: return {"libhipblaslt.so.1", "libhipblaslt.so.0"};
    case blas_id::rocblas: return {"librocblas.so.5", "librocblas.so.4", "librocblas.so.0"};
  }
  return {};
}

std::string join_path(const std::string& dir, const std::string& file) {
  return dir.empty() || dir.back() == '/' ? dir + file : dir + "/" + file;
}

// The user's torch first: torch/lib for the ROCm wheels' bundled copies, the nvidia-cublas
// wheel for CUDA builds (torch's libtorch_cuda has RPATHs into site-packages/nvidia/*/lib).
std::vector<std::string> torch_dirs(blas_id id, const machine_facts* facts) {
  std::vector<std::string> dirs;
  if (!facts) return dirs;
  if (const python_package* torch = find_package(facts->python, "torch"))
    dirs.push_back(join_path(torch->location, "torch/lib"));
  if (id == blas_id::cublaslt)
    for (const std::string& site : facts->python.site_packages) dirs.push_back(join_path(site, "nvidia/cublas/lib"));
  return dirs;
}

std::vector<std::string> system_dirs(blas_id id) {
  if (id != blas_id::cublaslt) return vendor::rocm_lib_dirs();
  std::vector<std::string> dirs;
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(env); v && *v) dirs.push_back(join_path(v, "lib64"));
  dirs.push_back("/usr/local/cuda/lib64");
  return dirs;
}

}  // namespace

const char* blas_override_env(blas_id id) {
  switch (id) {
    case blas_id::cublaslt: return "GPUSTACK_CUBLASLT_LIBRARY";
    case blas_id::hipblaslt: return "GPUSTACK_HIPBLASLT_LIBRARY";
    case blas_id::rocblas: return "GPUSTACK_ROCBLAS_LIBRARY";
  }
  return "";
}

std::vector<std::string> blas_candidates(blas_id id, const machine_facts* facts) {
  if (const char* v = std::getenv(blas_override_env(id)); v && *v) return {v};
  const std::vector<std::string> names = sonames_of(id);
  std::vector<std::string> out;
  for (const std::string& d : torch_dirs(id, facts))
    for (const std::string& n : names) out.push_back(join_path(d, n));
  for (const std::string& n : names) out.push_back(n);  // the loader's path (ldconfig, LD_LIBRARY_PATH)
  for (const std::string& d : system_dirs(id))
    for (const std::string& n : names) out.push_back(join_path(d, n));
  return out;
}

}  // namespace gs
