// rocBLAS through dlopen: torch on ROCm's other GEMM path (hipBLAS -> rocBLAS gemm_ex), used
// where hipBLASLt is not preferred (TORCH_BLAS_PREFER_HIPBLASLT=0, or archs torch does not list
// for it). Declarations from rocBLAS's documented C API (rocblas-types.h, rocblas-functions.h;
// rocblas.readthedocs.io "rocblas_gemm_ex"): rocblas_int is 32-bit in the LP64 builds torch ships.
// A rocBLAS without a Tensile library for the GPU's arch prints "Cannot read
// .../TensileLibrary.dat" and aborts the process at handle creation or the first GEMM (GS-BLAS-001):
// the probe runs each library in its own child for that reason.
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "blas/blas_library.h"
#include "vendor/dl_library.h"

namespace gs {
namespace {

using rb_handle = void*;
// rocblas_status values (rocblas-types.h).
constexpr int rb_not_implemented = 2, rb_excluded_from_build = 14, rb_arch_mismatch = 15;
constexpr int rb_op_none = 111, rb_op_transpose = 112;     // rocblas_operation
constexpr int rb_f16 = 150, rb_f32 = 151, rb_bf16 = 168;   // rocblas_datatype
constexpr int rb_algo_standard = 0;                        // rocblas_gemm_algo

struct rb_api {
  vendor::dl_library lib;
  int (*create)(rb_handle*) = nullptr;
  int (*destroy)(rb_handle) = nullptr;
  int (*version_size)(size_t*) = nullptr;
  int (*version_string)(char*, size_t) = nullptr;
  const char* (*status_string)(int) = nullptr;
  int (*gemm_ex)(rb_handle, int, int, int32_t, int32_t, int32_t, const void*, const void*, int, int32_t, const void*,
                 int, int32_t, const void*, const void*, int, int32_t, void*, int, int32_t, int, int, int32_t,
                 uint32_t) = nullptr;

  blas_status fail(const char* call, int code) const {
    blas_status s;
    const char* text = status_string ? status_string(code) : nullptr;
    s.st = runtime_status::failure(call, code, text ? text : fmt::format("rocblas_status {}", code));
    s.no_kernel = code == rb_not_implemented || code == rb_excluded_from_build || code == rb_arch_mismatch;
    return s;
  }
};

class rb_plan final : public blas_plan {
 public:
  rb_plan(const rb_api& a, rb_handle h, const blas_gemm& g) : api_(a), handle_(h), cm_(to_col_major(g)) {
    type_ = g.type == blas_type::fp16 ? rb_f16 : rb_bf16;
  }
  blas_status run() override {
    const float alpha = 1.0f, beta = 0.0f;  // host pointers, compute type f32
    const int ta = cm_.trans_a ? rb_op_transpose : rb_op_none, tb = cm_.trans_b ? rb_op_transpose : rb_op_none;
    if (int rc = api_.gemm_ex(handle_, ta, tb, int32_t(cm_.m), int32_t(cm_.n), int32_t(cm_.k), &alpha, cm_.a, type_,
                              int32_t(cm_.lda), cm_.b, type_, int32_t(cm_.ldb), &beta, cm_.c, type_, int32_t(cm_.ldc),
                              cm_.c, type_, int32_t(cm_.ldc), rb_f32, rb_algo_standard, 0, 0);
        rc)
      return api_.fail("rocblas_gemm_ex", rc);
    return blas_status::success();
  }
  std::string algorithm() const override { return "rocblas_gemm_ex, rocblas_gemm_algo_standard"; }

 private:
  const rb_api& api_;
  rb_handle handle_;
  col_major_gemm cm_;
  int type_ = rb_bf16;
};

class rocblas_library final : public blas_library {
 public:
  ~rocblas_library() override {
    if (handle_) api_.destroy(handle_);
  }
  runtime_status open(const std::vector<std::string>& candidates) {
    using vendor::dl_opt;
    using vendor::dl_req;
    if (runtime_status st = api_.lib.open(candidates); !st.ok) return st;
    return api_.lib.resolve({dl_req("rocblas_create_handle", api_.create), dl_req("rocblas_destroy_handle", api_.destroy),
                             dl_req("rocblas_get_version_string_size", api_.version_size),
                             dl_req("rocblas_get_version_string", api_.version_string),
                             dl_opt("rocblas_status_to_string", api_.status_string),
                             dl_req("rocblas_gemm_ex", api_.gemm_ex)});
  }
  blas_id id() const override { return blas_id::rocblas; }
  const std::string& path() const override { return api_.lib.path(); }
  blas_status create() override {
    if (int rc = api_.create(&handle_); rc) {
      handle_ = nullptr;
      return api_.fail("rocblas_create_handle", rc);
    }
    return blas_status::success();
  }
  // Needs no handle: "4.4.0.e3ad1c1b" (major.minor.patch.tweak-commit).
  std::string version() const override {
    size_t n = 0;
    if (api_.version_size(&n) != 0 || n == 0 || n > 4096) return "unknown";
    std::string s(n, '\0');
    if (api_.version_string(s.data(), n) != 0) return "unknown";
    s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
    return s;
  }
  blas_status plan(const blas_gemm& g, std::unique_ptr<blas_plan>& out) override {
    out = std::make_unique<rb_plan>(api_, handle_, g);
    return blas_status::success();
  }

 private:
  rb_api api_;
  rb_handle handle_ = nullptr;
};

}  // namespace

std::unique_ptr<blas_library> open_rocblas(const std::vector<std::string>& candidates, runtime_status& why) {
  auto lib = std::make_unique<rocblas_library>();
  why = lib->open(candidates);
  if (!why.ok) return nullptr;
  return lib;
}

}  // namespace gs
