// One vendor BLAS at the GEMMs of a QLoRA step, inside its own child (probes/blas_probe.cpp forks
// one per library): open the runtime, load the library, create its handle, then for each GEMM
// upload seeded inputs, plan, run once, check against kernels/ref's reference, and time. The
// answer is a probe_result (the library's own verdict, its figures in `data`) that the parent
// merges with the other library's.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "blas/blas_library.h"
#include "models/qlora_gemms.h"
#include "probes/probe.h"
#include "runtime/runtime.h"

namespace gs {

/// Where the child writes what it is doing, so that a crash inside the library can be told
/// "cuBLASLt crashed in cublasLtMatmul at q_proj.lora_b.wgrad.r16" (shared memory the parent reads).
struct blas_breadcrumb {
  char text[240] = {};
  void set(const std::string& s);
  std::string get() const;
};

struct blas_run_request {
  blas_id library = blas_id::cublaslt;
  blas_type type = blas_type::bf16;
  bool library_named = false;       ///< chosen by the user (or a test): runs on any backend
  std::vector<qlora_gemm> gemms;    ///< the step's GEMMs (qlora_step_gemms)
  int square = 4096;                ///< side of the reference GEMM that measures the library's rate
  int iters = 10;                   ///< timed runs per GEMM
  /// Opens the runtime in the child; null: open_runtime(ctx.device). Tests hand in the cpu one.
  std::function<std::unique_ptr<runtime>()> open_rt;
  blas_breadcrumb* crumb = nullptr; ///< may be null
};

/// The library's verdict and figures: pass / warn (slow) / fail (wrong result, no kernel: then
/// data["no_kernel"] lists the GEMMs) / skip (not for this backend, not found, no GPU).
probe_result run_blas_library(const probe_context& ctx, const blas_run_request& req);

}  // namespace gs
