// kernels/gs_fp8.h: all 256 codes of both E4M3 encodings against the spec tables (OCP OFP8 rev 1.0
// table 1 for e4m3fn; LLVM APFloat Float8E4M3FNUZ for FNUZ), written here as the specs state them
// (sign, biased exponent, 3-bit mantissa, subnormals at exponent 0) with std::ldexp rather than
// the decoder's bit assembly, plus the specs' named values; and the claim the fp8 bound rests on,
// that the product of any two finite codes is exact in fp32. ~5 ms.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/gs_fp8.h"
#include "kernels/ref/gemm_ref.h"

namespace {

// The spec's value of a non-NaN code.
double fp8_spec_value(unsigned v, bool fnuz) {
  const int bias = fnuz ? 8 : 7, e = int(v >> 3) & 15, m = int(v & 7);
  const double mag = e == 0 ? std::ldexp(m / 8.0, 1 - bias) : std::ldexp(1.0 + m / 8.0, e - bias);
  return (v & 0x80) ? -mag : mag;
}

TEST(Fp8Decode, OcpE4m3fnEveryCode) {
  int finite = 0;
  for (unsigned v = 0; v < 256; ++v) {
    const float f = gs_fp8_e4m3_to_f32(v, false);
    if ((v & 0x7f) == 0x7f) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << v;
      continue;
    }
    ++finite;
    EXPECT_EQ(double(f), fp8_spec_value(v, false)) << std::hex << v;
    EXPECT_FALSE(std::isinf(f));
  }
  EXPECT_EQ(finite, 254) << "two NaN codes, no infinities";
  EXPECT_EQ(gs_fp8_e4m3_to_f32(0x7e, false), 448.0f);
  EXPECT_EQ(gs_fp8_e4m3_to_f32(0xfe, false), -448.0f);
  EXPECT_EQ(gs_fp8_e4m3_to_f32(0x38, false), 1.0f);
  EXPECT_EQ(gs_fp8_e4m3_to_f32(0x08, false), std::ldexp(1.0f, -6)) << "smallest normal";
  EXPECT_EQ(gs_fp8_e4m3_to_f32(0x01, false), std::ldexp(1.0f, -9)) << "smallest subnormal";
  EXPECT_EQ(gs_fp8_e4m3_to_f32(0x07, false), 7 * std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::signbit(gs_fp8_e4m3_to_f32(0x80, false)) && gs_fp8_e4m3_to_f32(0x80, false) == 0.0f) << "-0";
  EXPECT_FALSE(std::signbit(gs_fp8_e4m3_to_f32(0x00, false)));
  EXPECT_EQ(gs_fp8_e4m3_to_f32(0x77, false), 240.0f) << "an ordinary number in OCP, FNUZ's largest pattern is 0x7f";
}

TEST(Fp8Decode, FnuzE4m3EveryCode) {
  int finite = 0;
  for (unsigned v = 0; v < 256; ++v) {
    const float f = gs_fp8_e4m3_to_f32(v, true);
    if (v == 0x80) {
      EXPECT_TRUE(std::isnan(f)) << "0x80 is FNUZ's only NaN";
      continue;
    }
    ++finite;
    EXPECT_EQ(double(f), fp8_spec_value(v, true)) << std::hex << v;
    EXPECT_FALSE(std::signbit(f) && f == 0.0f) << "no negative zero";
    // Bias 8 against 7: every code both encodings call a number is half as large in FNUZ.
    if ((v & 0x7f) != 0x7f) {
      EXPECT_EQ(f, gs_fp8_e4m3_to_f32(v, false) / 2) << std::hex << v;
    }
  }
  EXPECT_EQ(finite, 255) << "one NaN, no infinities, no -0";
  EXPECT_EQ(gs_fp8_e4m3_to_f32(0x7f, true), 240.0f) << "largest";
  EXPECT_EQ(gs_fp8_e4m3_to_f32(0xff, true), -240.0f);
  EXPECT_EQ(gs_fp8_e4m3_to_f32(0x40, true), 1.0f);
  EXPECT_EQ(gs_fp8_e4m3_to_f32(0x01, true), std::ldexp(1.0f, -10)) << "smallest subnormal";
  EXPECT_EQ(gs_fp8_e4m3_to_f32(0x08, true), std::ldexp(1.0f, -7)) << "smallest normal";
}

// 4 significant bits each: a product has at most 8, its exponent in [-20, 17]: exact in fp32, so
// only the accumulation can differ from the reference.
TEST(Fp8Decode, EveryProductOfTwoCodesIsExactInFp32) {
  for (bool fnuz : {false, true}) {
    int inexact = 0;
    for (unsigned x = 0; x < 256; ++x)
      for (unsigned y = 0; y < 256; ++y) {
        const float a = gs_fp8_e4m3_to_f32(x, fnuz), b = gs_fp8_e4m3_to_f32(y, fnuz);
        if (std::isnan(a) || std::isnan(b)) continue;
        inexact += double(a * b) != double(a) * double(b);
      }
    EXPECT_EQ(inexact, 0) << (fnuz ? "fnuz" : "ocp");
  }
}

TEST(Fp8Decode, WidenFp8IsTheDecoderOverAnArray) {
  const uint8_t codes[] = {0x00, 0x38, 0x7e, 0x80, 0x40, 0x7f};
  const std::vector<float> ocp = gs::widen_fp8(codes, 6, false), fnuz = gs::widen_fp8(codes, 6, true);
  EXPECT_EQ(ocp[1], 1.0f);
  EXPECT_EQ(ocp[2], 448.0f);
  EXPECT_TRUE(std::isnan(ocp[5]));
  EXPECT_TRUE(std::isnan(fnuz[3]));
  EXPECT_EQ(fnuz[4], 1.0f);
  EXPECT_EQ(fnuz[5], 240.0f);
}

}  // namespace
