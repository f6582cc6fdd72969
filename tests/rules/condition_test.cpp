// The small matchers conditions use: globs (arch patterns), sizes, template parsing.
#include <gtest/gtest.h>

#include "rules/condition.h"
#include "rules/text_template.h"

namespace gs {
namespace {

TEST(Glob, ArchPatterns) {
  EXPECT_TRUE(glob_match("gfx12*", "gfx1201"));
  EXPECT_TRUE(glob_match("gfx12*", "gfx12"));
  EXPECT_FALSE(glob_match("gfx12*", "gfx1100"));
  EXPECT_TRUE(glob_match("gfx1[0-2]*", "gfx1030"));
  EXPECT_TRUE(glob_match("gfx1[0-2]*", "gfx1201"));
  EXPECT_FALSE(glob_match("gfx1[0-2]*", "gfx90a"));
  EXPECT_FALSE(glob_match("gfx1[0-2]*", "gfx1"));
  EXPECT_TRUE(glob_match("gfx1[!3-9]0?", "gfx1100"));
  EXPECT_FALSE(glob_match("gfx1[!0-2]0?", "gfx1100"));
  EXPECT_TRUE(glob_match("sm_90*", "sm_90a"));
  EXPECT_TRUE(glob_match("AMD", "amd"));  // case-insensitive
  EXPECT_FALSE(glob_match("amd", "amdx"));
  EXPECT_TRUE(glob_match("*kfd*", "/sys/class/kfd/kfd/topology/nodes/2/properties"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_FALSE(glob_match("?", ""));
  EXPECT_TRUE(glob_match("a*b*c", "aXXbYYc"));
  EXPECT_FALSE(glob_match("a*b*c", "aXXbYY"));
  EXPECT_TRUE(glob_match("[", "["));  // an unclosed class is a literal '['
  EXPECT_TRUE(glob_match("x[]]y", "x]y"));
}

TEST(Glob, StaysLinearOnPathologicalPatterns) {
  std::string text(5000, 'a');
  std::string pattern;
  for (int i = 0; i < 30; ++i) pattern += "*a";
  pattern += "b";
  EXPECT_FALSE(glob_match(pattern, text));
}

TEST(Size, UnitsAreBinaryOrDecimalAsWritten) {
  EXPECT_EQ(parse_size("16GiB"), 16.0 * (1ull << 30));
  EXPECT_EQ(parse_size("512 MiB"), 512.0 * (1 << 20));
  EXPECT_EQ(parse_size("1.5TB"), 1.5e12);
  EXPECT_EQ(parse_size("4096"), 4096.0);
  EXPECT_EQ(parse_size("2 kb"), 2000.0);
  EXPECT_FALSE(parse_size("lots").has_value());
  EXPECT_FALSE(parse_size("16 GiBs").has_value());
  EXPECT_FALSE(parse_size("-1GiB").has_value());
  EXPECT_FALSE(parse_size("").has_value());
}

TEST(Template, SplitsLiteralsAndFacts) {
  text_template t;
  std::string err;
  size_t off = 0;
  ASSERT_TRUE(parse_template("{a.b}={c.d:gib} {{x}}", t, err, off)) << err;
  ASSERT_EQ(t.pieces.size(), 4u);
  EXPECT_TRUE(t.pieces[0].is_fact);
  EXPECT_EQ(t.pieces[0].text, "a.b");
  EXPECT_EQ(t.pieces[1].text, "=");
  EXPECT_EQ(t.pieces[2].format, "gib");
  EXPECT_EQ(t.pieces[3].text, " {x}");
  EXPECT_FALSE(parse_template("a {b", t, err, off));
  EXPECT_EQ(off, 2u);
  EXPECT_FALSE(parse_template("a } b", t, err, off));
  EXPECT_FALSE(parse_template("{}", t, err, off));
  EXPECT_FALSE(parse_template("{a:hex}", t, err, off));
}

}  // namespace
}  // namespace gs
