// The LLM.int8() reference (kernels/ref/int8_ref.cpp): round-half-even codes, NaN and all-zero
// rows giving 0, outlier columns at '>=' threshold excluded from the row absmax value by value
// but zeroed as whole columns, exact int32 accumulation, the dequant constant and its order, and
// the Linear8bitLt forward close to a float64 product.
#include <gtest/gtest.h>

#include <bit>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/gs_device.h"
#include "kernels/ref/int8_ref.h"

namespace {

TEST(Int8Ref, ConstantsAreTheKernelBits) {
  EXPECT_EQ(std::bit_cast<uint32_t>(gs::int8_mm_dequant_const), 0x38820610u);
  EXPECT_EQ(gs::int8_mm_dequant_const, float(1.0 / 16129.0));
  EXPECT_EQ(gs::int8_inv127, float(1.0 / 127.0));
}

TEST(Int8Ref, RoundHalfEvenAndSpecials) {
  // absmax 127: scale 1, so x * scale == x and the .5 cases are exact.
  EXPECT_EQ(gs::int8_code(2.5f, 127.0f), 2);
  EXPECT_EQ(gs::int8_code(3.5f, 127.0f), 4);
  EXPECT_EQ(gs::int8_code(-2.5f, 127.0f), -2);
  EXPECT_EQ(gs::int8_code(127.0f, 127.0f), 127);
  EXPECT_EQ(gs::int8_code(std::numeric_limits<float>::quiet_NaN(), 127.0f), 0);
  EXPECT_EQ(gs::int8_code(0.0f, 0.0f), 0) << "0 * inf = NaN -> 0";
}

TEST(Int8Ref, OutlierColumnsAndRowAbsmax) {
  // 3 x 4; column 1 has a 6.0 (an outlier at threshold 6: '>='), column 3 a 5.99 (not).
  const std::vector<float> A = {1.0f, 6.0f, -2.0f, 5.99609375f,  //
                                0.5f, 3.0f, 1.0f, -1.0f,          //
                                0.0f, 0.0f, 0.0f, 0.0f};
  const gs::int8_quant q = gs::int8_vectorwise_quant_ref(A, 3, 4, 6.0f);
  EXPECT_EQ(q.outlier_cols, std::vector<int>{1});
  EXPECT_EQ(q.stats[0], 5.99609375f) << "the outlier value does not count";
  EXPECT_EQ(q.stats[1], 3.0f) << "a non-outlier value in the outlier column still counts";
  EXPECT_EQ(q.stats[2], 0.0f);
  EXPECT_EQ(q.q[1], 0);
  EXPECT_EQ(q.q[5], 0) << "the whole outlier column is zeroed";
  EXPECT_EQ(q.q[3], 127);
  EXPECT_EQ(q.q[4], int8_t(std::nearbyint(0.5f * (127.0f / 3.0f))));
  for (int c = 0; c < 4; ++c) EXPECT_EQ(q.q[size_t(8 + c)], 0);
  // Without a threshold nothing is an outlier.
  const gs::int8_quant n = gs::int8_vectorwise_quant_ref(A, 3, 4, 0.0f);
  EXPECT_TRUE(n.outlier_cols.empty());
  EXPECT_EQ(n.stats[0], 6.0f);
  EXPECT_EQ(n.q[1], 127);
}

TEST(Int8Ref, GemmIsExactInt32) {
  std::vector<int8_t> a(4096, 127), b(4096, -128);
  const std::vector<int32_t> c = gs::int8_gemm_i32_ref(a, b, 1, 1, 4096);
  EXPECT_EQ(c[0], 127 * -128 * 4096);
}

TEST(Int8Ref, DequantOrderAndBias) {
  // ((float)C * row) * col, then fmaf with the constant and the bias, then fp16.
  const int32_t c = 12345;
  const float r = 3.1f, col = 2.7f, bias = 0.25f;
  const float scaled = (float(c) * r) * col;
  EXPECT_EQ(gs::int8_dequant_element(c, r, col, bias), gs_f32_to_f16(std::fma(scaled, 6.200012e-05f, bias)));
  EXPECT_NEAR(gs_f16_to_f32(gs::int8_dequant_element(c, r, col, 0.0f)), c * r * col / 16129.0, 0.01);
  // Overflow beyond fp16 becomes infinity (bitsandbytes always goes through fp16).
  EXPECT_EQ(gs::int8_dequant_element(2000000000, 100.0f, 100.0f, 0.0f), 0x7c00);
}

TEST(Int8Ref, Linear8bitLtForwardCloseToTheFloatProduct) {
  const int M = 6, N = 7, K = 96;
  std::mt19937 rng(9);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> A(size_t(M) * K), W(size_t(N) * K), bias(static_cast<size_t>(N));
  for (float& v : A) v = gs_f16_to_f32(gs_f32_to_f16(normal(rng)));
  for (float& v : W) v = gs_f16_to_f32(gs_f32_to_f16(normal(rng) * 0.2f));
  for (float& v : bias) v = gs_f16_to_f32(gs_f32_to_f16(normal(rng)));
  A[10] = 9.0f;  // column 10 becomes an outlier column
  const gs::int8_quant qw = gs::int8_vectorwise_quant_ref(W, N, K, 0.0f);
  const std::vector<uint16_t> y = gs::linear8bitlt_forward_ref(A, qw.q, qw.stats, bias, M, N, K, 6.0f);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double exact = bias[size_t(j)];
      for (int k = 0; k < K; ++k) exact += double(A[size_t(i) * K + k]) * W[size_t(j) * K + k];
      // int8 codes carry ~0.4% of each row's absmax; sqrt(K) of those add up.
      EXPECT_NEAR(gs_f16_to_f32(y[size_t(i) * N + j]), exact, 0.15 + 0.01 * std::fabs(exact)) << i << "," << j;
    }
}

TEST(Int8Ref, FdividefToleranceOnlyAtHalfBoundaries) {
  // scale = 127 / 3 is inexact. Near k + 0.5 some x has a code that a scale an ulp or two away
  // (what __fdividef may return) changes: both codes are tolerated there, and only there.
  const float absmax = 3.0f, scale = 127.0f / absmax;
  int crossings = 0;
  for (int k = 0; k < 120; ++k) {
    const float x = (float(k) + 0.5f) / scale;
    const int ieee = gs::int8_code(x, absmax);
    EXPECT_TRUE(gs::int8_code_tolerated(x, absmax, ieee));
    const int other = ieee == k ? k + 1 : k;
    if (gs::int8_code_tolerated(x, absmax, other)) ++crossings;
    EXPECT_FALSE(gs::int8_code_tolerated(x, absmax, ieee + 2));
  }
  EXPECT_GT(crossings, 10);
  EXPECT_FALSE(gs::int8_code_tolerated(1.0f, absmax, gs::int8_code(1.0f, absmax) + 1));
}

}  // namespace
