// blas.bf16 / blas.fp16 against tests/fixtures/blas_double (cuBLASLt, hipBLASLt and rocBLAS with
// their real ABI, computing on the cpu runtime's host memory), and against the real vendor
// libraries this machine has (the CUDA toolkit's cuBLASLt, Debian's rocBLAS where installed),
// which load without a GPU and must say so. Each probe run forks one child per library and runs
// GEMMs of a few million multiply-adds on the double: about 0.1-0.5 s a test, ~3 s in all.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "blas/blas_library.h"
#include "blas/blas_search.h"
#include "models/model_registry.h"
#include "probes/blas_probe.h"
#include "runtime/runtime.h"
#include "support/probe_harness.h"

namespace gs {
namespace {

using test::scoped_env;

// A probe context naming one library, a small reference GEMM and one timed run.
probe_context blas_test_context(const std::string& library, const std::string& probe_id = "blas.bf16") {
  probe_context ctx;
  static test::recording_sink sink;
  ctx.progress = &sink;
  ctx.device = "cpu";
  ctx.probe_id = probe_id;
  ctx.options = {{"library", library}, {"size", "48"}, {"iters", "1"}, {"tokens", "4"}, {"timeout_s", "60"}};
  return ctx;
}

blas_probe_setup blas_test_setup(bool small_gemms) {
  blas_probe_setup s;
  s.open_rt = [] { return open_cpu_runtime(32); };
  if (small_gemms) {
    // qwen3.5-0.8b shrunk to 4 layers at 1/8 width (hidden 128, intermediate 448), 16 tokens,
    // ranks 8 and 64: every role and transpose of the real list at a few M multiply-adds.
    const model_spec* m = find_model(builtin_model_registry(), "qwen3.5-0.8b");
    std::string err;
    std::optional<model_spec> small = shrink(*m, 4, 0.125, &err);
    EXPECT_TRUE(small) << err;
    s.gemms = qlora_step_gemms(*small, 16, {8, 64});
  }
  return s;
}

// All three override variables point at the double; the mode is set per test.
struct blas_double_env {
  explicit blas_double_env(const std::string& mode)
      : cuda("GPUSTACK_CUBLASLT_LIBRARY", GPUSTACK_BLAS_DOUBLE), hip("GPUSTACK_HIPBLASLT_LIBRARY", GPUSTACK_BLAS_DOUBLE),
        roc("GPUSTACK_ROCBLAS_LIBRARY", GPUSTACK_BLAS_DOUBLE), knob("GS_BLAS_DOUBLE_MODE", mode) {}
  scoped_env cuda, hip, roc, knob;
};

const nlohmann::json& library_entry(const probe_result& r, const char* key) { return r.data["libraries"][key]; }

TEST(BlasProbe, CublasLtDoubleRunsEveryGemmOfTheModelsStep) {
  blas_double_env env("correct");
  const probe_result r = run_blas_with(blas_test_context("cublaslt"), blas_type::bf16, blas_test_setup(false));
  ASSERT_EQ(r.outcome, status::pass) << r.detail;
  const nlohmann::json& lib = library_entry(r, "cublaslt");
  EXPECT_EQ(lib["data"]["version"], "13.1.0");
  EXPECT_EQ(lib["data"]["path"].get<std::string>().find("blas_double") != std::string::npos, true);
  const model_spec* m = find_model(builtin_model_registry(), "qwen3.5-0.8b");
  const size_t want = qlora_step_gemms(*m, 4, {8, 16, 64}).size();
  EXPECT_EQ(r.data["gemm_count"], want);
  EXPECT_EQ(lib["data"]["gemms"].size(), want + 1);  // + the reference square
  for (const char* rank : {"8", "16", "64"}) EXPECT_GT(lib["data"]["step_gemm_ms"][rank].get<double>(), 0.0) << rank;
  EXPECT_TRUE(r.finding_ids.empty());
}

TEST(BlasProbe, EachLibraryPassesBothTypesOnTheDouble) {
  blas_double_env env("correct");
  const std::map<std::string, std::string> versions = {{"cublaslt", "13.1.0"}, {"hipblaslt", "1.2.0"}, {"rocblas", "4.4.0.double"}};
  for (const auto& [lib, version] : versions)
    for (blas_type t : {blas_type::bf16, blas_type::fp16}) {
      const probe_result r = run_blas_with(blas_test_context(lib), t, blas_test_setup(true));
      EXPECT_EQ(r.outcome, status::pass) << lib << ": " << r.detail;
      EXPECT_EQ(library_entry(r, lib.c_str())["data"]["version"], version);
    }
}

TEST(BlasProbe, AWrongElementFailsNamingIt) {
  blas_double_env env("wrong");
  for (const char* lib : {"cublaslt", "rocblas"}) {
    const probe_result r = run_blas_with(blas_test_context(lib), blas_type::bf16, blas_test_setup(true));
    EXPECT_EQ(r.outcome, status::fail) << r.detail;
    EXPECT_NE(r.detail.find("wrong results at reference.square"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("C[0][0]"), std::string::npos) << r.detail;
  }
}

TEST(BlasProbe, NoKernelForTheArchFailsWithTheFinding) {
  blas_double_env env("no_kernel");
  const probe_result lt = run_blas_with(blas_test_context("cublaslt"), blas_type::bf16, blas_test_setup(true));
  EXPECT_EQ(lt.outcome, status::fail);
  EXPECT_NE(lt.detail.find("has no kernel"), std::string::npos) << lt.detail;
  EXPECT_NE(lt.detail.find("CUBLAS_STATUS_NOT_SUPPORTED"), std::string::npos) << lt.detail;
  EXPECT_TRUE(lt.finding_ids.empty());  // no rule covers cuBLASLt without kernels

  const probe_result h = run_blas_with(blas_test_context("hipblaslt"), blas_type::bf16, blas_test_setup(true));
  EXPECT_EQ(h.outcome, status::fail);
  EXPECT_NE(h.detail.find("has no kernel"), std::string::npos) << h.detail;
  EXPECT_EQ(h.finding_ids, std::vector<std::string>{"GS-BLAS-002"});
  EXPECT_NE(h.detail.find("HIPBLAS_STATUS_NOT_SUPPORTED"), std::string::npos) << h.detail;

  // rocBLAS aborts the process when its Tensile library lacks the arch: the child dies, the probe reports it.
  const probe_result rb = run_blas_with(blas_test_context("rocblas"), blas_type::bf16, blas_test_setup(true));
  EXPECT_EQ(rb.outcome, status::crash);
  EXPECT_NE(rb.detail.find("Aborted"), std::string::npos) << rb.detail;
  EXPECT_NE(rb.detail.find("GEMM reference.square"), std::string::npos) << rb.detail;
  EXPECT_EQ(rb.finding_ids, std::vector<std::string>{"GS-BLAS-001"});
}

TEST(BlasProbe, AFaultInsideTheLibraryIsACrashNamingTheGemm) {
  blas_double_env env("fault");
  const probe_result r = run_blas_with(blas_test_context("cublaslt"), blas_type::fp16, blas_test_setup(true));
  EXPECT_EQ(r.outcome, status::crash);
  EXPECT_NE(r.detail.find("cuBLASLt crashed: Segmentation fault while GEMM reference.square 48x48x48 B^T"),
            std::string::npos)
      << r.detail;
}

TEST(BlasProbe, AMissingLibrarySkipsNamingWhereItLooked) {
  scoped_env missing("GPUSTACK_CUBLASLT_LIBRARY", "/nonexistent/libcublasLt.so.13");
  const probe_result r = run_blas_with(blas_test_context("cublaslt"), blas_type::bf16, blas_test_setup(true));
  EXPECT_EQ(r.outcome, status::skip);
  EXPECT_NE(r.detail.find("cuBLASLt not found (GPUSTACK_CUBLASLT_LIBRARY names one file)"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("/nonexistent/libcublasLt.so.13"), std::string::npos) << r.detail;
}

TEST(BlasProbe, NoLibraryRunsOnTheCpuBackendUnlessNamed) {
  blas_double_env env("correct");
  const probe_result r = run_blas_with(blas_test_context("all"), blas_type::bf16, blas_test_setup(true));
  EXPECT_EQ(r.outcome, status::skip);
  EXPECT_NE(r.detail.find("cuBLASLt serves cuda devices; this one is cpu"), std::string::npos) << r.detail;
  EXPECT_EQ(r.data["libraries"].size(), 3u);
}

TEST(BlasProbe, UnknownModelOrLibraryIsAnError) {
  probe_context ctx = blas_test_context("cublaslt");
  ctx.options["model"] = "no-such-model";
  EXPECT_EQ(run_blas_with(ctx, blas_type::bf16, blas_test_setup(false)).outcome, status::error);
  EXPECT_EQ(run_blas_with(blas_test_context("mkl"), blas_type::bf16, blas_test_setup(true)).outcome, status::error);
}

TEST(BlasSearch, TorchFirstThenTheSystem) {
  machine_facts facts;
  facts.python.site_packages = {"/venv/lib/python3.12/site-packages"};
  python_package torch;
  torch.name = "torch";
  torch.location = "/venv/lib/python3.12/site-packages";
  facts.python.packages["torch"] = torch;
  const std::vector<std::string> c = blas_candidates(blas_id::hipblaslt, &facts);
  ASSERT_GE(c.size(), 4u);
  EXPECT_EQ(c[0], "/venv/lib/python3.12/site-packages/torch/lib/libhipblaslt.so.1");
  EXPECT_EQ(c[2], "libhipblaslt.so.1");  // then the loader's path
  EXPECT_EQ(c.back(), "/opt/rocm/lib/libhipblaslt.so.0");
  const std::vector<std::string> lt = blas_candidates(blas_id::cublaslt, &facts);
  EXPECT_NE(std::find(lt.begin(), lt.end(), "/venv/lib/python3.12/site-packages/nvidia/cublas/lib/libcublasLt.so.13"), lt.end());
}

// The real libraries on this machine (CUDA toolkit's cuBLASLt; Debian's librocblas0 where
// installed) load through the probe's loader and report their version; without a GPU the probe
// skips with the library's own reason, never passes, and its child does not crash.
TEST(BlasRealLibraries, LoadWithoutAGpuAndSkipWithTheLibrarysReason) {
  int found = 0;
  for (blas_id id : {blas_id::cublaslt, blas_id::hipblaslt, blas_id::rocblas}) {
    runtime_status why;
    std::unique_ptr<blas_library> lib = open_blas(id, blas_candidates(id, nullptr), why);
    if (!lib) continue;
    ++found;
    const std::string path = lib->path();
    lib.reset();
    scoped_env only(blas_override_env(id), path);
    const probe_result r = run_blas_with(blas_test_context(blas_key(id)), blas_type::bf16, blas_test_setup(true));
    EXPECT_EQ(r.outcome, status::skip) << path << ": " << r.detail;
    EXPECT_NE(r.detail.find("loads but has no GPU to use"), std::string::npos) << r.detail;
    const nlohmann::json& data = library_entry(r, blas_key(id))["data"];
    EXPECT_EQ(data["path"], path);
    if (id == blas_id::cublaslt) {  // the CUDA toolkit's: its version from cublasLtGetVersion, matching the soname
      const std::string soname_major = path.substr(path.rfind(".so.") + 4);
      EXPECT_EQ(data["version"].get<std::string>().rfind(soname_major + ".", 0), 0u) << data["version"];
    }
  }
  if (found == 0) GTEST_SKIP() << "no real cuBLASLt, hipBLASLt or rocBLAS on this machine";
}

}  // namespace
}  // namespace gs
