// probes/verify: the output checks every kernel probe relies on, fired and not fired.
#include "probes/verify.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

const float inf = std::numeric_limits<float>::infinity();
const float nan = std::numeric_limits<float>::quiet_NaN();

TEST(Verify, EqualArraysPass) {
  std::vector<float> a = {1, -2, inf, -inf, nan, 0};
  gs::f32_check c = gs::check_f32(a, a, gs::tolerance{0, 0});
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.checked, 6u);
  EXPECT_EQ(c.max_abs_err, 0.0);
  EXPECT_NE(c.describe().find("all 6"), std::string::npos);
}

TEST(Verify, ToleranceIsAbsPlusRelTimesWant) {
  std::vector<float> want = {100, 1}, got = {100.5f, 1.5f};
  EXPECT_TRUE(gs::check_f32(got, want, gs::tolerance{0.5, 0}).ok());
  EXPECT_FALSE(gs::check_f32(got, want, gs::tolerance{0.4, 0}).ok());
  gs::f32_check c = gs::check_f32(got, want, gs::tolerance{0, 0.01});  // 1.0 and 0.01
  EXPECT_EQ(c.bad, 1u);
  EXPECT_EQ(c.first_bad, 1);
  EXPECT_DOUBLE_EQ(c.max_rel_err, 0.5);
}

TEST(Verify, NaNAndInfinityMustMatchExactly) {
  std::vector<float> want = {nan, inf, 1, 1};
  std::vector<float> got = {1, -inf, nan, inf};
  gs::f32_check c = gs::check_f32(got, want, gs::tolerance{1e30, 0});  // no tolerance rescues these
  EXPECT_EQ(c.bad, 4u);
  EXPECT_EQ(c.nan_mismatch, 4u);
}

TEST(Verify, UnwrittenElementsAreCountedApart) {
  std::vector<float> want = {1, 2, 3}, got = {1, from_bits(gs::unwritten_bits), 3};
  gs::f32_check c = gs::check_f32(got, want, gs::tolerance{1e30, 0});
  EXPECT_EQ(c.bad, 1u);
  EXPECT_EQ(c.unwritten, 1u);
  EXPECT_NE(c.describe().find("never written"), std::string::npos);
}

TEST(Verify, PerElementBounds) {
  std::vector<float> want = {1, 1}, got = {1.1f, 1.1f};
  std::vector<double> bound = {0.2, 0.05};
  gs::f32_check c = gs::check_f32(got, want, bound);
  EXPECT_EQ(c.bad, 1u);
  EXPECT_EQ(c.first_bad, 1);
}

TEST(Verify, LengthMismatchIsBad) {
  std::vector<float> want = {1, 2, 3}, got = {1, 2};
  EXPECT_EQ(gs::check_f32(got, want, gs::tolerance{0, 0}).bad, 1u);
  EXPECT_EQ(gs::check_bits(got, want).bad, 1u);
}

TEST(Verify, BitsComparesPatternsNotValues) {
  std::vector<float> want = {0.0f, nan}, got = {-0.0f, nan};
  gs::f32_check c = gs::check_bits(got, want);
  EXPECT_EQ(c.bad, 1u);  // -0 == 0 as values, but a copy must keep the sign bit
  EXPECT_EQ(c.first_bad, 0);
  EXPECT_TRUE(gs::check_bits(want, want).ok());
}

}  // namespace
