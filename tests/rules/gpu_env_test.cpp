// libhsakmt's HSA_OVERRIDE_GFX_VERSION parse, the allocator-setting parser, and the
// visible-device mask walk.
#include <gtest/gtest.h>

#include "rules/alloc_conf.h"
#include "rules/gpu_env.h"

namespace gs {
namespace {

TEST(HsaOverride, DecodesLikeLibhsakmt) {
  EXPECT_EQ(hsa_override_gfx("12.0.1"), "gfx1201");
  EXPECT_EQ(hsa_override_gfx("12.0.0"), "gfx1200");
  EXPECT_EQ(hsa_override_gfx("11.0.0"), "gfx1100");
  EXPECT_EQ(hsa_override_gfx("10.3.0"), "gfx1030");
  EXPECT_EQ(hsa_override_gfx("9.4.2"), "gfx942");
  EXPECT_EQ(hsa_override_gfx("9.0.10"), "gfx90a");  // stepping is decimal in, hex out
  EXPECT_EQ(hsa_override_gfx(" 11.0.0"), "gfx1100"); // %u skips leading blanks
  EXPECT_EQ(hsa_override_gfx("+11.0.0"), "gfx1100");
}

TEST(HsaOverride, RejectsWhatMakesHsaInitFail) {
  for (const char* bad : {"", "11", "11.0", "gfx1201", "9.0.a", "11.0.0 ", "11.0.0\n", "11.0.0.0", "64.0.0",
                          "11.256.0", "11.0.256", "-1.0.0", "11..0", "11.0.x", "eleven"})
    EXPECT_FALSE(hsa_override_gfx(bad).has_value()) << '"' << bad << '"';
}

TEST(AllocConf, ParsesOptionByOption) {
  alloc_conf c = parse_alloc_conf("max_split_size_mb:512, garbage_collection_threshold:0.8,expandable_segments:True");
  ASSERT_EQ(c.options.size(), 3u);
  EXPECT_EQ(c.options[0].key, "max_split_size_mb");
  EXPECT_EQ(c.options[0].value, "512");
  EXPECT_EQ(c.max_split_size_mb, 512.0);
  EXPECT_EQ(c.garbage_collection_threshold, 0.8);
  EXPECT_EQ(c.expandable_segments, "True");
  EXPECT_TRUE(c.unknown.empty());
  EXPECT_TRUE(c.problems.empty());
}

TEST(AllocConf, KeepsListValuesWhole) {
  alloc_conf c = parse_alloc_conf("roundup_power2_divisions:[64:8,256:4,>:1],backend:native");
  ASSERT_EQ(c.options.size(), 2u);
  EXPECT_EQ(c.options[0].value, "[64:8,256:4,>:1]");
  EXPECT_EQ(c.backend, "native");
  EXPECT_TRUE(c.problems.empty());
}

TEST(AllocConf, FlagsUnknownOptionsAndValuesTorchRejects) {
  alloc_conf c = parse_alloc_conf("max_split_mb:512,expandable_segments:true,garbage_collection_threshold:1.5,max_split_size_mb:10");
  EXPECT_EQ(c.unknown, (std::vector<std::string>{"max_split_mb"}));
  ASSERT_EQ(c.problems.size(), 3u);
  EXPECT_NE(c.problems[0].find("True or False"), std::string::npos);
  EXPECT_NE(c.problems[1].find("(0.0, 1.0)"), std::string::npos);
  EXPECT_NE(c.problems[2].find("20 MiB"), std::string::npos);
}

TEST(AllocConf, MalformedSyntaxIsAProblemNotACrash) {
  EXPECT_FALSE(parse_alloc_conf("max_split_size_mb=512").problems.empty());
  EXPECT_FALSE(parse_alloc_conf("expandable_segments:").problems.empty());
  EXPECT_FALSE(parse_alloc_conf(",,").problems.empty());
  EXPECT_FALSE(parse_alloc_conf("roundup_power2_divisions:[64:8").problems.empty());
  EXPECT_FALSE(parse_alloc_conf("backend:native:x").problems.empty());
  EXPECT_TRUE(parse_alloc_conf("garbage_collection_threshold:0.8,").problems.empty());  // torch accepts it
  alloc_conf empty = parse_alloc_conf("");
  EXPECT_TRUE(empty.options.empty());
  EXPECT_TRUE(empty.problems.empty());
  // Whatever the bytes, the parser returns.
  std::string junk;
  for (int i = 0; i < 256; ++i) junk += static_cast<char>(i);
  parse_alloc_conf(junk);
}

TEST(AllocConf, KnowsBothCudaAndHipSpellings) {
  EXPECT_TRUE(parse_alloc_conf("release_lock_on_hipmalloc:True,pinned_use_hip_host_register:False").unknown.empty());
  EXPECT_TRUE(parse_alloc_conf("release_lock_on_cudamalloc:True,pinned_use_cuda_host_register:True").unknown.empty());
}

TEST(VisibleMask, CountsWhatSurvives) {
  EXPECT_EQ(apply_visible_mask("0,1", 2).visible, 2);
  EXPECT_EQ(apply_visible_mask("1", 2).visible, 1);
  EXPECT_EQ(apply_visible_mask(" 1 , 0 ", 2).visible, 2);
  EXPECT_EQ(apply_visible_mask("", 2).visible, 0);
  EXPECT_FALSE(apply_visible_mask("", 2).truncated);
  EXPECT_EQ(apply_visible_mask("GPU-8f2c", 1).visible, 1);
}

TEST(VisibleMask, TheFirstBadEntryEndsTheList) {
  mask_effect e = apply_visible_mask("0,5,1", 2);
  EXPECT_EQ(e.visible, 1);
  EXPECT_TRUE(e.truncated);
  EXPECT_EQ(e.dropped, "5");
  EXPECT_EQ(apply_visible_mask("-1", 2).visible, 0);
  EXPECT_TRUE(apply_visible_mask("-1", 2).truncated);
  EXPECT_EQ(apply_visible_mask("0,0", 2).visible, 1);  // a repeat ends the list too
  EXPECT_EQ(apply_visible_mask("1", 1).visible, 0);
  EXPECT_EQ(apply_visible_mask("abc,0", 2).visible, 0);
}

}  // namespace
}  // namespace gs
