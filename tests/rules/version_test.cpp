// The version module: PEP 440 parsing and order, the lenient parse for system versions, and
// specifier-set ranges as rules use them.
#include "core/version.h"

#include <gtest/gtest.h>

namespace gs {
namespace {

version V(const char* s) {
  auto v = version::parse(s);
  EXPECT_TRUE(v.has_value()) << s;
  return v.value_or(version{});
}

bool in(const char* range, const char* v) {
  std::string err;
  auto r = version_range::parse(range, &err);
  EXPECT_TRUE(r.has_value()) << range << ": " << err;
  return r && r->contains(V(v));
}

TEST(Version, ParsesThePep440FormsTheStackUses) {
  version t = V("2.11.0+rocm7.2");
  EXPECT_EQ(t.release, (std::vector<uint64_t>{2, 11, 0}));
  EXPECT_EQ(t.local, (std::vector<std::string>{"rocm7", "2"}));
  EXPECT_EQ(t.normalized(), "2.11.0+rocm7.2");

  version post = V("1.6.2.post1");
  ASSERT_TRUE(post.post.has_value());
  EXPECT_EQ(*post.post, 1u);

  version dev = V("2.9.0.dev20250101");
  ASSERT_TRUE(dev.dev.has_value());
  EXPECT_EQ(*dev.dev, 20250101u);
  EXPECT_TRUE(dev.is_prerelease());

  EXPECT_EQ(V("0.49.2").minor(), 49u);
  EXPECT_EQ(V("3.6.0").major(), 3u);
}

TEST(Version, RocmDashBuildIsAPep440PostRelease) {
  version r = V("7.2.0-43");
  EXPECT_EQ(r.release, (std::vector<uint64_t>{7, 2, 0}));
  ASSERT_TRUE(r.post.has_value());
  EXPECT_EQ(*r.post, 43u);
  EXPECT_GT(compare(r, V("7.2.0")), 0);
  EXPECT_LT(compare(r, V("7.2.1")), 0);
}

TEST(Version, NormalisesSpellings) {
  EXPECT_EQ(V("1.0-RC1").normalized(), "1.0rc1");
  EXPECT_EQ(V("v1.0alpha2").normalized(), "1.0a2");
  EXPECT_EQ(V("1.0.preview3").normalized(), "1.0rc3");
  EXPECT_EQ(V("1.0-rev4").normalized(), "1.0.post4");
  EXPECT_EQ(V("1.0.dev").normalized(), "1.0.dev0");
  EXPECT_EQ(V("1!2.0").normalized(), "1!2.0");
  EXPECT_EQ(V(" 3.6.0 ").normalized(), "3.6.0");
}

TEST(Version, LenientParseKeepsTheNumbersOfSystemVersions) {
  EXPECT_FALSE(version::parse_pep440("6.8.0-49-generic").has_value());
  version k = V("6.8.0-49-generic");
  EXPECT_EQ(k.release, (std::vector<uint64_t>{6, 8, 0}));
  EXPECT_EQ(V("580.159.04").release, (std::vector<uint64_t>{580, 159, 4}));
  EXPECT_EQ(V("6.4.43484-dd7f95766").release, (std::vector<uint64_t>{6, 4, 43484}));
  EXPECT_FALSE(version::parse("").has_value());
  EXPECT_FALSE(version::parse("rocm").has_value());
  EXPECT_FALSE(version::parse("none").has_value());
}

TEST(Version, OrdersLikePep440) {
  const char* ordered[] = {"1.0.dev1", "1.0a1.dev1", "1.0a1", "1.0b2", "1.0rc1", "1.0", "1.0.post1.dev1", "1.0.post1", "1.1"};
  for (size_t i = 0; i + 1 < std::size(ordered); ++i)
    EXPECT_LT(compare(V(ordered[i]), V(ordered[i + 1])), 0) << ordered[i] << " < " << ordered[i + 1];
  EXPECT_EQ(compare(V("7.2"), V("7.2.0")), 0);
  EXPECT_LT(compare(V("2.11.0"), V("2.11.0+rocm7.2")), 0);
  EXPECT_EQ(compare(V("2.11.0"), V("2.11.0+rocm7.2"), false), 0);
  EXPECT_LT(compare(V("1.0+abc"), V("1.0+5")), 0);  // numeric local segments sort above alphanumeric
  EXPECT_LT(compare(V("0.49.1"), V("0.49.10")), 0);
}

TEST(Version, HugeNumbersSaturateInsteadOfOverflowing) {
  version v = V("99999999999999999999999999.1");
  EXPECT_EQ(v.release[0], UINT64_MAX);
}

TEST(VersionRange, BoundsAndLists) {
  EXPECT_TRUE(in(">=3.4.0,<3.7.1", "3.6.0"));
  EXPECT_TRUE(in(">=3.4.0,<3.7.1", "3.4.0"));
  EXPECT_FALSE(in(">=3.4.0,<3.7.1", "3.7.1"));
  EXPECT_FALSE(in(">=3.4.0,<3.7.1", "3.3.9"));
  EXPECT_TRUE(in(" >= 3.4.0 , < 3.7.1 ", "3.5.1"));
  EXPECT_TRUE(in("<=0.48.99", "0.48.2"));
  EXPECT_TRUE(in(">7.1", "7.2.0"));
  EXPECT_TRUE(in("!=2.9.0", "2.9.1"));
  EXPECT_FALSE(in("!=2.9.0", "2.9.0+rocm6.4"));
}

TEST(VersionRange, LocalLabelsAreIgnoredUnlessTheClauseHasOne) {
  EXPECT_TRUE(in("==2.11.0", "2.11.0+rocm7.2"));
  EXPECT_TRUE(in(">=2.11", "2.11.0+rocm7.2"));
  EXPECT_TRUE(in("==2.11.0+rocm7.2", "2.11.0+rocm7.2"));
  EXPECT_FALSE(in("==2.11.0+rocm7.1", "2.11.0+rocm7.2"));
  EXPECT_TRUE(in("==3.6.0", "3.6.0+rocm7.2.0"));
}

TEST(VersionRange, WildcardsAndCompatibleRelease) {
  EXPECT_TRUE(in("==3.6.*", "3.6.2"));
  EXPECT_TRUE(in("==3.6.*", "3.6"));
  EXPECT_FALSE(in("==3.6.*", "3.7.0"));
  EXPECT_TRUE(in("!=3.6.*", "3.5.1"));
  EXPECT_TRUE(in("~=0.49.0", "0.49.2"));
  EXPECT_FALSE(in("~=0.49.0", "0.50.0"));
  EXPECT_TRUE(in("~=2.2", "2.9"));
  EXPECT_FALSE(in("~=2.2", "3.0"));
  EXPECT_TRUE(in("3.6.0", "3.6.0"));  // a bare version is ==
  EXPECT_TRUE(in("===2.0+local", "2.0+LOCAL"));
}

TEST(VersionRange, PreReleasesAreInRangeButExclusiveBoundsKeepPep440Rules) {
  EXPECT_TRUE(in(">=2.8", "2.9.0.dev20250101"));  // installed nightly counts
  EXPECT_FALSE(in("<3.7.1", "3.7.1rc1"));          // not a pre-release of the bound itself
  EXPECT_TRUE(in("<3.7.1rc2", "3.7.1rc1"));
  EXPECT_FALSE(in(">1.7", "1.7.post2"));
  EXPECT_TRUE(in(">1.7.post1", "1.7.post2"));
  EXPECT_TRUE(in(">=1.7", "1.7.post2"));
}

TEST(VersionRange, RejectsMalformedRangesWithAReason) {
  for (const char* bad : {"", ">=", ">=3.4,", "=>3.4", ">=3.6.*", "~=3", "==3.6.0.*rc", ">=abc", "<2.0+local", ">=1.0 junk"}) {
    std::string err;
    EXPECT_FALSE(version_range::parse(bad, &err).has_value()) << bad;
    EXPECT_FALSE(err.empty()) << bad;
  }
}

}  // namespace
}  // namespace gs
