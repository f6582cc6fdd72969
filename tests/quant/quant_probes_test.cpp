// quant.nf4 / quant.fp4 / quant.int8 on the cpu backend (their CPU path, run in CI): they pass,
// at wave size 32 and 64; a runtime that corrupts one downloaded byte, fails a launch or runs a
// short grid makes them fail with the kernel named; they are in the default suite; the timed
// part runs when asked for and reports its figures.
#include <gtest/gtest.h>

#include <string>

#include "probes/gpu_session.h"
#include "probes/probe.h"
#include "probes/quant_probes.h"
#include "runtime/runtime_cpu.h"
#include "support/forwarding_runtime.h"

namespace {

struct null_sink : gs::phase_sink {
  void phase(std::string_view) override {}
  void heartbeat() override {}
};

gs::probe_context cpu_ctx(null_sink& s) {
  gs::probe_context c;
  c.progress = &s;
  c.device = "cpu";
  return c;
}

enum class quant_fault { flip_download, fail_launch, short_grid };

// The cpu runtime with one fault.
class faulty : public gs::test::forwarding_runtime {
 public:
  faulty(quant_fault f, int after) : f_(f), after_(after) {}
  gs::runtime_status copy_to_host(void* d, gs::buffer s, size_t b) override {
    gs::runtime_status st = inner_->copy_to_host(d, s, b);
    // Output downloads are never exactly a guard's size; flip one bit in the `after_`-th of them.
    if (st.ok && f_ == quant_fault::flip_download && b != gs::guarded_buffer::guard_bytes && downloads_++ == after_)
      static_cast<unsigned char*>(d)[b / 2] ^= 0x10;
    return st;
  }
  gs::runtime_status launch(gs::kernel_handle k, const gs::launch_dims& d, void** a) override {
    if (f_ == quant_fault::fail_launch && launches_++ == after_)
      return gs::runtime_status::failure("cuLaunchKernel", 719, "CUDA_ERROR_LAUNCH_FAILED");
    gs::launch_dims s = d;
    if (f_ == quant_fault::short_grid && s.grid[0] > 1) --s.grid[0];  // every launch that has a block to lose
    return inner_->launch(k, s, a);
  }

 private:
  quant_fault f_;
  int after_;
  int downloads_ = 0, launches_ = 0;
};

TEST(QuantProbes, Nf4Fp4Int8PassOnTheCpuBackend) {
  null_sink sink;
  gs::probe_context ctx = cpu_ctx(sink);
  for (gs::quant4_kind k : {gs::quant4_kind::nf4, gs::quant4_kind::fp4}) {
    gs::probe_result r = gs::run_quant4_with(ctx, k, gs::open_cpu_runtime());
    EXPECT_EQ(r.outcome, gs::status::pass) << r.detail;
    EXPECT_GT(r.data["elements_checked"].get<size_t>(), 200000u);
    for (const char* fam : {"quantize", "dequant_v1", "dequant_v2", "dequant_v3", "double_quant", "gemv"})
      EXPECT_EQ(r.data["checks"][fam]["elements_bad"], 0) << fam;
    EXPECT_FALSE(r.data.contains("rate")) << "the cpu default is no timing";
  }
  gs::probe_result r = gs::run_int8_with(ctx, gs::open_cpu_runtime());
  EXPECT_EQ(r.outcome, gs::status::pass) << r.detail;
  EXPECT_EQ(r.data["outlier_cols"], nlohmann::json({5, 77, 299}));
  for (const char* fam : {"outliers", "row_quant", "gemm_i32", "dequant", "linear8bitlt"})
    EXPECT_GT(r.data["checks"][fam]["elements"].get<size_t>(), 0u) << fam;
}

TEST(QuantProbes, Wave64Backend) {
  null_sink sink;
  gs::probe_context ctx = cpu_ctx(sink);
  gs::probe_result r = gs::run_quant4_with(ctx, gs::quant4_kind::nf4, gs::open_cpu_runtime(64));
  EXPECT_EQ(r.outcome, gs::status::pass) << r.detail;
  EXPECT_EQ(r.data["device"]["wave_size"], 64);
  r = gs::run_int8_with(ctx, gs::open_cpu_runtime(64));
  EXPECT_EQ(r.outcome, gs::status::pass) << r.detail;
}

TEST(QuantProbes, TimedPartOnRequest) {
  null_sink sink;
  gs::probe_context ctx = cpu_ctx(sink);
  ctx.options["size"] = "256";
  ctx.options["iters"] = "2";
  gs::probe_result r = gs::run_quant4_with(ctx, gs::quant4_kind::nf4, gs::open_cpu_runtime());
  ASSERT_EQ(r.outcome, gs::status::pass) << r.detail;
  ASSERT_TRUE(r.data.contains("rate"));
  const nlohmann::json& rate = r.data["rate"];
  EXPECT_EQ(rate["size"], 256);
  for (const char* v : {"v1", "v2", "v3"}) EXPECT_GE(rate["dequant_bf16"][v]["gbps"].get<double>(), 0.0) << v;
  EXPECT_GE(rate["gemv_bf16"]["us"].get<double>(), 0.0);
  EXPECT_EQ(rate["bytes"]["dequant"], 256.0 * 256 / 2 + 256.0 * 256 / 64 * 4 + 256.0 * 256 * 2);
  EXPECT_EQ(r.data["checks"]["rate_dequant_v3"]["elements_bad"], 0);
  EXPECT_NE(r.detail.find("GB/s"), std::string::npos) << r.detail;
}

TEST(QuantProbes, CorruptedOutputsFail) {
  null_sink sink;
  gs::probe_context ctx = cpu_ctx(sink);
  for (int after : {0, 5, 40}) {
    gs::probe_result r = gs::run_quant4_with(ctx, gs::quant4_kind::nf4, std::make_unique<faulty>(quant_fault::flip_download, after));
    EXPECT_EQ(r.outcome, gs::status::fail) << "download " << after;
    EXPECT_NE(r.detail.find("differ"), std::string::npos) << r.detail;
  }
  gs::probe_result r = gs::run_int8_with(ctx, std::make_unique<faulty>(quant_fault::flip_download, 2));
  EXPECT_EQ(r.outcome, gs::status::fail);
  EXPECT_NE(r.detail.find("int8_row_quant_v1"), std::string::npos) << r.detail;
}

TEST(QuantProbes, LaunchFailureAndShortGrid) {
  null_sink sink;
  gs::probe_context ctx = cpu_ctx(sink);
  gs::probe_result r = gs::run_quant4_with(ctx, gs::quant4_kind::fp4, std::make_unique<faulty>(quant_fault::fail_launch, 3));
  EXPECT_EQ(r.outcome, gs::status::fail);
  EXPECT_NE(r.detail.find("CUDA_ERROR_LAUNCH_FAILED"), std::string::npos) << r.detail;
  EXPECT_EQ(r.data["runtime_error"]["code"], 719);
  // Grids one block short leave tails unwritten: the poison is caught.
  r = gs::run_quant4_with(ctx, gs::quant4_kind::nf4, std::make_unique<faulty>(quant_fault::short_grid, 0));
  EXPECT_EQ(r.outcome, gs::status::fail) << r.detail;
  r = gs::run_int8_with(ctx, std::make_unique<faulty>(quant_fault::short_grid, 0));
  EXPECT_EQ(r.outcome, gs::status::fail) << r.detail;
}

TEST(QuantProbes, InTheDefaultSuiteAfterTheirDependency) {
  const auto& all = gs::all_probes();
  for (const char* id : {"quant.nf4", "quant.fp4", "quant.int8"}) {
    const gs::probe_spec* p = gs::find_probe(id);
    ASSERT_NE(p, nullptr) << id;
    EXPECT_TRUE(p->isolated && p->uses_gpu);
    ASSERT_EQ(p->depends_on.size(), 1u);
    size_t dep = 0, self = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      if (std::string(all[i]->id) == p->depends_on[0]) dep = i;
      if (all[i] == p) self = i;
    }
    EXPECT_LT(dep, self) << id;
  }
}

TEST(QuantProbes, AutoWithoutAGpuSkips) {
  null_sink sink;
  gs::probe_context ctx = cpu_ctx(sink);
  ctx.device = "cuda:7";
  gs::probe_result r = gs::run_quant4_with(ctx, gs::quant4_kind::nf4, nullptr);
  EXPECT_EQ(r.outcome, gs::status::skip) << r.detail;
}

}  // namespace
