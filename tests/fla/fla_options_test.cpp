// --stages and --backends parsing for `gpustack probe fla`.
#include <gtest/gtest.h>

#include "fla/fla_options.h"

namespace gs {
namespace {

std::vector<int> stages(const char* s) {
  std::string why;
  auto r = parse_stage_range(s, &why);
  EXPECT_TRUE(r.has_value()) << s << ": " << why;
  return r.value_or(std::vector<int>{});
}

std::string stage_error(const char* s) {
  std::string why;
  EXPECT_FALSE(parse_stage_range(s, &why).has_value()) << s;
  return why;
}

TEST(FlaStageRange, Forms) {
  EXPECT_EQ(stages("1..4"), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(stages("2"), (std::vector<int>{2}));
  EXPECT_EQ(stages("1,3"), (std::vector<int>{1, 3}));
  EXPECT_EQ(stages("3,1,3"), (std::vector<int>{1, 3}));  // sorted, distinct
  EXPECT_EQ(stages("1..2,4"), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(stages("8"), (std::vector<int>{8}));
  EXPECT_EQ(stages("3..3"), (std::vector<int>{3}));
}

TEST(FlaStageRange, ErrorsSayWhy) {
  EXPECT_NE(stage_error("0").find("outside 1..8"), std::string::npos);
  EXPECT_NE(stage_error("9").find("outside"), std::string::npos);
  EXPECT_NE(stage_error("1..9").find("outside"), std::string::npos);
  EXPECT_NE(stage_error("4..1").find("backwards"), std::string::npos);
  EXPECT_NE(stage_error("1..").find("not a stage"), std::string::npos);
  EXPECT_NE(stage_error("a").find("not a stage"), std::string::npos);
  EXPECT_NE(stage_error("1,,2").find("not a stage"), std::string::npos);
  EXPECT_NE(stage_error("-1").find("outside"), std::string::npos);
  EXPECT_NE(stage_error("").find("empty"), std::string::npos);
  EXPECT_NE(stage_error("1...3").find("not a stage"), std::string::npos);
}

TEST(FlaBackends, SubsetInRunOrder) {
  std::string why;
  EXPECT_EQ(*parse_backends("fla,native", &why), (std::vector<std::string>{"native", "fla"}));
  EXPECT_EQ(*parse_backends("triton", &why), (std::vector<std::string>{"triton"}));
  EXPECT_EQ(*parse_backends("native,triton,fla", &why), fla_all_backends());
  EXPECT_FALSE(parse_backends("native,cuda", &why).has_value());
  EXPECT_NE(why.find("unknown backend 'cuda'"), std::string::npos) << why;
  EXPECT_FALSE(parse_backends("", &why).has_value());
}

TEST(FlaSettings, DefaultsAreAQwen35LinearAttentionLayer) {
  fla_settings s;
  EXPECT_EQ(s.shape.H, 16);   // linear_num_key_heads
  EXPECT_EQ(s.shape.HV, 32);  // linear_num_value_heads (Qwen3_5TextConfig default)
  EXPECT_EQ(s.shape.K, 128);
  EXPECT_EQ(s.shape.V, 128);
  EXPECT_EQ(s.shape.B, 2);
  EXPECT_EQ(s.shape.T, 4096);
  EXPECT_EQ(s.stages, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(s.shape.invalid(), "");
}

}  // namespace
}  // namespace gs
