// gemm.mma.fp8 without a GPU: the fp8 bound (probes/gemm_inputs.h gemm_fp8_error_bound) holds the
// cited accumulator model and rejects a lost k-tile and a wrong row; the probe passes on the cpu
// backend and skips, saying why, on archs without an fp8 matrix path. ~0.3 s (the bound cases are
// 8 x 48 elements at K = 4096; the probe's cpu run is 301 x 259 x 176 and 128^3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "kernels/ref/gemm_ref.h"
#include "probes/gemm_inputs.h"
#include "probes/gemm_mma_probe.h"
#include "runtime/runtime_cpu.h"
#include "support/forwarding_runtime.h"
#include "support/probe_harness.h"

namespace {

// The accumulator DeepSeek-V3 and SageAttention2 describe (gemm_inputs.h): after each k32 step
// D keeps 14 significant bits, truncated toward zero; the step's own sum is exact.
double fp8_model_accumulate(const float* a, const float* bt, int K) {
  double d = 0;
  for (int k0 = 0; k0 < K; k0 += 32) {
    for (int k = k0; k < std::min(K, k0 + 32); ++k) d += double(a[k]) * bt[k];
    int e = 0;
    const double m = std::frexp(d, &e);  // |m| in [0.5, 1): 14 bits are m x 2^14 truncated
    d = std::ldexp(std::trunc(m * 16384.0) / 16384.0, e);
  }
  return d;
}

struct fp8_bound_case {
  int M = 8, N = 48, K = 4096;
  gs::matrix_input a, bt;
  fp8_bound_case() : a(gs::random_matrix(gs::gemm_type::fp8_e4m3fn, size_t(M) * K, 31)),
                     bt(gs::random_matrix(gs::gemm_type::fp8_e4m3fn, size_t(N) * K, 32)) {}
  const float* arow(int r) const { return &a.wide[size_t(r) * K]; }
  const float* brow(int c) const { return &bt.wide[size_t(c) * K]; }
  double bound(int r, int c) const { return gs::gemm_fp8_error_bound(arow(r), brow(c), K); }
  float ref(int r, int c) const { return gs::gemm_nt_ref_element(a.wide.data(), bt.wide.data(), K, r, c); }
};

TEST(GemmFp8Bound, HoldsTheCitedAccumulatorModelWhereTheFp32BoundDoesNot) {
  fp8_bound_case t;
  int outside = 0, outside_fp32 = 0;
  double worst = 0;
  for (int r = 0; r < t.M; ++r)
    for (int c = 0; c < t.N; ++c) {
      double abs_sum = 0;
      for (int k = 0; k < t.K; ++k) abs_sum += std::fabs(double(t.arow(r)[k]) * t.brow(c)[k]);
      const double err = std::fabs(fp8_model_accumulate(t.arow(r), t.brow(c), t.K) - t.ref(r, c));
      outside += !(err <= t.bound(r, c));
      outside_fp32 += !(err <= gs::gemm_error_bound(t.K, abs_sum));
      worst = std::max(worst, err / t.bound(r, c));
    }
  EXPECT_EQ(outside, 0) << "the model's error reached " << worst << " of the bound";
  EXPECT_GT(outside_fp32, 0) << "an fp32 accumulator's bound would fail a correct fp8 kernel";
  std::cout << "model error / bound, worst: " << worst << "\n";
}

// The bound is tight enough to see a kernel that skips one 128-k tile (one wgmma k-tile) or reads
// the neighbouring row of A.
TEST(GemmFp8Bound, RejectsALostKTileAndAWrongRow) {
  fp8_bound_case t;
  int lost_caught = 0, row_caught = 0;
  for (int r = 0; r < t.M; ++r)
    for (int c = 0; c < t.N; ++c) {
      std::vector<float> a_lost(t.arow(r), t.arow(r) + t.K);
      for (int k = 5 * 128; k < 6 * 128; ++k) a_lost[size_t(k)] = 0.0f;
      const float lost = gs::gemm_nt_ref_element(a_lost.data(), t.brow(c), t.K, 0, 0);
      lost_caught += std::fabs(double(lost) - t.ref(r, c)) > t.bound(r, c);
      const float other_row = t.ref((r + 1) % t.M, c);
      row_caught += std::fabs(double(other_row) - t.ref(r, c)) > t.bound(r, c);
    }
  EXPECT_GE(lost_caught, t.M * t.N * 8 / 10);
  EXPECT_GE(row_caught, t.M * t.N * 95 / 100);
}

gs::probe_context fp8_cpu_context(gs::test::recording_sink& sink) {
  gs::probe_context ctx;
  ctx.progress = &sink;
  ctx.device = "cpu";
  return ctx;
}

TEST(GemmMmaFp8Probe, PassesOnTheCpuBackendWithOcpCodes) {
  gs::test::recording_sink sink;
  gs::probe_result r = gs::run_gemm_mma_with(fp8_cpu_context(sink), gs::gemm_type::fp8_e4m3fn, gs::open_cpu_runtime());
  EXPECT_EQ(r.id, "gemm.mma.fp8");
  EXPECT_EQ(r.outcome, gs::status::pass) << r.detail;
  EXPECT_EQ(r.data["kernel"], "gemm_mma_fp8");
  EXPECT_EQ(r.data["fp8_encoding"], "e4m3fn (OCP)");
  EXPECT_EQ(r.data["correctness"]["elements_checked"], 301 * 259);
}

// A cpu runtime that reports another device's properties: the probe decides before compiling.
class fp8_props_runtime : public gs::test::forwarding_runtime {
 public:
  explicit fp8_props_runtime(gs::device_props p) : p_(std::move(p)) {}
  const gs::device_props& props() const override { return p_; }

 private:
  gs::device_props p_;
};

gs::device_props fp8_props(const char* backend, const char* arch) {
  gs::device_props p;
  p.backend = backend, p.arch = arch, p.name = std::string("test ") + arch;
  p.wave_size = std::string(arch).starts_with("gfx9") ? 64 : 32;
  return p;
}

TEST(GemmMmaFp8Probe, SkipsWithTheReasonWhereTheArchHasNoFp8Path) {
  struct want {
    const char *backend, *arch, *reason;
  };
  for (const want& w : {want{"cuda", "sm_80", "no fp8 tensor-core instruction"}, want{"cuda", "sm_86", "sm_89"},
                        want{"hip", "gfx90a", "no fp8 matrix instruction"}, want{"hip", "gfx1100", "no fp8 matrix instruction"},
                        want{"hip", "gfx950", "OCP"}, want{"hip", "gfx1030", "no fp8"}, want{"cuda", "sm_100", "tcgen05"}}) {
    gs::test::recording_sink sink;
    gs::probe_result r = gs::run_gemm_mma_with(fp8_cpu_context(sink), gs::gemm_type::fp8_e4m3fn,
                                               std::make_unique<fp8_props_runtime>(fp8_props(w.backend, w.arch)));
    EXPECT_EQ(r.outcome, gs::status::skip) << w.arch << ": " << r.detail;
    EXPECT_NE(r.detail.find(w.reason), std::string::npos) << w.arch << ": " << r.detail;
  }
  gs::test::recording_sink sink;
  gs::probe_context ctx = fp8_cpu_context(sink);
  ctx.options["wgmma"] = "0";
  gs::probe_result r = gs::run_gemm_mma_with(ctx, gs::gemm_type::fp8_e4m3fn,
                                             std::make_unique<fp8_props_runtime>(fp8_props("cuda", "sm_90")));
  EXPECT_EQ(r.outcome, gs::status::skip) << r.detail;
  EXPECT_NE(r.detail.find("wgmma=0"), std::string::npos) << r.detail;
}

TEST(GemmMmaFp8Probe, EachFp8ArchGetsItsInstructionAndEncoding) {
  std::string why;
  EXPECT_EQ(gs::fp8_unit_for(fp8_props("cuda", "sm_89"), why), "mma.sync.m16n8k32.e4m3");
  EXPECT_EQ(gs::fp8_unit_for(fp8_props("cuda", "sm_120"), why), "mma.sync.m16n8k32.e4m3");
  EXPECT_NE(gs::fp8_unit_for(fp8_props("cuda", "sm_90"), why).find("m64n256k32"), std::string::npos);
  EXPECT_NE(gs::fp8_unit_for(fp8_props("hip", "gfx942"), why).find("16x16x32_fp8"), std::string::npos);
  EXPECT_NE(gs::fp8_unit_for(fp8_props("hip", "gfx1201"), why).find("16x16x16_fp8"), std::string::npos);
  EXPECT_EQ(gs::fp8_type_for(fp8_props("hip", "gfx942")), gs::gemm_type::fp8_e4m3fnuz);
  EXPECT_EQ(gs::fp8_type_for(fp8_props("hip", "gfx1201")), gs::gemm_type::fp8_e4m3fn);
  EXPECT_EQ(gs::fp8_type_for(fp8_props("cuda", "sm_90")), gs::gemm_type::fp8_e4m3fn);
}

}  // namespace
