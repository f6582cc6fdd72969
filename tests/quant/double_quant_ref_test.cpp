// The nested-absmax reference (kernels/ref/double_quant_ref.cpp): the AVX2 dynamic map's shape,
// dQuantize<0>'s tie rule (towards the last probed entry), exact codes for exact map values,
// blocks of 256 with a partial last block, and the reconstruction's separate multiply and add.
#include <gtest/gtest.h>

#include <bit>

#include <cmath>
#include <cstring>
#include <random>

#include "kernels/ref/double_quant_ref.h"

namespace {

TEST(DoubleQuantRef, DynamicMapShape) {
  const auto& m = gs::dynamic_map_avx2();
  EXPECT_EQ(std::bit_cast<uint32_t>(m[0]), 0xbf7e3333u) << "minimum -0.99296875, no -1.0";
  EXPECT_EQ(m[127], 0.0f);
  EXPECT_EQ(m[255], 1.0f);
  for (int i = 0; i < 255; ++i) EXPECT_LT(m[size_t(i)], m[size_t(i) + 1]) << i;
  for (int i = 1; i < 127; ++i) EXPECT_EQ(m[size_t(127 + i)], -m[size_t(127 - i)]) << "symmetric at " << i;
  EXPECT_EQ(std::bit_cast<uint32_t>(m[34]), 0xbf03cccdu) << "the AVX2 linspace bits (kernel-specs.md §1.7)";
}

TEST(DoubleQuantRef, ExactMapValuesGetTheirOwnCode) {
  const auto& m = gs::dynamic_map_avx2();
  for (int i = 0; i < 256; ++i) EXPECT_EQ(gs::dynamic_code(m, m[size_t(i)]), i) << i;
  EXPECT_EQ(gs::dynamic_code(m, -1.0f), 0);
  EXPECT_EQ(gs::dynamic_code(m, 1.5f), 255);
}

TEST(DoubleQuantRef, NearestWithTiesTowardsTheLastProbe) {
  const auto& m = gs::dynamic_map_avx2();
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int t = 0; t < 50000; ++t) {
    const float x = u(rng);
    const int c = gs::dynamic_code(m, x);
    // Nearest entry, up to a tie decided either way.
    float best = INFINITY;
    for (float v : m) best = std::fmin(best, std::fabs(v - x));
    ASSERT_LE(std::fabs(m[size_t(c)] - x), best * (1 + 1e-6f) + 1e-12f) << x;
  }
}

TEST(DoubleQuantRef, BlocksOf256AndPartialLastBlock) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(0.2f, 5.0f);
  std::vector<float> absmax(600);
  for (float& v : absmax) v = u(rng);
  const float offset = gs::absmax_mean(absmax);
  const gs::nested_absmax nq = gs::double_quant_ref(absmax, gs::dynamic_map_avx2(), offset);
  ASSERT_EQ(nq.absmax2.size(), 3u);
  ASSERT_EQ(nq.q.size(), 600u);
  for (size_t b = 0; b < 3; ++b) {
    float m = 0;
    for (size_t i = b * 256; i < std::min<size_t>(600, b * 256 + 256); ++i) m = std::fmax(m, std::fabs(absmax[i] - offset));
    EXPECT_EQ(nq.absmax2[b], m) << b;
  }
  const std::vector<float> rec = gs::nested_absmax_dequant_ref(nq.q, nq.absmax2, gs::dynamic_map_avx2(), offset);
  for (size_t i = 0; i < rec.size(); ++i) {
    // One code step of the dynamic map near +-1 is ~0.0036 of absmax2 (~2.5 here).
    EXPECT_NEAR(rec[i], absmax[i], 0.02f) << i;
    const float prod = gs::dynamic_map_avx2()[nq.q[i]] * nq.absmax2[i / 256];
    EXPECT_EQ(std::bit_cast<uint32_t>(rec[i]), std::bit_cast<uint32_t>(prod + offset)) << "product rounded, then the add";
  }
}

TEST(DoubleQuantRef, MeanIsTheAverage) {
  std::vector<float> v = {1.0f, 2.0f, 4.0f};
  EXPECT_FLOAT_EQ(gs::absmax_mean(v), 7.0f / 3.0f);
  EXPECT_TRUE(std::isnan(gs::absmax_mean({})));
}

TEST(DoubleQuantRef, ToleranceOnlyAtAMidpoint) {
  const auto& m = gs::dynamic_map_avx2();
  const float absmax2 = 3.0f;
  int crossings = 0;
  for (int i = 130; i < 250; ++i) {
    const float mid = (m[size_t(i)] + m[size_t(i) + 1]) * 0.5f;
    const float y = mid * absmax2;
    const uint8_t got = gs::dynamic_code(m, y * (1.0f / absmax2));
    EXPECT_TRUE(gs::dynamic_code_tolerated(m, y, absmax2, got));
    crossings += gs::dynamic_code_tolerated(m, y, absmax2, got == i ? uint8_t(i + 1) : uint8_t(i));
  }
  EXPECT_GT(crossings, 20);
  EXPECT_FALSE(gs::dynamic_code_tolerated(m, m[100] * absmax2, absmax2, 101));
}

}  // namespace
