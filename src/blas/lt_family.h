// cuBLASLt and hipBLASLt share one API shape (hipBLASLt was written to mirror cuBLASLt): a handle,
// a matmul descriptor with transposes, one layout per matrix, a preference, a heuristic that
// returns algorithms, and cublasLtMatmul / hipblasLtMatmul. One template drives both; each
// library's file gives its symbol names, enum values and struct layouts (`Traits`), from its
// own documented headers. Include only from cublaslt.cpp and hipblaslt.cpp.
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <string>

#include "blas/blas_library.h"
#include "vendor/dl_library.h"

namespace gs::lt_family {

using lt_handle = void*;
using lt_desc = void*;
using lt_layout = void*;
using lt_pref = void*;

/// The heuristic's answer (cublasLtMatmulHeuristicResult_t / hipblasLtMatmulHeuristicResult_t:
/// the same fields, around each library's own algorithm struct).
template <class Algo>
struct heuristic_result {
  Algo algo;
  size_t workspace_size;
  int state;
  float waves_count;
  int reserved[4];
};

template <class Traits>
struct api {
  using algo = typename Traits::algo;
  vendor::dl_library lib;
  int (*create)(lt_handle*) = nullptr;
  int (*destroy)(lt_handle) = nullptr;
  const char* (*status_string)(int) = nullptr;
  int (*desc_create)(lt_desc*, int, int) = nullptr;
  int (*desc_destroy)(lt_desc) = nullptr;
  int (*desc_set)(lt_desc, int, const void*, size_t) = nullptr;
  int (*layout_create)(lt_layout*, int, uint64_t, uint64_t, int64_t) = nullptr;
  int (*layout_destroy)(lt_layout) = nullptr;
  int (*pref_create)(lt_pref*) = nullptr;
  int (*pref_destroy)(lt_pref) = nullptr;
  int (*pref_set)(lt_pref, int, const void*, size_t) = nullptr;
  int (*heuristic)(lt_handle, lt_desc, lt_layout, lt_layout, lt_layout, lt_layout, lt_pref, int,
                   heuristic_result<algo>*, int*) = nullptr;
  int (*matmul)(lt_handle, lt_desc, const void*, const void*, lt_layout, const void*, lt_layout, const void*,
                const void*, lt_layout, void*, lt_layout, const algo*, void*, size_t, void*) = nullptr;

  /// "cublasLt" + "Matmul": the name a user searches for.
  blas_status fail(const char* call, int code) const {
    blas_status s;
    const char* text = status_string ? status_string(code) : Traits::status_name(code);
    s.st = runtime_status::failure(std::string(Traits::prefix) + call, code,
                                   text ? text : fmt::format("{} {}", Traits::status_type, code));
    s.no_kernel = code == Traits::status_not_supported || code == Traits::status_arch_mismatch;
    return s;
  }

  runtime_status open(const std::vector<std::string>& candidates) {
    using vendor::dl_opt;
    using vendor::dl_req;
    if (runtime_status st = lib.open(candidates); !st.ok) return st;
    const std::string p = Traits::prefix;
    // dl_symbol keeps the name pointer: the strings live until resolve returns.
    const std::string n[] = {p + "Create", p + "Destroy", p + "MatmulDescCreate", p + "MatmulDescDestroy",
                             p + "MatmulDescSetAttribute", p + "MatrixLayoutCreate", p + "MatrixLayoutDestroy",
                             p + "MatmulPreferenceCreate", p + "MatmulPreferenceDestroy",
                             p + "MatmulPreferenceSetAttribute", p + "MatmulAlgoGetHeuristic", p + "Matmul"};
    if constexpr (Traits::status_string_symbol != nullptr)
      if (runtime_status st = lib.resolve({dl_opt(Traits::status_string_symbol, status_string)}); !st.ok) return st;
    return lib.resolve({dl_req(n[0].c_str(), create), dl_req(n[1].c_str(), destroy), dl_req(n[2].c_str(), desc_create),
                        dl_req(n[3].c_str(), desc_destroy), dl_req(n[4].c_str(), desc_set),
                        dl_req(n[5].c_str(), layout_create), dl_req(n[6].c_str(), layout_destroy),
                        dl_req(n[7].c_str(), pref_create), dl_req(n[8].c_str(), pref_destroy),
                        dl_req(n[9].c_str(), pref_set), dl_req(n[10].c_str(), heuristic), dl_req(n[11].c_str(), matmul)});
  }
};

template <class Traits>
class plan final : public blas_plan {
 public:
  plan(const api<Traits>& a, lt_handle h) : api_(a), handle_(h) {}
  ~plan() override {
    for (lt_layout l : layouts_)
      if (l) api_.layout_destroy(l);
    if (desc_) api_.desc_destroy(desc_);
    if (pref_) api_.pref_destroy(pref_);
  }

  blas_status build(const blas_gemm& g, void* workspace, size_t workspace_bytes) {
    cm_ = to_col_major(g);
    workspace_ = workspace, workspace_bytes_ = workspace_bytes;
    const int t = g.type == blas_type::fp16 ? Traits::r_16f : Traits::r_16bf;
    if (int rc = api_.desc_create(&desc_, Traits::compute_32f, Traits::r_32f); rc) return api_.fail("MatmulDescCreate", rc);
    const int32_t ta = cm_.trans_a ? Traits::op_t : Traits::op_n, tb = cm_.trans_b ? Traits::op_t : Traits::op_n;
    if (int rc = api_.desc_set(desc_, Traits::desc_transa, &ta, sizeof ta); rc) return api_.fail("MatmulDescSetAttribute", rc);
    if (int rc = api_.desc_set(desc_, Traits::desc_transb, &tb, sizeof tb); rc) return api_.fail("MatmulDescSetAttribute", rc);
    // A layout describes the stored matrix (rows x cols, column-major), before its op.
    const uint64_t a_rows = cm_.trans_a ? cm_.k : cm_.m, a_cols = cm_.trans_a ? cm_.m : cm_.k;
    const uint64_t b_rows = cm_.trans_b ? cm_.n : cm_.k, b_cols = cm_.trans_b ? cm_.k : cm_.n;
    if (int rc = api_.layout_create(&layouts_[0], t, a_rows, a_cols, cm_.lda); rc) return api_.fail("MatrixLayoutCreate", rc);
    if (int rc = api_.layout_create(&layouts_[1], t, b_rows, b_cols, cm_.ldb); rc) return api_.fail("MatrixLayoutCreate", rc);
    if (int rc = api_.layout_create(&layouts_[2], t, uint64_t(cm_.m), uint64_t(cm_.n), cm_.ldc); rc)
      return api_.fail("MatrixLayoutCreate", rc);
    if (int rc = api_.pref_create(&pref_); rc) return api_.fail("MatmulPreferenceCreate", rc);
    const uint64_t ws = workspace_bytes;
    if (int rc = api_.pref_set(pref_, Traits::pref_max_workspace, &ws, sizeof ws); rc)
      return api_.fail("MatmulPreferenceSetAttribute", rc);
    if (blas_status s = Traits::restrict_preference(api_, pref_); !s.ok()) return s;
    int found = 0;
    if (int rc = api_.heuristic(handle_, desc_, layouts_[0], layouts_[1], layouts_[2], layouts_[2], pref_, 1, &chosen_, &found); rc)
      return api_.fail("MatmulAlgoGetHeuristic", rc);
    if (found == 0 || chosen_.state != 0) {
      blas_status s = api_.fail("MatmulAlgoGetHeuristic", found == 0 ? Traits::status_not_supported : chosen_.state);
      s.st.message = "no algorithm for this GEMM on this GPU (" + s.st.message + ")";
      s.no_kernel = true;
      return s;
    }
    return blas_status::success();
  }

  blas_status run() override {
    const float alpha = 1.0f, beta = 0.0f;  // scale type fp32 (compute 32F)
    if (int rc = api_.matmul(handle_, desc_, &alpha, cm_.a, layouts_[0], cm_.b, layouts_[1], &beta, cm_.c, layouts_[2],
                             cm_.c, layouts_[2], &chosen_.algo, workspace_, workspace_bytes_, nullptr);
        rc)
      return api_.fail("Matmul", rc);
    return blas_status::success();
  }

  std::string algorithm() const override {
    return fmt::format("heuristic's first algorithm: workspace {} KiB, waves {:.2f}", chosen_.workspace_size / 1024,
                       chosen_.waves_count);
  }

 private:
  const api<Traits>& api_;
  lt_handle handle_;
  col_major_gemm cm_;
  lt_desc desc_ = nullptr;
  lt_layout layouts_[3] = {nullptr, nullptr, nullptr};
  lt_pref pref_ = nullptr;
  heuristic_result<typename Traits::algo> chosen_{};
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
};

template <class Traits>
class library final : public blas_library {
 public:
  ~library() override {
    if (handle_) api_.destroy(handle_);
  }
  runtime_status open(const std::vector<std::string>& candidates) {
    if (runtime_status st = api_.open(candidates); !st.ok) return st;
    return Traits::resolve_version(api_.lib, version_fn_);
  }
  blas_id id() const override { return Traits::id; }
  const std::string& path() const override { return api_.lib.path(); }
  blas_status create() override {
    if (int rc = api_.create(&handle_); rc) {
      handle_ = nullptr;
      return api_.fail("Create", rc);
    }
    return blas_status::success();
  }
  std::string version() const override { return Traits::version(version_fn_, handle_); }
  void set_workspace(void* ptr, size_t bytes) override { workspace_ = ptr, workspace_bytes_ = bytes; }
  blas_status plan(const blas_gemm& g, std::unique_ptr<blas_plan>& out) override {
    auto p = std::make_unique<lt_family::plan<Traits>>(api_, handle_);
    if (blas_status s = p->build(g, workspace_, workspace_bytes_); !s.ok()) return s;
    out = std::move(p);
    return blas_status::success();
  }

 private:
  api<Traits> api_;
  typename Traits::version_fn version_fn_ = nullptr;
  lt_handle handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
};

template <class Traits>
std::unique_ptr<blas_library> open_library(const std::vector<std::string>& candidates, runtime_status& why) {
  auto lib = std::make_unique<library<Traits>>();
  why = lib->open(candidates);
  if (!why.ok) return nullptr;
  return lib;
}

}  // namespace gs::lt_family
