// Rendering docs/findings.md from kb_data. Plain string building; Markdown special characters
// in rule text are left alone on purpose (rule authors write Markdown-safe text, and the test
// diff shows any surprise).
#include "rules/kb_docs.h"

#include <algorithm>
#include <cctype>

#include "rules/fact_resolver.h"

namespace gs {
namespace {

std::string code(const std::string& s) { return "`" + s + "`"; }

std::string operand_text(const operand& o) { return o.fact.empty() ? code(o.text) : code(o.fact); }

std::string join_operands(const std::vector<operand>& args, const char* sep) {
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) out += (i ? sep : "") + operand_text(args[i]);
  return out;
}

std::string describe_all(const std::vector<condition>& cs) {
  std::string out;
  for (size_t i = 0; i < cs.size(); ++i) out += (i ? "; " : "") + describe_condition(cs[i]);
  return out;
}

std::string anchor(const std::string& id) {
  std::string a;
  for (char c : id) a += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return a;
}

std::string one_paragraph(const std::string& text) {
  std::string out;
  size_t b = text.find_first_not_of(" \n");
  if (b == std::string::npos) return out;
  size_t e = text.find_last_not_of(" \n");
  for (size_t i = b; i <= e; ++i) out += text[i] == '\n' ? ' ' : text[i];
  return out;
}

}  // namespace

std::string describe_condition(const condition& c) {
  const std::string k = code(c.key);
  const std::string rhs = c.args.empty() ? "" : operand_text(c.args[0]);
  switch (c.op) {
    case cond_op::set: return k + (c.want_set ? " is set" : " is not set");
    case cond_op::eq: return k + " = " + rhs;
    case cond_op::ne: return k + " ≠ " + rhs;
    case cond_op::lt: return k + " < " + rhs;
    case cond_op::le: return k + " ≤ " + rhs;
    case cond_op::gt: return k + " > " + rhs;
    case cond_op::ge: return k + " ≥ " + rhs;
    case cond_op::glob: return k + " matches " + join_operands(c.args, " or ");
    case cond_op::not_glob: return k + " does not match " + join_operands(c.args, " or ");
    case cond_op::regex: return k + " matches regex " + rhs;
    case cond_op::not_regex: return k + " does not match regex " + rhs;
    case cond_op::in: return k + " is one of " + join_operands(c.args, ", ");
    case cond_op::not_in: return k + " is none of " + join_operands(c.args, ", ");
    case cond_op::version: return k + " in " + code(c.range ? c.range->text() : "?");
  }
  return k;
}

std::string render_findings_doc(const kb_data& kb) {
  std::vector<const rule*> rules;
  for (const rule& r : kb.rules) rules.push_back(&r);
  std::sort(rules.begin(), rules.end(), [](const rule* a, const rule* b) { return a->id < b->id; });

  std::string out =
      "# Findings\n\n"
      "Every finding `gpustack check` can report, generated from `matrix/rules/*.toml`.\n"
      "Do not edit by hand: change the rule, then regenerate with\n"
      "`GPUSTACK_REGEN_DOCS=1 build/tests/gpustack_tests --gtest_filter='KbDocs*'`\n"
      "(the test fails when this file and the rules disagree). Ids are stable and never reused.\n"
      "The rule format is described in [knowledge-base.md](knowledge-base.md).\n\n"
      "| id | severity | title |\n|---|---|---|\n";
  for (const rule* r : rules)
    out += "| [" + r->id + "](#" + anchor(r->id) + ") | " + std::string(to_string(r->level)) + " | " + r->title + " |\n";

  for (const rule* r : rules) {
    out += "\n<a id=\"" + anchor(r->id) + "\"></a>\n## " + r->id + ": " + r->title + "\n\n";
    out += "- **Severity:** " + std::string(to_string(r->level));
    for (const escalation& e : r->escalate)
      out += "; " + std::string(to_string(e.level)) + " when " + describe_all(e.when);
    out += "\n";
    if (!r->when.empty()) out += "- **Fires when:** " + describe_all(r->when) + "\n";
    if (!r->unless.empty()) out += "- **Unless:** " + describe_all(r->unless) + "\n";
    if (!r->match_text.empty()) {
      out += "- **Error text:** ";
      for (size_t i = 0; i < r->match_text.size(); ++i)
        out += (i ? ", " : "") + std::string(r->match_text[i].re ? "regex " : "") + code(r->match_text[i].text);
      out += "\n";
    }
    out += "- **Evidence:** " + code(r->evidence.source) + "\n";
    out += "- **Remediation:** " + code(r->remediation.source) + "\n";
    if (!r->refs.empty()) {
      out += "- **Refs:** ";
      for (size_t i = 0; i < r->refs.size(); ++i) out += (i ? ", " : "") + r->refs[i];
      out += "\n";
    }
    out += "- **Defined in:** " + r->pos.path + ":" + std::to_string(r->pos.line) + "\n";
    if (!r->why.empty()) out += "\n" + one_paragraph(r->why) + "\n";
  }

  if (!kb.derived.empty()) {
    out += "\n## Derived facts\n\nTables in the rule files that compute a fact; the first row whose conditions hold gives the value.\n";
    for (const derived_fact& d : kb.derived) {
      out += "\n### " + code(d.key) + " (" + std::string(to_string(d.type)) + ")\n\n";
      if (!d.doc.empty()) out += d.doc + ". ";
      out += "Defined in " + d.pos.path + ":" + std::to_string(d.pos.line) + ".\n\n| when | value |\n|---|---|\n";
      for (const derived_fact::row& row : d.rows)
        out += "| " + (row.when.empty() ? std::string("(always)") : describe_all(row.when)) + " | " + code(row.value) + " |\n";
    }
  }
  return out;
}

std::string render_fact_reference() {
  std::string out = "| key | type | scope | meaning |\n|---|---|---|---|\n";
  for (const builtin_fact_doc& d : builtin_fact_docs()) {
    const char* scope = d.scope == fact_scope::gpu     ? "gpu"
                        : d.scope == fact_scope::dev   ? "dev"
                        : d.scope == fact_scope::issue ? "issue"
                        : d.scope == fact_scope::alloc ? "alloc"
                                                       : "machine";
    std::string doc(d.doc);
    for (char& c : doc)
      if (c == '|') c = '/';
    out += "| " + code(std::string(d.key)) + " | " + std::string(to_string(d.type)) + " | " + scope + " | " + doc + " |\n";
  }
  return out;
}

}  // namespace gs
