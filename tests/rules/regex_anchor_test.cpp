// regex_anchors: the literals the error-text matcher uses to skip lines before running a regex.
// Skipping is only safe if every line a regex matches holds one of its anchors: checked here on
// hand-made shapes and on every pattern of the built-in knowledge base against every line of the
// real-report corpus.
#include <gtest/gtest.h>

#include <regex>

#include "rules/error_findings.h"
#include "rules/rule.h"
#include "support/corpus.h"

namespace gs {
namespace {

using lines = std::vector<std::string>;

TEST(RegexAnchors, Shapes) {
  EXPECT_EQ(regex_anchors("tt\\.load.*destroyed"), (lines{"destroyed"}));
  EXPECT_EQ(regex_anchors("libbitsandbytes_rocm[89][0-9]\\.(so|dll)"), (lines{"libbitsandbytes_rocm"}));
  EXPECT_EQ(regex_anchors("Tried to allocate [0-9.]+ (MiB|GiB)"), (lines{"tried to allocate "}));
  EXPECT_EQ(regex_anchors("ggml[-_]cuda|ggml_backend_cuda"), (lines{"ggml", "ggml_backend_cuda"}));
  EXPECT_EQ(regex_anchors("colou?r"), (lines{"colo"}));        // the optional 'u' ends the literal
  EXPECT_EQ(regex_anchors("ab+cd"), (lines{"ab"}));            // "abbbcd": only "ab" is certain as written
  EXPECT_TRUE(regex_anchors("\\bx\\b|[a-z]+").empty());    // an alternative with no literal: try every line
  EXPECT_TRUE(regex_anchors("(foo|bar)").empty());         // a group alone: nothing outside it
}

// Every corpus line, split and lower-cased once for all shards.
struct corpus_line {
  std::string text, lower;
};
const std::vector<corpus_line>& corpus_lines() {
  static const std::vector<corpus_line> all = [] {
    std::vector<corpus_line> out;
    for (const gs::testing::corpus_case& c : gs::testing::corpus_cases()) {
      size_t pos = 0;
      while (pos < c.text.size()) {
        size_t end = c.text.find('\n', pos);
        if (end == std::string::npos) end = c.text.size();
        corpus_line l{c.text.substr(pos, end - pos), ""};
        l.lower = l.text;
        for (char& ch : l.lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        out.push_back(std::move(l));
        pos = end + 1;
      }
    }
    return out;
  }();
  return all;
}

// Sharded by rule (rule index mod kShards): every pattern against every corpus line is ~40
// million regex searches, several minutes under ASan for one test; shards keep each well
// inside ctest's timeout and let ctest run them side by side.
constexpr int kShards = 16;

class RegexAnchorShard : public ::testing::TestWithParam<int> {};

TEST_P(RegexAnchorShard, EveryCorpusLineARuleMatchesHoldsAnAnchor) {
  const std::vector<rule>& rules = builtin_knowledge_base().rules();
  for (size_t i = size_t(GetParam()); i < rules.size(); i += kShards) {
    const rule& r = rules[i];
    for (const auto* list : {&r.match_text, &r.match_requires, &r.match_excludes})
      for (const text_pattern& p : *list) {
        if (!p.re || p.anchors.empty()) continue;
        for (const corpus_line& l : corpus_lines()) {
          if (!std::regex_search(l.text, *p.re)) continue;
          bool held = false;
          for (const std::string& a : p.anchors) held = held || l.lower.find(a) != std::string::npos;
          EXPECT_TRUE(held) << r.id << " /" << p.text << "/ matched a line without its anchors: " << l.text;
        }
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Shards, RegexAnchorShard, ::testing::Range(0, kShards));

TEST(RegexAnchors, TheShardsHaveLinesToCheckAndPatternsThatMatchThem) {
  // The shards' property holds vacuously if nothing matches: the corpus must be there, and
  // anchored patterns must match some of its lines (stops at the first 20 matches).
  EXPECT_GT(corpus_lines().size(), 5000u);  // 9858 lines in 991 cases (2026-12-04)
  size_t matched = 0;
  for (const rule& r : builtin_knowledge_base().rules())
    for (const text_pattern& p : r.match_text) {
      if (!p.re || p.anchors.empty() || matched >= 20) continue;
      for (const corpus_line& l : corpus_lines())
        if (std::regex_search(l.text, *p.re) && ++matched >= 20) break;
    }
  EXPECT_GE(matched, 20u);
}

}  // namespace
}  // namespace gs
