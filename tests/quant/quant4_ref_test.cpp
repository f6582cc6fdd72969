// The NF4/FP4 reference (kernels/ref/quant4_ref.cpp) against the facts of research/kernel-specs.md
// §1: the code tables and thresholds as float32 bit patterns, the tree equal to counting strict
// '>' thresholds, ties to the lower code, NaN -> 0, an all-zero block -> 0x00 bytes and -0.0
// dequantized, nibble order, odd lengths, every blocksize, and the fast-math tolerance rule.
#include <gtest/gtest.h>

#include <bit>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/gs_device.h"
#include "kernels/ref/quant4_ref.h"

namespace {

using gs::quant4_kind;

TEST(Quant4Ref, Nf4TableAndThresholdsAreTheSpecBits) {
  const uint32_t table[16] = {0xbf800000, 0xbf3239b1, 0xbf066b30, 0xbeca32a0, 0xbe91a24d, 0xbe3d353f,
                              0xbdba7871, 0x00000000, 0x3da2faff, 0x3e24cae3, 0x3e7c04dd, 0x3ead033a,
                              0x3ee1a4b8, 0x3f1007ab, 0x3f3913b3, 0x3f800000};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(std::bit_cast<uint32_t>(gs::quant4_table(quant4_kind::nf4)[i]), table[i]) << i;
  // Every threshold is the float literal of dQuantizeNF4 rounded straight to float32, as nvcc,
  // NVRTC and g++ round it (the bits nvcc puts in the PTX of kQuantizeBlockwise). Each lies on
  // one side or the other of the exact midpoint of its two NF4 neighbours; four of them are not
  // the round-half-to-even float32(midpoint) that kernel-specs.md §1.3's table lists.
  const uint32_t thr[15] = {0xbf591cd9, 0xbf1c5270, 0xbeeb8480, 0xbeadea76, 0xbe703cec,
                            0xbe0d38bc, 0xbd3a7871, 0x3d22faff, 0x3df64863, 0x3e5067e0,
                            0x3e9582d4, 0x3ec753f9, 0x3f006d03, 0x3f248daf, 0x3f5c89d9};
  const auto& t = gs::nf4_thresholds();
  int off_tie = 0;
  for (int i = 0; i < 15; ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(t[i]), thr[i]) << i;
    const double mid = (double(gs::quant4_table(quant4_kind::nf4)[i]) + gs::quant4_table(quant4_kind::nf4)[i + 1]) / 2;
    const float lo = std::nextafter(float(mid), -2.0f), hi = std::nextafter(float(mid), 2.0f);
    EXPECT_TRUE(t[i] == float(mid) || (t[i] == lo && double(lo) < mid) || (t[i] == hi && double(hi) > mid))
        << "threshold " << i << " is not a float32 neighbour of the midpoint";
    off_tie += t[i] != float(mid);
  }
  EXPECT_EQ(off_tie, 4) << "thresholds 0, 8, 12 and 14 differ from float32(midpoint)";
}

TEST(Quant4Ref, Fp4TableIsE2M1OverTwelveInBitOrder) {
  const float want[16] = {0, 0.0625f / 12, 8.0f / 12, 1, 4.0f / 12, 6.0f / 12, 2.0f / 12, 3.0f / 12,
                          -0.0f, -0.0625f / 12, -8.0f / 12, -1, -4.0f / 12, -6.0f / 12, -2.0f / 12, -3.0f / 12};
  const auto& t = gs::quant4_table(quant4_kind::fp4);
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(t[i], want[i], 1e-7) << i;
  EXPECT_EQ(std::bit_cast<uint32_t>(t[8]), 0x80000000u) << "code 8 dequantizes to -0.0";
  EXPECT_EQ(std::bit_cast<uint32_t>(t[1]), std::bit_cast<uint32_t>(0.005208333333f));
}

TEST(Quant4Ref, Nf4TreeEqualsCountingStrictThresholds) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.2f, 1.2f);
  auto count = [](float x) {
    int c = 0;
    for (float t : gs::nf4_thresholds()) c += x > t;
    return c;
  };
  for (int i = 0; i < 200000; ++i) {
    float x = u(rng);
    ASSERT_EQ(gs::nf4_code(x), count(x)) << x;
  }
  for (float t : gs::nf4_thresholds())
    for (float x : {t, std::nextafter(t, -1.0f), std::nextafter(t, 1.0f)}) EXPECT_EQ(gs::nf4_code(x), count(x)) << x;
}

TEST(Quant4Ref, TiesGoToTheLowerCode) {
  const auto& t = gs::nf4_thresholds();
  for (int i = 0; i < 15; ++i) {
    EXPECT_EQ(gs::nf4_code(t[i]), i) << "on threshold " << i;
    EXPECT_EQ(gs::nf4_code(std::nextafter(t[i], 2.0f)), i + 1);
  }
  EXPECT_EQ(gs::fp4_code(0.29166667f), 0b110 + 1) << "0.29166667 is not > itself: code 0b111";
  EXPECT_EQ(gs::fp4_code(std::nextafter(0.29166667f, 1.0f)), 0b100);
  EXPECT_EQ(gs::fp4_code(-0.8333333f), 0b1010);
}

TEST(Quant4Ref, NanZeroAndSignRules) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(gs::nf4_code(nan), 0) << "NaN fails every '>': code 0 (-1.0)";
  EXPECT_EQ(gs::fp4_code(nan), 0);
  EXPECT_EQ(gs::nf4_code(0.0f), 7);
  EXPECT_EQ(gs::nf4_code(-0.0f), 7);
  EXPECT_EQ(gs::fp4_code(-0.0f), 0) << "-0.0 is not < 0: no sign bit";
  EXPECT_EQ(gs::nf4_code(1.0f), 15);
  EXPECT_EQ(gs::nf4_code(-1.0f), 0);
}

TEST(Quant4Ref, AllZeroBlockIsBytesZeroAndDequantizesToMinusZero) {
  std::vector<float> x(128, 0.0f);
  x[70] = 0.5f;  // second block is not zero
  const gs::quant4_packed q = gs::quant4_quantize_ref(quant4_kind::nf4, x, 64);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(q.packed[size_t(i)], 0x00) << i;
  EXPECT_EQ(q.absmax[0], 0.0f);
  EXPECT_EQ(q.packed[32], 0x77) << "zeros in a block with absmax > 0 are code 7";
  std::vector<float> out(128);
  gs::quant4_dequant_ref_f32(quant4_kind::nf4, q.packed, q.absmax, 128, 64, out.data());
  EXPECT_EQ(std::bit_cast<uint32_t>(out[0]), 0x80000000u) << "-1.0 * 0 = -0.0";
}

TEST(Quant4Ref, NibbleOrderHighIsEvenAndOddTailIsPadding) {
  // 3 elements: byte 0 = codes of x0 (high) and x1 (low); byte 1 = x2 and the 0.0 padding.
  const std::vector<float> x = {1.0f, -1.0f, 0.5f};
  const gs::quant4_packed q = gs::quant4_quantize_ref(quant4_kind::nf4, x, 64);
  ASSERT_EQ(q.packed.size(), 2u);
  EXPECT_EQ(q.packed[0], 0xf0);
  EXPECT_EQ(q.packed[1] & 0x0f, 7) << "padding 0.0 is code 7";
  EXPECT_EQ(q.packed[1] >> 4, gs::nf4_code(0.5f));
  EXPECT_EQ(gs::quant4_nibble(q.packed, 0), 15);
  EXPECT_EQ(gs::quant4_nibble(q.packed, 1), 0);
}

TEST(Quant4Ref, EveryBlocksizeRoundTripsWithinHalfAStep) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int bs : gs::quant4_blocksizes) {
    ASSERT_TRUE(gs::quant4_blocksize_valid(bs));
    const size_t n = size_t(3 * bs + 17);
    std::vector<float> x(n);
    for (float& v : x) v = normal(rng);
    for (quant4_kind k : {quant4_kind::nf4, quant4_kind::fp4}) {
      const gs::quant4_packed q = gs::quant4_quantize_ref(k, x, bs);
      ASSERT_EQ(q.absmax.size(), (n + size_t(bs) - 1) / size_t(bs));
      ASSERT_EQ(q.packed.size(), (n + 1) / 2);
      std::vector<float> d(n);
      gs::quant4_dequant_ref_f32(k, q.packed, q.absmax, n, bs, d.data());
      for (size_t i = 0; i < n; ++i) {
        const float am = q.absmax[i / size_t(bs)];
        // The largest gap between adjacent codes is 0.304 (NF4: -1 .. -0.696) and 0.333 (FP4: 0.667..1).
        EXPECT_LE(std::fabs(d[i] - x[i]), 0.17f * am) << "bs " << bs << " i " << i;
      }
    }
  }
  for (long long bad : {0LL, 16LL, 48LL, 8192LL, -64LL}) EXPECT_FALSE(gs::quant4_blocksize_valid(bad)) << bad;
}

TEST(Quant4Ref, Bf16AndF16DequantIsOneRoundingOfTheFloatProduct) {
  std::vector<float> x = {0.3f, -2.0f, 1.7f, 0.01f};
  const gs::quant4_packed q = gs::quant4_quantize_ref(quant4_kind::nf4, x, 64);
  std::vector<float> f(4);
  std::vector<uint16_t> b(4), h(4);
  gs::quant4_dequant_ref_f32(quant4_kind::nf4, q.packed, q.absmax, 4, 64, f.data());
  gs::quant4_dequant_ref_bf16(quant4_kind::nf4, q.packed, q.absmax, 4, 64, b.data());
  gs::quant4_dequant_ref_f16(quant4_kind::nf4, q.packed, q.absmax, 4, 64, h.data());
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(b[size_t(i)], gs_f32_to_bf16(f[size_t(i)]));
    EXPECT_EQ(h[size_t(i)], gs_f32_to_f16(f[size_t(i)]));
  }
}

TEST(Quant4Ref, FastMathToleranceOnlyNearAThreshold) {
  // absmax 3: inv = 1/3 is inexact. x = t / inv puts x * inv within an ulp or so of threshold t;
  // a reciprocal an ulp or two away (the fast-math one) can give the neighbouring code, which is
  // then tolerated; away from thresholds only the IEEE code is.
  const float absmax = 3.0f, inv = 1.0f / absmax;
  int crossings = 0;
  for (int i = 0; i < 15; ++i) {
    const float x = gs::nf4_thresholds()[size_t(i)] / inv;
    const uint8_t ieee = gs::nf4_code(x * inv);
    EXPECT_TRUE(gs::quant4_code_tolerated(quant4_kind::nf4, x, absmax, ieee));
    const uint8_t other = ieee == i ? uint8_t(i + 1) : uint8_t(i);
    crossings += gs::quant4_code_tolerated(quant4_kind::nf4, x, absmax, other);
  }
  EXPECT_GT(crossings, 7);
  const float y = 0.25f * absmax;  // xn = 0.25, between thresholds 0.2035 and 0.2920
  EXPECT_TRUE(gs::quant4_code_tolerated(quant4_kind::nf4, y, absmax, 10));
  EXPECT_FALSE(gs::quant4_code_tolerated(quant4_kind::nf4, y, absmax, 9));
  EXPECT_FALSE(gs::quant4_code_tolerated(quant4_kind::nf4, y, absmax, 11));
}

TEST(Quant4Ref, NanOnlyBlockKeepsMinusFltMaxAsTheKernelDoes) {
  // fmaxf drops NaN, so a block of NaNs never raises absmax above its -FLT_MAX start.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x(32, nan);
  const gs::quant4_packed q = gs::quant4_quantize_ref(quant4_kind::nf4, x, 32);
  EXPECT_EQ(q.absmax[0], -std::numeric_limits<float>::max());
  for (uint8_t b : q.packed) EXPECT_EQ(b, 0x00);
}

}  // namespace
