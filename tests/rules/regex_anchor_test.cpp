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

TEST(RegexAnchors, EveryCorpusLineARuleMatchesHoldsAnAnchor) {
  size_t checked = 0;
  for (const rule& r : builtin_knowledge_base().rules())
    for (const auto* list : {&r.match_text, &r.match_requires, &r.match_excludes})
      for (const text_pattern& p : *list) {
        if (!p.re || p.anchors.empty()) continue;
        for (const gs::testing::corpus_case& c : gs::testing::corpus_cases()) {
          size_t pos = 0;
          while (pos < c.text.size()) {
            size_t end = c.text.find('\n', pos);
            if (end == std::string::npos) end = c.text.size();
            std::string line = c.text.substr(pos, end - pos);
            if (std::regex_search(line, *p.re)) {
              ++checked;
              std::string lower = line;
              for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
              bool held = false;
              for (const std::string& a : p.anchors) held = held || lower.find(a) != std::string::npos;
              EXPECT_TRUE(held) << r.id << " /" << p.text << "/ matched a line without its anchors: " << line;
            }
            pos = end + 1;
          }
        }
      }
  EXPECT_GT(checked, 100u);
}

}  // namespace
}  // namespace gs
