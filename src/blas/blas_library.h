// The vendor BLAS that training loads (cuBLASLt, hipBLASLt, rocBLAS), dlopen'ed and driven through
// one small interface: a GEMM as torch calls it (row-major, bf16/fp16 in and out, fp32
// accumulation), planned once (descriptors, algorithm choice) and run many times on the default
// stream of the device the gpustack runtime opened. The `blas.*` probes (probes/blas_probe.cpp)
// use it; docs/blas.md. Only the public C ABI of each library, declared from its documented
// headers in the library's own file (cublaslt.cpp, hipblaslt.cpp, rocblas.cpp).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/runtime_status.h"

namespace gs {

enum class blas_id { cublaslt, hipblaslt, rocblas };
/// Element type of A, B and C (torch's autocast dtypes).
enum class blas_type { bf16, fp16 };
/// "cuBLASLt", "hipBLASLt", "rocBLAS".
const char* blas_name(blas_id id);
/// "cublaslt", "hipblaslt", "rocblas" (option values, JSON keys).
const char* blas_key(blas_id id);

/// One GEMM as torch sees it (qlora_gemm's convention): C[m x n] = op(A)[m x k] op(B)[k x n],
/// row-major, A stored k x m when trans_a, B stored n x k when trans_b; A, B and C all of `type`
/// (bf16 or fp16), fp32 accumulation, alpha 1, beta 0: what F.linear and its backward run.
struct blas_gemm {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  blas_type type = blas_type::bf16;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
};

/// The same product as a column-major BLAS is asked for it (torch's at::cuda::blas does the same
/// swap): a row-major C is a column-major C^T = op(B)^T op(A)^T, so the BLAS's "A" is our B, its
/// "B" our A, m and n swap, and each operand keeps its own transpose flag with the leading
/// dimension of its stored row length.
struct col_major_gemm {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int64_t lda = 0;
  const void* b = nullptr;
  int64_t ldb = 0;
  void* c = nullptr;
  int64_t ldc = 0;
};
col_major_gemm to_col_major(const blas_gemm& g);

/// A library call's outcome: ok, "no kernel for this problem on this GPU" (the library is
/// installed but cannot serve the arch or the shape: GS-BLAS-001/002, a finding about the
/// install), or any other failure with the vendor's words.
struct blas_status {
  runtime_status st;
  bool no_kernel = false;
  bool ok() const { return st.ok; }
  static blas_status success() { return {}; }
};

/// A planned GEMM: descriptors and algorithm chosen, ready to run again and again (timed).
class blas_plan {
 public:
  virtual ~blas_plan() = default;
  /// Enqueue once on the default stream; returns without waiting for the GPU.
  virtual blas_status run() = 0;
  /// What the library chose, where it says ("algo 23, workspace 4 MiB"); "" when it does not.
  virtual std::string algorithm() const { return ""; }
};

class blas_library {
 public:
  virtual ~blas_library() = default;
  virtual blas_id id() const = 0;
  /// The file that was loaded.
  virtual const std::string& path() const = 0;
  /// Create the library handle on the current device (open the gpustack runtime first: the
  /// library attaches to its context). Without a usable GPU this is where the library says no.
  virtual blas_status create() = 0;
  /// The library's own version text (after create(): hipBLASLt reads it from the handle).
  virtual std::string version() const = 0;
  /// Device memory the library may use as workspace (cuBLASLt, hipBLASLt); held by the caller.
  virtual void set_workspace(void* ptr, size_t bytes) { (void)ptr, (void)bytes; }
  virtual blas_status plan(const blas_gemm& g, std::unique_ptr<blas_plan>& out) = 0;
};

/// Open one library from `candidates` (blas_search.h makes them); nullptr with `why` naming every
/// candidate and its dlerror when none loads or one lacks a required symbol.
std::unique_ptr<blas_library> open_blas(blas_id id, const std::vector<std::string>& candidates, runtime_status& why);

// One per library file.
std::unique_ptr<blas_library> open_cublaslt(const std::vector<std::string>& candidates, runtime_status& why);
std::unique_ptr<blas_library> open_hipblaslt(const std::vector<std::string>& candidates, runtime_status& why);
std::unique_ptr<blas_library> open_rocblas(const std::vector<std::string>& candidates, runtime_status& why);

}  // namespace gs
