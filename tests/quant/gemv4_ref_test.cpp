// The 4-bit GEMV reference (kernels/ref/gemv4_ref.cpp): close to a float64 product with the
// dequantized weight (the roundings are what make it differ), the type roundings it promises,
// the summation order's dependence on the wave size, and the shape rules.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/gs_device.h"
#include "kernels/ref/gemv4_ref.h"

namespace {

struct gemv_case {
  int N = 9, K = 1024, bs = 64;
  std::vector<float> a;
  gs::quant4_packed q;
};

gemv_case make(gs::quant4_kind k, int N, int K, int bs, uint32_t seed) {
  gemv_case c{N, K, bs, {}, {}};
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> w(size_t(N) * K);
  for (float& v : w) v = normal(rng);
  c.a.resize(size_t(K));
  for (float& v : c.a) v = normal(rng);
  c.q = gs::quant4_quantize_ref(k, w, bs);
  return c;
}

double exact_row(const gemv_case& c, gs::quant4_kind k, int row) {
  double s = 0;
  for (int j = 0; j < c.K; ++j) {
    const size_t e = size_t(row) * c.K + j;
    s += double(c.a[size_t(j)]) * gs::quant4_dequant_value(k, gs::quant4_nibble(c.q.packed, e), c.q.absmax[e / size_t(c.bs)]);
  }
  return s;
}

TEST(Gemv4Ref, F32IsCloseToTheExactProduct) {
  const gemv_case c = make(gs::quant4_kind::nf4, 9, 1024, 64, 1);
  std::vector<float> out(9);
  gs::gemv4_ref(gs::gemv_type::f32, gs::quant4_kind::nf4, c.a.data(), c.q.packed, c.q.absmax, 9, 1024, 64, 32, out.data());
  for (int r = 0; r < 9; ++r) EXPECT_NEAR(out[size_t(r)], exact_row(c, gs::quant4_kind::nf4, r), 1e-3) << r;
}

TEST(Gemv4Ref, Bf16RoundsWeightsAndProducts) {
  const gemv_case c = make(gs::quant4_kind::fp4, 5, 2048, 128, 2);
  std::vector<uint16_t> a16(c.a.size()), out(5);
  for (size_t i = 0; i < a16.size(); ++i) a16[i] = gs_f32_to_bf16(c.a[i]);
  gs::gemv4_ref(gs::gemv_type::bf16, gs::quant4_kind::fp4, a16.data(), c.q.packed, c.q.absmax, 5, 2048, 128, 32, out.data());
  for (int r = 0; r < 5; ++r) {
    // bf16 has 8 bits: each product carries ~2^-9 relative error; sqrt(K) of them add up.
    const double exact = exact_row(c, gs::quant4_kind::fp4, r);
    EXPECT_NEAR(gs_bf16_to_f32(out[size_t(r)]), exact, 0.05 * std::sqrt(2048.0) * 0.5 + 0.02 * std::fabs(exact)) << r;
  }
  // One row by hand, lane order included, for a K of exactly one chunk per lane at wave 32.
  const gemv_case s = make(gs::quant4_kind::nf4, 1, 1024, 1024, 3);
  std::vector<uint16_t> sa(1024);
  for (size_t i = 0; i < sa.size(); ++i) sa[i] = gs_f32_to_bf16(s.a[i]);
  std::vector<float> lane(32, 0.0f);
  const float am = gs_bf16_to_f32(gs_f32_to_bf16(s.q.absmax[0]));
  for (int l = 0; l < 32; ++l)
    for (int j = 0; j < 32; ++j) {
      const size_t k = size_t(l) * 32 + size_t(j);
      const float code = gs_bf16_to_f32(gs_f32_to_bf16(gs::quant4_table(gs::quant4_kind::nf4)[gs::quant4_nibble(s.q.packed, k)]));
      const float w = gs_bf16_to_f32(gs_f32_to_bf16(code * am));
      lane[size_t(l)] += gs_bf16_to_f32(gs_f32_to_bf16(gs_bf16_to_f32(sa[k]) * w));
    }
  for (int o = 1; o < 32; o *= 2) {
    std::vector<float> next(32);
    for (int l = 0; l < 32; ++l) next[size_t(l)] = lane[size_t(l)] + lane[size_t(l ^ o)];
    lane = next;
  }
  EXPECT_EQ(gs::gemv4_ref_row_sum(gs::gemv_type::bf16, gs::quant4_kind::nf4, sa.data(), s.q.packed, s.q.absmax, 0, 1024,
                                  1024, 32),
            lane[0]);
}

TEST(Gemv4Ref, WaveSizeChangesOnlyTheOrder) {
  const gemv_case c = make(gs::quant4_kind::nf4, 16, 4096, 64, 4);
  std::vector<float> w32(16), w64(16);
  gs::gemv4_ref(gs::gemv_type::f32, gs::quant4_kind::nf4, c.a.data(), c.q.packed, c.q.absmax, 16, 4096, 64, 32, w32.data());
  gs::gemv4_ref(gs::gemv_type::f32, gs::quant4_kind::nf4, c.a.data(), c.q.packed, c.q.absmax, 16, 4096, 64, 64, w64.data());
  int differ = 0;
  for (int r = 0; r < 16; ++r) {
    EXPECT_NEAR(w32[size_t(r)], w64[size_t(r)], 1e-3f) << r;
    differ += w32[size_t(r)] != w64[size_t(r)];
  }
  EXPECT_GT(differ, 0) << "a different wave size sums in a different order; some row should show it";
}

TEST(Gemv4Ref, ShapeRules) {
  EXPECT_EQ(gs::gemv4_shape_error(8, 4096, 64), "");
  EXPECT_NE(gs::gemv4_shape_error(8, 4016, 64), "");
  EXPECT_NE(gs::gemv4_shape_error(0, 4096, 64), "");
  EXPECT_NE(gs::gemv4_shape_error(8, 4096, 100), "");
  EXPECT_NE(gs::gemv4_shape_error(1 << 20, 1 << 12, 64), "");
}

}  // namespace
