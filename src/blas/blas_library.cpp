#include "blas/blas_library.h"

namespace gs {

const char* blas_name(blas_id id) {
  switch (id) {
    case blas_id::cublaslt: return "cuBLASLt";
    case blas_id::hipblaslt: return "hipBLASLt";
    case blas_id::rocblas: return "rocBLAS";
  }
  return "?";
}

const char* blas_key(blas_id id) {
  switch (id) {
    case blas_id::cublaslt: return "cublaslt";
    case blas_id::hipblaslt: return "hipblaslt";
    case blas_id::rocblas: return "rocblas";
  }
  return "?";
}

col_major_gemm to_col_major(const blas_gemm& g) {
  col_major_gemm c;
  c.m = g.n, c.n = g.m, c.k = g.k;
  // BLAS "A" = our B: stored k x n row-major (= n x k column-major, ld n: op N), or n x k
  // row-major when trans_b (= k x n column-major, ld k: op T).
  c.a = g.b, c.trans_a = g.trans_b, c.lda = g.trans_b ? g.k : g.n;
  // BLAS "B" = our A: stored m x k row-major (= k x m column-major, ld k: op N), or k x m when
  // trans_a (= m x k column-major, ld m: op T).
  c.b = g.a, c.trans_b = g.trans_a, c.ldb = g.trans_a ? g.m : g.k;
  c.c = g.c, c.ldc = g.n;
  return c;
}

std::unique_ptr<blas_library> open_blas(blas_id id, const std::vector<std::string>& candidates, runtime_status& why) {
  switch (id) {
    case blas_id::cublaslt: return open_cublaslt(candidates, why);
    case blas_id::hipblaslt: return open_hipblaslt(candidates, why);
    case blas_id::rocblas: return open_rocblas(candidates, why);
  }
  return nullptr;
}

}  // namespace gs
