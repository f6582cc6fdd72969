// kernels/gs_device.h in host mode: the bf16/fp16 conversions the kernels and the probes share,
// bit for bit against known encodings (ties to even, NaN, infinities, subnormals), against an
// independent rounding written here, and against GCC's _Float16 where the compiler has it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/gs_device.h"

namespace {

float f32(uint32_t bits) { return gs_bits_f32(bits); }

TEST(GsDeviceBf16, KnownEncodings) {
  EXPECT_EQ(gs_f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(gs_f32_to_bf16(-2.0f), 0xc000);
  EXPECT_EQ(gs_f32_to_bf16(0.0f), 0x0000);
  EXPECT_EQ(gs_f32_to_bf16(-0.0f), 0x8000);
  EXPECT_EQ(gs_f32_to_bf16(f32(0x3f807fff)), 0x3f80);  // just below half an ulp: down
  EXPECT_EQ(gs_f32_to_bf16(f32(0x3f808001)), 0x3f81);  // just above: up
}

TEST(GsDeviceBf16, TiesGoToEven) {
  EXPECT_EQ(gs_f32_to_bf16(f32(0x3f808000)), 0x3f80);  // between 3f80 (even) and 3f81
  EXPECT_EQ(gs_f32_to_bf16(f32(0x3f818000)), 0x3f82);  // between 3f81 and 3f82 (even)
  EXPECT_EQ(gs_f32_to_bf16(f32(0xbf818000)), 0xbf82);  // sign does not change the rule
}

TEST(GsDeviceBf16, InfinityOverflowAndNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(gs_f32_to_bf16(inf), 0x7f80);
  EXPECT_EQ(gs_f32_to_bf16(-inf), 0xff80);
  EXPECT_EQ(gs_f32_to_bf16(f32(0x7f7fffff)), 0x7f80);  // FLT_MAX is past the last bf16 tie: inf
  EXPECT_EQ(gs_f32_to_bf16(f32(0x7f7f7fff)), 0x7f7f);  // below it: the largest finite bf16
  EXPECT_EQ(gs_f32_to_bf16(f32(0x7fc00000)), 0x7fc0);
  EXPECT_EQ(gs_f32_to_bf16(f32(0x7f800001)), 0x7fc0);  // signalling NaN: quiet, not infinity
  EXPECT_EQ(gs_f32_to_bf16(f32(0xffc00001)), 0xffc0);  // sign kept
  EXPECT_TRUE(std::isnan(gs_bf16_to_f32(0x7fc1)));
  EXPECT_EQ(gs_bf16_to_f32(0xff80), -inf);
}

TEST(GsDeviceBf16, Subnormals) {
  EXPECT_EQ(gs_f32_to_bf16(f32(0x00010000)), 0x0001);  // smallest bf16 subnormal, exact
  EXPECT_EQ(gs_f32_to_bf16(f32(0x00000001)), 0x0000);  // far below half of it
  EXPECT_EQ(gs_f32_to_bf16(f32(0x00008000)), 0x0000);  // exactly half: tie to even 0
  EXPECT_EQ(gs_f32_to_bf16(f32(0x00018000)), 0x0002);  // 1.5 ulp: tie to even 2
  EXPECT_EQ(gs_f32_to_bf16(f32(0x007fffff)), 0x0080);  // largest f32 subnormal rounds into normal
  EXPECT_EQ(gs_f32_bits(gs_bf16_to_f32(0x0001)), 0x00010000u);
}

TEST(GsDeviceBf16, EveryPatternRoundTrips) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    float f = gs_bf16_to_f32(uint16_t(h));
    EXPECT_EQ(gs_f32_bits(f), h << 16) << std::hex << h;  // widening is exact
    if (!std::isnan(f)) {
      EXPECT_EQ(gs_f32_to_bf16(f), h) << std::hex << h;
    }
  }
}

// Independent rounding: the two neighbouring bf16 values, pick the nearer in double arithmetic,
// the even one on a tie.
uint16_t bf16_by_distance(float f) {
  uint32_t u = gs_f32_bits(f);
  uint16_t lo = uint16_t(u >> 16), hi = uint16_t(lo + 1);
  double d = f, dlo = gs_bf16_to_f32(lo);
  double dhi = (hi & 0x7fff) == 0x7f80 ? std::ldexp(std::copysign(1.0, d), 128) : double(gs_bf16_to_f32(hi));
  double elo = std::fabs(d - dlo), ehi = std::fabs(dhi - d);
  if (elo < ehi) return lo;
  if (ehi < elo) return hi;
  return (lo & 1) ? hi : lo;
}

TEST(GsDeviceBf16, MatchesRoundingByDistanceOnRandomFloats) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000000; ++i) {
    uint32_t u = rng();
    float f = f32(u);
    if (std::isnan(f) || std::isinf(f)) continue;
    ASSERT_EQ(gs_f32_to_bf16(f), bf16_by_distance(f)) << std::hex << u;
  }
}

TEST(GsDeviceF16, KnownEncodings) {
  EXPECT_EQ(gs_f32_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(gs_f32_to_f16(-2.0f), 0xc000);
  EXPECT_EQ(gs_f32_to_f16(0.1f), 0x2e66);
  EXPECT_EQ(gs_f32_to_f16(-0.0f), 0x8000);
  EXPECT_EQ(gs_f32_to_f16(65504.0f), 0x7bff);
  EXPECT_FLOAT_EQ(gs_f16_to_f32(0x3555), 0.333251953125f);
}

TEST(GsDeviceF16, TiesGoToEven) {
  EXPECT_EQ(gs_f32_to_f16(f32(0x3f801000)), 0x3c00);  // 1 + 2^-11: between 3c00 (even) and 3c01
  EXPECT_EQ(gs_f32_to_f16(f32(0x3f803000)), 0x3c02);  // 1 + 3 * 2^-11: to 3c02 (even)
  EXPECT_EQ(gs_f32_to_f16(f32(0x3f801001)), 0x3c01);  // a hair above the tie: up
}

TEST(GsDeviceF16, OverflowInfinityAndNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(gs_f32_to_f16(f32(0x477fefff)), 0x7bff);  // just under 65520: 65504
  EXPECT_EQ(gs_f32_to_f16(f32(0x477ff000)), 0x7c00);  // 65520 ties to even: infinity
  EXPECT_EQ(gs_f32_to_f16(1e10f), 0x7c00);
  EXPECT_EQ(gs_f32_to_f16(-inf), 0xfc00);
  EXPECT_EQ(gs_f32_to_f16(f32(0x7fc00000)), 0x7e00);
  EXPECT_EQ(gs_f32_to_f16(f32(0x7f800001)), 0x7e00);  // signalling NaN: quiet, not infinity
  EXPECT_EQ(gs_f32_to_f16(f32(0xffc00000)), 0xfe00);
  EXPECT_EQ(gs_f16_to_f32(0x7c00), inf);
  EXPECT_EQ(gs_f16_to_f32(0xfc00), -inf);
  EXPECT_EQ(gs_f32_bits(gs_f16_to_f32(0x7e00)), 0x7fc00000u);
}

TEST(GsDeviceF16, Subnormals) {
  EXPECT_EQ(gs_f32_to_f16(f32(0x33800000)), 0x0001);  // 2^-24, the smallest subnormal
  EXPECT_EQ(gs_f32_to_f16(f32(0x33000000)), 0x0000);  // 2^-25: tie between 0 and 1, to 0
  EXPECT_EQ(gs_f32_to_f16(f32(0x33000001)), 0x0001);  // above the tie
  EXPECT_EQ(gs_f32_to_f16(f32(0x33c00000)), 0x0002);  // 1.5 * 2^-24: tie between 1 and 2, to 2
  EXPECT_EQ(gs_f32_to_f16(f32(0x387fc000)), 0x03ff);  // largest subnormal, exact
  EXPECT_EQ(gs_f32_to_f16(f32(0x387fe000)), 0x0400);  // 1023.5 * 2^-24 ties up into 2^-14
  EXPECT_EQ(gs_f32_to_f16(f32(0x38800000)), 0x0400);  // 2^-14, the smallest normal
  EXPECT_EQ(gs_f32_to_f16(f32(0x00000001)), 0x0000);  // f32 subnormal: far below fp16's range
  EXPECT_EQ(gs_f32_to_f16(f32(0x80000001)), 0x8000);
  EXPECT_EQ(gs_f32_bits(gs_f16_to_f32(0x0001)), 0x33800000u);
  EXPECT_EQ(gs_f32_bits(gs_f16_to_f32(0x03ff)), 0x387fc000u);
  EXPECT_EQ(gs_f32_bits(gs_f16_to_f32(0x8000)), 0x80000000u);
}

TEST(GsDeviceF16, EveryPatternRoundTrips) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    float f = gs_f16_to_f32(uint16_t(h));
    if (std::isnan(f)) continue;
    EXPECT_EQ(gs_f32_to_f16(f), h) << std::hex << h;
  }
}

#if defined(__FLT16_MAX__)
// GCC's _Float16 conversion (libgcc / F16C) is correctly rounded: an independent oracle.
TEST(GsDeviceF16, MatchesCompilerFloat16) {
  std::mt19937 rng(11);
  auto compiler = [](float f) {
    _Float16 h = (_Float16)f;
    uint16_t u;
    std::memcpy(&u, &h, 2);
    return u;
  };
  for (int i = 0; i < 2000000; ++i) {
    // Half the samples uniform over all bit patterns, half in fp16's own range where rounding bites.
    uint32_t u = (i & 1) ? rng() : (0x33000000u + rng() % (0x47800000u - 0x33000000u)) | (rng() & 0x80000000u);
    float f = f32(u);
    if (std::isnan(f)) continue;
    ASSERT_EQ(gs_f32_to_f16(f), compiler(f)) << std::hex << u;
  }
}
#endif

}  // namespace
