// matrix/hardware/expected_perf.toml and its loader: the embedded file parses, lookups pick the
// named entry before the arch default, malformed files fail with file:line:column, and the rate
// verdict warns only under the written threshold.
#include "probes/expected_perf.h"

#include <gtest/gtest.h>

namespace {

TEST(ExpectedPerf, EmbeddedFileParses) {
  std::string error;
  const gs::expected_perf& p = gs::builtin_expected_perf(&error);
  EXPECT_EQ(error, "");
  EXPECT_GE(p.gpus.size(), 8u);
  EXPECT_DOUBLE_EQ(p.gemm_warn_below, 0.30);
  for (const char* k : {"copy_v1", "copy_v2", "gemm_v1", "gemm_v2"}) EXPECT_NE(p.find_kernel(k), nullptr) << k;
}

TEST(ExpectedPerf, NameMatchBeatsTheArchDefault) {
  const gs::expected_perf& p = gs::builtin_expected_perf();
  const gs::gpu_expectation* h200 = p.find_gpu("sm_90", "NVIDIA H200");
  ASSERT_NE(h200, nullptr);
  EXPECT_DOUBLE_EQ(h200->copy_gbps, 3900);
  EXPECT_DOUBLE_EQ(h200->hbm_peak_gbps, 4800);
  EXPECT_DOUBLE_EQ(h200->bf16_library_tflops, 790);
  const gs::gpu_expectation* pcie = p.find_gpu("sm_90", "nvidia h100 pcie");  // case-insensitive
  ASSERT_NE(pcie, nullptr);
  EXPECT_DOUBLE_EQ(pcie->hbm_peak_gbps, 2000);
  const gs::gpu_expectation* other = p.find_gpu("sm_90", "NVIDIA H100 80GB HBM3");
  ASSERT_NE(other, nullptr);
  EXPECT_DOUBLE_EQ(other->hbm_peak_gbps, 3350);
  ASSERT_NE(p.find_gpu("gfx1201", "AMD Radeon AI PRO R9700"), nullptr);
  EXPECT_TRUE(p.find_gpu("gfx1201", "")->approximate);
  EXPECT_EQ(p.find_gpu("cpu", "CPU"), nullptr);
  EXPECT_EQ(p.find_gpu("sm_37", "Tesla K80"), nullptr);
}

TEST(ExpectedPerf, ExpectedRateUsesTheKernelFraction) {
  const gs::expected_perf& p = gs::builtin_expected_perf();
  std::string basis;
  const gs::gpu_expectation* h200 = p.find_gpu("sm_90", "NVIDIA H200");
  EXPECT_NEAR(gs::expected_rate(p, h200, "copy_v2", basis), 3900 * p.find_kernel("copy_v2")->fraction, 1e-9);
  EXPECT_NE(basis.find("copy_gbps"), std::string::npos);
  EXPECT_NEAR(gs::expected_rate(p, h200, "gemm_v2", basis), 67 * p.find_kernel("gemm_v2")->fraction, 1e-9);
  // No measured copy: the spec peak times copy_fraction_of_peak stands in, and basis says so.
  const gs::gpu_expectation* mi300 = p.find_gpu("gfx942", "AMD Instinct MI300X");
  EXPECT_NEAR(gs::expected_rate(p, mi300, "copy_v2", basis), 5300 * p.copy_fraction_of_peak * p.find_kernel("copy_v2")->fraction, 1e-9);
  EXPECT_NE(basis.find("no measured copy"), std::string::npos);
  EXPECT_EQ(gs::expected_rate(p, nullptr, "gemm_v2", basis), 0.0);
  EXPECT_EQ(gs::expected_rate(p, h200, "gemm_v9", basis), 0.0);
}

TEST(ExpectedPerf, MalformedFilesCiteLineAndColumn) {
  gs::expected_perf out;
  std::string error;
  EXPECT_FALSE(gs::parse_expected_perf("schema = 1\n[[gpu]]\narch = \n", "x.toml", out, error));
  EXPECT_EQ(error.rfind("x.toml:3:", 0), 0u) << error;

  EXPECT_FALSE(gs::parse_expected_perf("schema = 1\n[[gpu]]\narch = \"sm_90\"\nfp32_tflops = \"fast\"\n", "x.toml", out, error));
  EXPECT_EQ(error.rfind("x.toml:4:", 0), 0u) << error;
  EXPECT_NE(error.find("fp32_tflops"), std::string::npos);

  EXPECT_FALSE(gs::parse_expected_perf("schema = 1\n[[gpu]]\nlabel = \"no arch\"\n", "x.toml", out, error));
  EXPECT_NE(error.find("arch"), std::string::npos);

  EXPECT_FALSE(gs::parse_expected_perf("schema = 2\n", "x.toml", out, error));
  EXPECT_FALSE(gs::parse_expected_perf("schema = 1\n[[kernel]]\nname = \"k\"\nbound_by = \"speed\"\nfraction = 0.5\n", "x.toml", out, error));
  EXPECT_FALSE(gs::parse_expected_perf("schema = 1\n[[kernel]]\nname = \"k\"\nbound_by = \"fp32_tflops\"\nfraction = 1.5\n", "x.toml", out, error));
  EXPECT_FALSE(gs::parse_expected_perf("schema = 1\ngpu = 3\n", "x.toml", out, error));
  EXPECT_FALSE(gs::parse_expected_perf("schema = 1\n[policy]\ngemm_warn_below = -1\n", "x.toml", out, error));

  EXPECT_TRUE(gs::parse_expected_perf("schema = 1\n[[gpu]]\narch = \"gfx1201\"\nfp32_tflops = 47\n", "x.toml", out, error)) << error;
  EXPECT_DOUBLE_EQ(out.gpus.at(0).fp32_tflops, 47);
}

TEST(ExpectedPerf, JudgeRateWarnsOnlyUnderTheThreshold) {
  gs::rate_verdict ok = gs::judge_rate(31, 100, 0.30, "TFLOP/s", "clocks");
  EXPECT_EQ(ok.outcome, gs::status::pass);
  EXPECT_DOUBLE_EQ(ok.ratio, 0.31);
  gs::rate_verdict slow = gs::judge_rate(29, 100, 0.30, "TFLOP/s", "clocks");
  EXPECT_EQ(slow.outcome, gs::status::warn);
  EXPECT_NE(slow.detail.find("clocks"), std::string::npos);
  gs::rate_verdict unknown = gs::judge_rate(1, 0, 0.30, "GB/s", "clocks");
  EXPECT_EQ(unknown.outcome, gs::status::pass);
  EXPECT_NE(unknown.detail.find("no expected figure"), std::string::npos);
}

}  // namespace
