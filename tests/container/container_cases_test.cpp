// The real specs of tests/fixtures/container/ (README there): each mistake draws the rules its
// thread settled, each correct spec from a project's documentation draws no warning or failure,
// and every rule of matrix/rules/container_specs.toml is drawn by at least one real spec.
#include <gtest/gtest.h>

#include <set>

#include "container/container_facts.h"
#include "container/container_spec.h"
#include "explain/paste.h"
#include "rules/error_findings.h"
#include "rules/rule.h"
#include "support/container_cases.h"

namespace gs {
namespace {

using gs::testing::container_case;

/// The findings for every container of the spec, on a host with the case's GPU and driver.
std::vector<finding> lint(const container_case& c) {
  machine_facts host;
  if (!c.gpu.empty()) host.gpus = read_paste("GPU: " + c.gpu).facts.gpus;
  host.stack.nvidia_driver = c.driver;
  container_spec s = read_container_spec(c.text, container_spec_kind("", c.text));
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.kind, c.kind);
  std::vector<finding> out;
  for (const container_info& ci : s.containers)
    for (finding& f : container_findings(host, ci, builtin_knowledge_base())) out.push_back(std::move(f));
  return out;
}

TEST(ContainerCases, MistakesDrawTheirRulesAndCorrectSpecsNoWarning) {
  const std::vector<container_case>& all = gs::testing::container_cases();
  ASSERT_GE(all.size(), 20u);
  size_t mistakes = 0, caught = 0;
  for (const container_case& c : all) {
    SCOPED_TRACE(c.path);
    std::set<std::string> ids;
    std::string warned;
    for (const finding& f : lint(c)) {
      ids.insert(f.id);
      if (f.level != severity::info) warned += f.id + " ";
    }
    for (const std::string& id : c.expect) EXPECT_TRUE(ids.count(id)) << "expected " << id;
    if (c.negative) EXPECT_EQ(warned, "") << "a correct spec drew a warning or failure";
    if (!c.negative) {
      ++mistakes;
      caught += !c.expect.empty();
      EXPECT_TRUE(!c.expect.empty() || !c.miss.empty()) << "a mistake with no expectation must say why it is missed";
      if (!c.miss.empty()) EXPECT_EQ(warned, "") << "a case marked missed is caught now: give it its expect";
    }
  }
  EXPECT_GE(caught * 100, mistakes * 75) << caught << " of " << mistakes << " real mistakes caught";
}

TEST(ContainerCases, EveryContainerRuleIsDrawnByARealSpec) {
  // Rules learned from documentation and threads that quoted no spec; container_rules_test.cpp
  // holds their firing and silent specs. A real spec for one of them belongs in the fixtures.
  const std::set<std::string> without_spec = {"GS-CONT-102", "GS-CONT-107", "GS-CONT-108"};
  std::set<std::string> drawn;
  for (const container_case& c : gs::testing::container_cases())
    for (const std::string& id : c.expect) drawn.insert(id);
  for (const rule& r : builtin_knowledge_base().rules())
    if (r.pos.path.find("container_specs.toml") != std::string::npos && !without_spec.count(r.id))
      EXPECT_TRUE(drawn.count(r.id)) << r.id << " has no real spec in tests/fixtures/container";
}

}  // namespace
}  // namespace gs
