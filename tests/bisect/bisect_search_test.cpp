// The search of gpustack bisect (src/bisect/bisect_search.h) on lines whose truth the test knows.
#include "bisect/bisect_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace gs {
namespace {

using K = bisect_answer::kind;
constexpr auto G = trial_verdict::good;
constexpr auto B = trial_verdict::bad;
constexpr auto S = trial_verdict::skip;

/// Runs the search to its end against `truth`, returning the tries in order.
std::vector<size_t> search(const std::vector<trial_verdict>& truth, bisect_line& line) {
  line.assign(truth.size(), std::nullopt);
  std::vector<size_t> order;
  while (auto i = next_to_try(line)) {
    EXPECT_FALSE(line[*i].has_value()) << "index " << *i << " tried twice";
    if (line[*i]) break;
    line[*i] = truth[*i];
    order.push_back(*i);
  }
  return order;
}

TEST(BisectSearch, BothEndsFirstThenTheMiddle) {
  bisect_line line(9);
  EXPECT_EQ(next_to_try(line), 0u);
  line[0] = G;
  EXPECT_EQ(next_to_try(line), 8u);
  line[8] = B;
  EXPECT_EQ(next_to_try(line), 4u);
  line[4] = B;
  EXPECT_EQ(next_to_try(line), 2u);
}

TEST(BisectSearch, FindsEveryBoundaryOfAMonotonicLineInLogarithmicTries) {
  for (size_t n = 2; n <= 40; ++n)
    for (size_t first_bad = 1; first_bad < n; ++first_bad) {
      std::vector<trial_verdict> truth(n, G);
      for (size_t i = first_bad; i < n; ++i) truth[i] = B;
      bisect_line line;
      std::vector<size_t> order = search(truth, line);
      bisect_answer a = conclude(line);
      ASSERT_EQ(a.what, K::found) << "n " << n << " first bad " << first_bad;
      EXPECT_EQ(a.first_bad, first_bad);
      EXPECT_EQ(a.last_good, first_bad - 1);
      // Two ends plus ceil(log2(n - 1)) halvings of the window between them.
      EXPECT_LE(order.size(), 2 + size_t(std::ceil(std::log2(double(n - 1))))) << "n " << n;
    }
}

TEST(BisectSearch, SkipsAreSteppedAroundAndAnAnswerTheyHideListsTheCandidates) {
  // good good skip skip bad bad bad: the boundary is at 2, 3 or 4 and cannot be told.
  std::vector<trial_verdict> truth{G, G, S, S, B, B, B};
  bisect_line line;
  search(truth, line);
  bisect_answer a = conclude(line);
  ASSERT_EQ(a.what, K::hidden);
  EXPECT_EQ(a.last_good, 1u);
  EXPECT_EQ(a.first_bad, 4u);
  EXPECT_EQ(a.candidates, (std::vector<size_t>{2, 3, 4}));
  EXPECT_EQ(a.skipped, 2u);
  // A skip away from the boundary costs a try but not the answer.
  std::vector<trial_verdict> far{G, S, G, G, G, B, B};
  search(far, line);
  a = conclude(line);
  ASSERT_EQ(a.what, K::found);
  EXPECT_EQ(a.first_bad, 5u);
}

TEST(BisectSearch, EndsThatAreNotWhatTheySayStopTheSearchAndSayWhich) {
  bisect_line line;
  search({B, B, B, B}, line);
  EXPECT_EQ(conclude(line).what, K::good_end_bad);
  EXPECT_EQ(line[1], std::nullopt) << "nothing in between is tried once the good end is bad";
  search({G, G, G, G}, line);
  EXPECT_EQ(conclude(line).what, K::bad_end_good);
  search({S, G, B}, line);
  EXPECT_EQ(conclude(line).what, K::end_untestable);
  search({G, B, S}, line);
  EXPECT_EQ(conclude(line).what, K::end_untestable);
  EXPECT_EQ(conclude(bisect_line(1)).what, K::empty);
  EXPECT_EQ(conclude(bisect_line(3)).what, K::searching);
}

TEST(BisectSearch, AGoodResultAfterTheFirstBadIsReportedNotHidden) {
  // A flaky or non-monotonic probe: bad at 2, good again at 4. The boundary is the first bad after
  // the last good before it; the good one beyond is named.
  bisect_line line{G, std::nullopt, B, std::nullopt, G, std::nullopt, B};
  line[1] = G;
  line[3] = B;
  line[5] = B;
  bisect_answer a = conclude(line);
  ASSERT_EQ(a.what, K::found);
  EXPECT_EQ(a.first_bad, 2u);
  EXPECT_EQ(a.out_of_order, (std::vector<size_t>{4}));
}

TEST(BisectSearch, RandomLinesWithSkipsAlwaysEndWithABoundaryConsistentWithTheTruth) {
  std::mt19937 rng(20261205);
  for (int round = 0; round < 2000; ++round) {
    size_t n = 2 + rng() % 30, first_bad = 1 + rng() % (n - 1);
    std::vector<trial_verdict> truth(n);
    for (size_t i = 0; i < n; ++i) truth[i] = i < first_bad ? G : B;
    for (size_t i = 1; i + 1 < n; ++i)
      if (rng() % 4 == 0) truth[i] = S;
    bisect_line line;
    search(truth, line);
    bisect_answer a = conclude(line);
    ASSERT_TRUE(a.what == K::found || a.what == K::hidden) << to_string(a.what);
    if (a.what == K::found) EXPECT_EQ(a.first_bad, first_bad);
    else EXPECT_NE(std::find(a.candidates.begin(), a.candidates.end(), first_bad), a.candidates.end());
  }
}

TEST(BisectSearch, TheEstimateNeverUndercountsWhatIsLeft) {
  std::vector<trial_verdict> truth(17, G);
  for (size_t i = 11; i < 17; ++i) truth[i] = B;
  bisect_line line(17);
  size_t tries = 0;
  const size_t first_estimate = remaining_estimate(line);
  while (auto i = next_to_try(line)) {
    line[*i] = truth[*i];
    ++tries;
  }
  EXPECT_LE(tries, first_estimate);
  EXPECT_EQ(remaining_estimate(line), 0u);
}

}  // namespace
}  // namespace gs
