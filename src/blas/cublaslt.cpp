// cuBLASLt through dlopen: what torch's F.linear and its backward call on NVIDIA GPUs (torch's
// at::cuda::blas routes bf16/fp16 GEMMs to cublasLtMatmul). Values from CUDA 13's cublasLt.h,
// cublas_api.h and library_types.h (docs.nvidia.com/cuda/cublas, "cuBLASLt API Reference").
#include <fmt/format.h>

#include "blas/lt_family.h"

namespace gs {
namespace {

struct cublaslt_traits {
  struct algo { uint64_t data[8]; };  // cublasLtMatmulAlgo_t
  using version_fn = size_t (*)();
  static constexpr blas_id id = blas_id::cublaslt;
  static constexpr const char* prefix = "cublasLt";
  static constexpr const char* status_type = "cublasStatus_t";
  static constexpr const char* status_string_symbol = "cublasLtGetStatusString";
  static const char* status_name(int) { return nullptr; }  // cublasLtGetStatusString answers
  static constexpr int status_arch_mismatch = 8, status_not_supported = 15;  // CUBLAS_STATUS_*
  static constexpr int op_n = 0, op_t = 1;                                    // CUBLAS_OP_N / _T
  static constexpr int compute_32f = 68;                                      // CUBLAS_COMPUTE_32F
  static constexpr int r_32f = 0, r_16f = 2, r_16bf = 14;                     // cudaDataType
  static constexpr int desc_transa = 3, desc_transb = 4;                      // CUBLASLT_MATMUL_DESC_TRANSA/B
  static constexpr int pref_max_workspace = 1;  // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES

  // Split-K reductions only in fp32 (CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = 3, allowing
  // CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE = 2), never in place or in the output type: those add
  // partial sums rounded to bf16/fp16 once per split, an error the per-element bound cannot state
  // without knowing the split count. torch allows every scheme: this is the one way the kernels
  // run here may differ from torch's.
  static blas_status restrict_preference(const lt_family::api<cublaslt_traits>& a, lt_family::lt_pref pref) {
    const uint32_t mask = 2;
    if (int rc = a.pref_set(pref, 3, &mask, sizeof mask); rc) return a.fail("MatmulPreferenceSetAttribute", rc);
    return blas_status::success();
  }
  static runtime_status resolve_version(vendor::dl_library& lib, version_fn& fn) {
    return lib.resolve({vendor::dl_req("cublasLtGetVersion", fn)});
  }
  // CUBLASLT_VERSION = major * 10000 + minor * 100 + patch (13.1.0 -> 130100).
  static std::string version(version_fn fn, void*) {
    const size_t v = fn();
    return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
  }
};

// cublasLt.h's layouts: the algorithm 64 bytes, the heuristic's answer 96.
static_assert(sizeof(cublaslt_traits::algo) == 64);
static_assert(sizeof(lt_family::heuristic_result<cublaslt_traits::algo>) == 96);

}  // namespace

std::unique_ptr<blas_library> open_cublaslt(const std::vector<std::string>& candidates, runtime_status& why) {
  return lt_family::open_library<cublaslt_traits>(candidates, why);
}

}  // namespace gs
