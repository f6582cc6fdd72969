// hipBLASLt through dlopen: what torch on ROCm calls for bf16/fp16 GEMMs where it prefers
// hipBLASLt (TORCH_BLAS_PREFER_HIPBLASLT, default on MI300 and, from torch 2.7, on the archs its
// build lists). Values from ROCm/hipBLASLt library/include/hipblaslt.h and ROCm/hipBLAS-common
// hipblas-common.h (the hipDataType/hipblasComputeType_t ABI of ROCm 6.x and 7.x; ROCm 5.x's
// hipBLASLt used hipblasDatatype_t numbers and is not supported here).
#include <fmt/format.h>

#include "blas/lt_family.h"

namespace gs {
namespace {

struct hipblaslt_traits {
  struct algo {  // hipblasLtMatmulAlgo_t
    uint8_t data[16];
    size_t max_workspace_bytes;
  };
  using version_fn = int (*)(void*, int*);  // hipblasLtGetVersion(handle, &version)
  static constexpr blas_id id = blas_id::hipblaslt;
  static constexpr const char* prefix = "hipblasLt";
  static constexpr const char* status_type = "hipblasStatus_t";
  // hipBLASLt exports no status-to-string function (its own clients carry a copy of hipBLAS's
  // hipblasStatusToString, "until hipBLASLt provides an API"): the names of hipblas-common.h.
  static constexpr const char* status_string_symbol = nullptr;
  static const char* status_name(int code) {
    static const char* const names[] = {"HIPBLAS_STATUS_SUCCESS",         "HIPBLAS_STATUS_NOT_INITIALIZED",
                                        "HIPBLAS_STATUS_ALLOC_FAILED",    "HIPBLAS_STATUS_INVALID_VALUE",
                                        "HIPBLAS_STATUS_MAPPING_ERROR",   "HIPBLAS_STATUS_EXECUTION_FAILED",
                                        "HIPBLAS_STATUS_INTERNAL_ERROR",  "HIPBLAS_STATUS_NOT_SUPPORTED",
                                        "HIPBLAS_STATUS_ARCH_MISMATCH",   "HIPBLAS_STATUS_HANDLE_IS_NULLPTR",
                                        "HIPBLAS_STATUS_INVALID_ENUM",    "HIPBLAS_STATUS_UNKNOWN"};
    return code >= 0 && code < 12 ? names[code] : nullptr;
  }
  static constexpr int status_arch_mismatch = 8, status_not_supported = 7;  // HIPBLAS_STATUS_*
  static constexpr int op_n = 111, op_t = 112;                               // HIPBLAS_OP_N / _T
  static constexpr int compute_32f = 2;                                      // HIPBLAS_COMPUTE_32F
  static constexpr int r_32f = 0, r_16f = 2, r_16bf = 14;                    // hipDataType
  static constexpr int desc_transa = 0, desc_transb = 1;                     // HIPBLASLT_MATMUL_DESC_TRANSA/B
  static constexpr int pref_max_workspace = 1;  // HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES

  // hipBLASLt has no reduction-scheme preference; its split-K (GSU) reduces in an fp32 workspace.
  static blas_status restrict_preference(const lt_family::api<hipblaslt_traits>&, lt_family::lt_pref) {
    return blas_status::success();
  }
  static runtime_status resolve_version(vendor::dl_library& lib, version_fn& fn) {
    return lib.resolve({vendor::dl_req("hipblasLtGetVersion", fn)});
  }
  // hipblaslt-version.h: HIPBLASLT_VERSION = major * 100000 + minor * 100 + patch (1.0.0 -> 100000).
  static std::string version(version_fn fn, void* handle) {
    int v = 0;
    if (!handle || fn(handle, &v) != 0) return "unknown (hipblasLtGetVersion needs a handle)";
    return fmt::format("{}.{}.{}", v / 100000, v / 100 % 1000, v % 100);
  }
};

// hipblaslt.h's layouts: the algorithm 24 bytes, the heuristic's answer 56.
static_assert(sizeof(hipblaslt_traits::algo) == 24);
static_assert(sizeof(lt_family::heuristic_result<hipblaslt_traits::algo>) == 56);

}  // namespace

std::unique_ptr<blas_library> open_hipblaslt(const std::vector<std::string>& candidates, runtime_status& why) {
  return lt_family::open_library<hipblaslt_traits>(candidates, why);
}

}  // namespace gs
