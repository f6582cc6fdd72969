// The range a bisection searches (src/bisect/bisect_versions.h): from the listing the helper
// prints, cut between --good and --bad, with pre-releases, yanked and uninstallable releases
// handled as docs/bisect.md says.
#include "bisect/bisect_versions.h"

#include <gtest/gtest.h>

namespace gs {
namespace {

version_listing listing() {
  // PyPI's triton releases as bisect_index.py printed them on 2026-12-05, out of order and with
  // made-up pre-release, yanked and wheel-less entries around them.
  nlohmann::json j = {{"source", "index"},
                      {"locations", {"https://pypi.org/simple"}},
                      {"links", {{"releases", "https://github.com/triton-lang/triton/releases"}}},
                      {"versions",
                       {{{"version", "3.5.0"}, {"uploaded", "2025-10-13T16:37:49Z"}},
                        {{"version", "3.4.0"}},
                        {{"version", "3.6.0"}},
                        {{"version", "3.5.1"}},
                        {{"version", "3.6.0rc1"}},
                        {{"version", "3.5.2"}, {"yanked", true}},
                        {{"version", "3.4.1"}, {"installable", false}, {"why_not", "no wheel for this Python and platform"}},
                        {{"version", "3.7.0"}},
                        {{"version", "not-a-version"}}}}};
  std::string why;
  auto l = parse_version_listing(j, &why);
  EXPECT_TRUE(l) << why;
  return *l;
}

std::vector<std::string> versions(const std::vector<listed_version>& l) {
  std::vector<std::string> out;
  for (const auto& v : l) out.push_back(v.version);
  return out;
}

TEST(BisectVersions, ARegressionRangeIsAscendingWithoutPreReleasesYankedOrUninstallable) {
  std::string why;
  auto r = select_range(listing(), "3.4.0", "3.6.0", false, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_FALSE(r->descending);
  EXPECT_EQ(versions(r->line), (std::vector<std::string>{"3.4.0", "3.5.0", "3.5.1", "3.6.0"}));
  EXPECT_EQ(versions(r->left_out), (std::vector<std::string>{"3.4.1"}));
  EXPECT_EQ(r->left_out[0].why_not, "no wheel for this Python and platform");
  EXPECT_EQ(r->prereleases_left_out, 1u);
  EXPECT_EQ(r->yanked_left_out, 1u);
  EXPECT_EQ(r->line[1].uploaded, "2025-10-13T16:37:49Z");
}

TEST(BisectVersions, AGoodEndNewerThanTheBadEndSearchesForTheFixDescending) {
  std::string why;
  auto r = select_range(listing(), "3.7.0", "3.6.0", false, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_TRUE(r->descending);
  EXPECT_EQ(versions(r->line), (std::vector<std::string>{"3.7.0", "3.6.0"}));
}

TEST(BisectVersions, PreReleasesComeInWithPreOrWhenAnEndIsOne) {
  std::string why;
  auto r = select_range(listing(), "3.5.1", "3.6.0", true, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(versions(r->line), (std::vector<std::string>{"3.5.1", "3.6.0rc1", "3.6.0"}));
  r = select_range(listing(), "3.5.1", "3.6.0rc1", false, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(versions(r->line), (std::vector<std::string>{"3.5.1", "3.6.0rc1"}));
}

TEST(BisectVersions, EndsAreComparedAsVersionsAndAMissingOneNamesItsNeighbours) {
  std::string why;
  auto r = select_range(listing(), "3.4", "3.6", false, &why);  // 3.4 == 3.4.0 in PEP 440
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->line.front().version, "3.4.0");
  EXPECT_FALSE(select_range(listing(), "3.4.0", "3.5.3", false, &why));
  EXPECT_EQ(why, "--bad: 3.5.3 is not a release in the listing (nearest: 3.5.2, 3.6.0rc1)");
  EXPECT_FALSE(select_range(listing(), "2.0", "3.6.0", false, &why));
  EXPECT_EQ(why, "--good: 2.0 is not a release in the listing (nearest: 3.4.0)");
  EXPECT_FALSE(select_range(listing(), "3.5.0", "3.5.0", false, &why));
  EXPECT_NE(why.find("the same release"), std::string::npos) << why;
  EXPECT_FALSE(select_range(listing(), "three", "3.5.0", false, &why));
  EXPECT_EQ(why, "--good: 'three' is not a version (PEP 440)");
}

TEST(BisectVersions, AListingWithoutVersionsIsRefused) {
  std::string why;
  EXPECT_FALSE(parse_version_listing({{"source", "index"}}, &why));
  EXPECT_NE(why.find("versions"), std::string::npos);
}

}  // namespace
}  // namespace gs
