// Loading errors: each names file:line:column exactly, and loading carries on past them.
#include <gtest/gtest.h>

#include "rules/kb_loader.h"
#include "rules/knowledge_base.h"
#include "rules/rule.h"

namespace gs {
namespace {

std::vector<std::string> load_errors(const std::string& text, size_t* rules_loaded = nullptr) {
  std::vector<kb_error> errors;
  knowledge_base kb = knowledge_base::load({{"t.toml", text}}, errors);
  if (rules_loaded) *rules_loaded = kb.size();
  std::vector<std::string> out;
  for (const kb_error& e : errors) out.push_back(e.to_string());
  return out;
}

// A valid rule to wrap test lines around; line 1 is `schema = 1`, the [[rule]] header line 2.
std::string rule_with(const std::string& extra_rule_lines, const std::string& when = "gpu.vendor = \"amd\"\n") {
  return "schema = 1\n"
         "[[rule]]\n"
         "id = \"GS-TEST-001\"\n"
         "severity = \"warn\"\n"
         "title = \"t\"\n"
         "evidence = \"e {gpu.arch}\"\n"
         "remediation = \"r\"\n" +
         extra_rule_lines + "[rule.when]\n" + when;
}

TEST(KbLoader, AValidRuleLoadsWithoutErrors) {
  size_t n = 0;
  EXPECT_TRUE(load_errors(rule_with(""), &n).empty());
  EXPECT_EQ(n, 1u);
}

TEST(KbLoader, MalformedTomlGivesTheParsePosition) {
  auto e = load_errors("schema = 1\n[[rule]\nid = \"GS-X-001\"\n");
  ASSERT_EQ(e.size(), 1u);
  // toml++ points at the character it choked on: the newline after "[[rule]" (column 8).
  EXPECT_EQ(e[0], "t.toml:2:8: TOML parse error: Error while parsing table header: expected ']', saw '\\n'");
}

TEST(KbLoader, MissingOrWrongSchema) {
  EXPECT_EQ(load_errors("[[rule]]\nid = \"GS-X-001\"\n"),
            (std::vector<std::string>{"t.toml:1:1: missing 'schema = 1' at the top of the file"}));
  EXPECT_EQ(load_errors("schema = 2\n"),
            (std::vector<std::string>{"t.toml:1:10: unsupported schema (this gpustack reads schema = 1)"}));
}

TEST(KbLoader, UnknownTopLevelAndRuleKeys) {
  auto e = load_errors("schema = 1\nrules = []\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("t.toml:2:1: unknown key 'rules' in the file's top level", 0), 0u) << e[0];

  e = load_errors(rule_with("severty = \"warn\"\n"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("t.toml:8:1: unknown key 'severty' in [[rule]] (known: id, severity,", 0), 0u) << e[0];
}

TEST(KbLoader, MissingRequiredKeyPointsAtTheRuleHeader) {
  auto e = load_errors("schema = 1\n\n[[rule]]\nid = \"GS-TEST-001\"\nseverity = \"warn\"\ntitle = \"t\"\nevidence = \"e\"\n"
                       "[rule.when]\ngpu.vendor = \"amd\"\n");
  EXPECT_EQ(e, (std::vector<std::string>{"t.toml:3:1: missing required key 'remediation'"}));
}

TEST(KbLoader, BadSeverityAndId) {
  std::string t = rule_with("");
  t.replace(t.find("\"warn\""), 6, "\"warning\"");
  EXPECT_EQ(load_errors(t), (std::vector<std::string>{"t.toml:4:12: bad severity 'warning' (info, warn or fail)"}));
  t = rule_with("");
  t.replace(t.find("GS-TEST-001"), 11, "GS-TEST-1");
  EXPECT_EQ(load_errors(t), (std::vector<std::string>{"t.toml:3:6: bad id 'GS-TEST-1' (GS-<AREA>-NNN, e.g. GS-ENV-001)"}));
}

TEST(KbLoader, UnknownConditionKeyIsAnErrorAtTheKey) {
  EXPECT_EQ(load_errors(rule_with("", "gpu.arhc = \"gfx12*\"\n")),
            (std::vector<std::string>{"t.toml:9:5: unknown fact 'gpu.arhc' (did you mean 'gpu.arch'?)"}));
  EXPECT_EQ(load_errors(rule_with("", "\"gpu.arhc\" = \"gfx12*\"\n")),
            (std::vector<std::string>{"t.toml:9:1: unknown fact 'gpu.arhc' (did you mean 'gpu.arch'?)"}));
  EXPECT_EQ(load_errors(rule_with("", "frobnicate = { set = true }\n")),
            (std::vector<std::string>{"t.toml:9:1: unknown fact 'frobnicate'"}));
  EXPECT_EQ(load_errors(rule_with("", "env.bad-name = { set = true }\n")),
            (std::vector<std::string>{"t.toml:9:5: unknown fact 'env.bad-name'"}));
}

TEST(KbLoader, BadVersionRangeAndRegexAtTheValue) {
  auto e = load_errors(rule_with("", "pkg.triton = \">=3.4,<\"\n"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "t.toml:9:14: bad version range for 'pkg.triton': missing version after the operator in '<'");
  e = load_errors(rule_with("", "env.X = { regex = \"(\" }\n"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("t.toml:9:19: bad regex for 'env.X': ", 0), 0u) << e[0];
  e = load_errors(rule_with("match_text = [{ regex = \"[\" }]\n"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("t.toml:8:25: bad regex: ", 0), 0u) << e[0];
}

TEST(KbLoader, OperatorsAreCheckedAgainstTheFactType) {
  EXPECT_EQ(load_errors(rule_with("", "gpu.wave_size = \"32\"\n")),
            (std::vector<std::string>{"t.toml:9:17: this value does not fit 'gpu.wave_size', a number fact; write an operator table such as { eq = ... }"}));
  EXPECT_EQ(load_errors(rule_with("", "gpu.arch = { lt = \"gfx1201\" }\n")),
            (std::vector<std::string>{"t.toml:9:19: 'gpu.arch' is a string fact; lt/le/gt/ge need a number or version fact"}));
  EXPECT_EQ(load_errors(rule_with("", "rocm.version = { lt = { fact = \"gpu.arch\" } }\n")),
            (std::vector<std::string>{"t.toml:9:32: cannot compare version fact 'rocm.version' with string fact 'gpu.arch'"}));
  EXPECT_EQ(load_errors(rule_with("", "host.ram_bytes = { lt = \"lots\" }\n")),
            (std::vector<std::string>{"t.toml:9:25: 'host.ram_bytes' is a number fact; this value does not fit it (use a number or a size like \"16GiB\")"}));
}

TEST(KbLoader, BadTemplatesAreErrors) {
  std::string t = rule_with("");
  t.replace(t.find("e {gpu.arch}"), 12, "e {gpu.arhc}");
  EXPECT_EQ(load_errors(t), (std::vector<std::string>{"t.toml:6:12: in evidence template: unknown fact 'gpu.arhc' (did you mean 'gpu.arch'?)"}));
  t = rule_with("");
  t.replace(t.find("e {gpu.arch}"), 12, "e {gpu.arch");
  EXPECT_EQ(load_errors(t), (std::vector<std::string>{"t.toml:6:12: bad evidence template: '{' without a closing '}'"}));
}

TEST(KbLoader, DuplicateIdsAcrossFilesNameTheFirst) {
  std::vector<kb_error> errors;
  knowledge_base kb = knowledge_base::load({{"a.toml", rule_with("")}, {"b.toml", rule_with("")}}, errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].to_string(), "b.toml:3:6: duplicate id 'GS-TEST-001' (first at a.toml:2)");
  EXPECT_EQ(kb.size(), 1u);
}

TEST(KbLoader, LoadingContinuesPastABadRuleAndCollectsEveryError) {
  std::string text = rule_with("", "gpu.arhc = \"x\"\n") +
                     "[[rule]]\nid = \"GS-TEST-002\"\nseverity = \"info\"\ntitle = \"ok\"\nevidence = \"e\"\nremediation = \"r\"\n"
                     "[rule.when]\ngpu.vendor = \"amd\"\n"
                     "[[rule]]\nid = \"GS-TEST-003\"\nseverity = \"bad\"\ntitle = \"t\"\nevidence = \"e\"\nremediation = \"r\"\n"
                     "when = { gpu.vendor = \"amd\" }\n";
  size_t n = 0;
  auto e = load_errors(text, &n);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(e, (std::vector<std::string>{"t.toml:9:5: unknown fact 'gpu.arhc' (did you mean 'gpu.arch'?)",
                                         "t.toml:20:12: bad severity 'bad' (info, warn or fail)"}));
}

TEST(KbLoader, ARuleNeedsConditionsOrErrorText) {
  auto e = load_errors("schema = 1\n[[rule]]\nid = \"GS-TEST-001\"\nseverity = \"info\"\ntitle = \"t\"\nevidence = \"e\"\nremediation = \"r\"\n");
  EXPECT_EQ(e, (std::vector<std::string>{"t.toml:2:1: a rule needs 'when' conditions, 'match_text' patterns, or both"}));
}

TEST(KbLoader, DerivedFactsAreCheckedToo) {
  auto e = load_errors(
      "schema = 1\n"
      "[[derive]]\n"
      "fact = \"gpu.arch\"\n"
      "from = \"gpu.arch\"\n"
      "rows = [{ match = \"gfx1201\", value = \"x\" }]\n"
      "[[derive]]\n"
      "fact = \"x.y\"\n"
      "type = \"version\"\n"
      "rows = [{ when = { rocm.version = \">=7\" }, value = \"not a version\" }, { value = \"1\", colour = \"red\" }]\n");
  EXPECT_EQ(e, (std::vector<std::string>{"t.toml:3:8: fact 'gpu.arch' already exists",
                                         "t.toml:9:52: 'not a version' is not a version",
                                         "t.toml:9:86: unknown key 'colour' in a derive row (known: match, when, value, note)"}));
}

TEST(KbLoader, PackageGroupsMustBeListsOfNames) {
  EXPECT_EQ(load_errors("schema = 1\n[packages]\ntriton = \"triton\"\n"),
            (std::vector<std::string>{"t.toml:3:10: package group 'triton' must be a non-empty array of distribution names"}));
  std::vector<kb_error> errors;
  knowledge_base::load({{"a.toml", "schema = 1\n[packages]\ntriton = [\"triton\"]\n"},
                        {"b.toml", "schema = 1\n[packages]\ntriton = [\"pytorch-triton-rocm\"]\n"}},
                       errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].to_string(), "b.toml:3:1: package group 'triton' is defined twice");
}

TEST(KbLoader, ArbitraryBytesNeverThrow) {
  std::string junk;
  for (int i = 0; i < 512; ++i) junk += static_cast<char>((i * 131) & 0xff);
  std::vector<kb_error> errors;
  EXPECT_NO_THROW(knowledge_base::load({{"junk.toml", junk}}, errors));
  EXPECT_FALSE(errors.empty());
}

TEST(KbLoader, MutatedBuiltinFilesNeverThrowOrCrash) {
  // A deterministic mini-fuzz: flip, drop and duplicate bytes of the real rule files. Under
  // the sanitizer build this is the cheap cousin of the libFuzzer target.
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  auto next = [&] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  const char alphabet[] = "[]{}=\"'.,#\n \\0aZ-_*";
  for (const kb_source& src : builtin_kb_sources()) {
    for (int round = 0; round < 40; ++round) {
      std::string t = src.text;
      for (int k = 0; k < 4 && !t.empty(); ++k) {
        size_t at = next() % t.size();
        switch (next() % 3) {
          case 0: t[at] = alphabet[next() % (sizeof alphabet - 1)]; break;
          case 1: t.erase(at, 1 + next() % 8); break;
          default: t.insert(at, t.substr(at, std::min<size_t>(16, t.size() - at))); break;
        }
      }
      std::vector<kb_error> errors;
      EXPECT_NO_THROW(knowledge_base::load({{src.path, t}}, errors));
    }
  }
}


TEST(KbLoader, MatchPlaceholdersNeedRegexGroupsOnEveryPattern) {
  auto text_rule = [](const std::string& extra) {
    return "schema = 1\n[[rule]]\nid = \"GS-TEST-001\"\nseverity = \"warn\"\ntitle = \"t\"\n"
           "evidence = \"e\"\nremediation = \"pip install {match.2}\"\n" + extra;
  };
  EXPECT_TRUE(load_errors(text_rule("match_text = [{ regex = \"(a)(b)\" }]\n")).empty());
  auto e = load_errors(text_rule("match_text = [{ regex = \"(a)\" }]\n"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("{match.2} is a capture group of the matching regex: match_text pattern \"(a)\" has fewer than 2"),
            std::string::npos) << e[0];
  e = load_errors(text_rule("match_text = [{ regex = \"(a)(b)\" }, \"plain words\"]\n"));
  ASSERT_EQ(e.size(), 1u) << "a substring pattern captures nothing";
  e = load_errors(text_rule("match_text = [{ regex = \"(a)(b)\" }]\nfacts_alone = true\n[rule.when]\ngpu.vendor = \"amd\"\n"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("needs 'match_text' and no 'facts_alone'"), std::string::npos) << e[0];
  std::string facts_only = rule_with("");
  facts_only.replace(facts_only.find("remediation = \"r\""), 17, "remediation = \"{match.1}\"");
  e = load_errors(facts_only);
  ASSERT_EQ(e.size(), 1u) << "a facts-only rule has no match";
}

}  // namespace
}  // namespace gs

namespace gs {
namespace {

TEST(KbLoader, SupersedesNamesOtherExistingRules) {
  EXPECT_TRUE(load_errors(rule_with("supersedes = [\"GS-TEST-002\"]\n") + "[[rule]]\nid = \"GS-TEST-002\"\n"
                          "severity = \"info\"\ntitle = \"t\"\nevidence = \"e\"\nremediation = \"r\"\n[rule.when]\n"
                          "gpu.vendor = \"amd\"\n").empty());
  auto unknown = load_errors(rule_with("supersedes = [\"GS-TEST-009\"]\n"));
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_NE(unknown[0].find("names GS-TEST-009, which no rule has"), std::string::npos) << unknown[0];
  auto self = load_errors(rule_with("supersedes = [\"GS-TEST-001\"]\n"));
  ASSERT_EQ(self.size(), 1u);
  EXPECT_NE(self[0].find("not this rule's own"), std::string::npos) << self[0];
  EXPECT_EQ(load_errors(rule_with("supersedes = \"GS-TEST-002\"\n")).size(), 1u);
}

}  // namespace
}  // namespace gs
