// The knowledge base: rules as TOML data under matrix/ (format in docs/knowledge-base.md).
// Loading reports errors as "file:line:column: message"; evaluation turns facts into findings.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"
#include "core/finding.h"

namespace gs {

struct rule;     // defined in rules/rule.h
struct kb_data;  // defined in rules/rule.h

struct kb_source {
  std::string path;  ///< shown in errors and in finding.rule_source ("matrix/rules/env.toml")
  std::string text;
};

struct kb_error {
  std::string path;
  int line = 0, column = 0;
  std::string message;
  std::string to_string() const;  ///< "matrix/rules/env.toml:12:3: unknown key 'severty'"
};

/// The knowledge-base files embedded in the binary (matrix/**/*.toml).
std::vector<kb_source> builtin_kb_sources();

class knowledge_base {
 public:
  knowledge_base();
  ~knowledge_base();
  knowledge_base(knowledge_base&&) noexcept;
  knowledge_base& operator=(knowledge_base&&) noexcept;

  /// Parse and validate sources; every problem is collected, loading goes on past bad rules.
  static knowledge_base load(const std::vector<kb_source>& sources, std::vector<kb_error>& errors);
  /// load(builtin_kb_sources()).
  static knowledge_base load_builtin(std::vector<kb_error>& errors);

  /// Findings for this machine, ordered by severity (fail first) then id.
  std::vector<finding> evaluate(const machine_facts& facts) const;
  /// Rules whose `match_text` patterns match an error text (probe failures, issue 6).
  std::vector<finding> match_error_text(std::string_view text, const machine_facts& facts) const;
  /// Drops the findings of rules that another finding in `fs` supersedes (rule::supersedes).
  /// evaluate() and match_error_text() apply it to their own lists; callers that merge lists
  /// (explain, a probe run) apply it again to the merged one.
  void drop_superseded(std::vector<finding>& fs) const;
  /// Drops the last-resort findings (rule.last_resort) when any other fail or warn finding stands.
  void drop_last_resorts(std::vector<finding>& fs) const;

  size_t size() const;
  const std::vector<rule>& rules() const;

 private:
  std::unique_ptr<kb_data> data_;  // rules, derived-fact tables, package groups
};

}  // namespace gs
