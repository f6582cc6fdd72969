// Loading the knowledge base for a command, and error-signature findings for failed steps.
#include "rules/error_findings.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace gs {
namespace {

void print_errors(const std::vector<kb_error>& errors) {
  for (const kb_error& e : errors) std::fprintf(stderr, "gpustack: %s\n", e.to_string().c_str());
}

}  // namespace

const knowledge_base& builtin_knowledge_base() {
  static const knowledge_base kb = [] {
    std::vector<kb_error> errors;
    knowledge_base k = knowledge_base::load_builtin(errors);
    print_errors(errors);
    return k;
  }();
  return kb;
}

bool load_knowledge_base(const std::vector<std::string>& extra_files, knowledge_base& kb) {
  std::vector<kb_source> sources = builtin_kb_sources();
  for (const std::string& f : extra_files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "gpustack: cannot read rule file %s\n", f.c_str());
      return false;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    // A file whose path ends like a built-in one ("matrix/rules/bnb.toml", or a checkout's
    // "../gpustack/matrix/rules/bnb.toml") replaces it, so an edited rule file can be tried
    // without a rebuild instead of failing on its own ids as duplicates.
    auto same = std::find_if(sources.begin(), sources.end(), [&](const kb_source& s) {
      return f == s.path || (f.size() > s.path.size() && f.ends_with(s.path) && f[f.size() - s.path.size() - 1] == '/');
    });
    if (same != sources.end())
      same->text = ss.str();
    else
      sources.push_back({f, ss.str()});
  }
  std::vector<kb_error> errors;
  kb = knowledge_base::load(sources, errors);
  print_errors(errors);
  return errors.empty();
}

std::string failure_text(const probe_result& r) {
  std::string text = r.detail;
  if (auto it = r.data.find("output_tail"); it != r.data.end() && it->is_string()) text += "\n" + it->get<std::string>();
  for (const std::string& l : r.kernel_log) text += "\n" + l;
  return text;
}

std::vector<finding> failure_findings(const knowledge_base& kb, const probe_result& r, const machine_facts& facts) {
  std::vector<finding> out;
  std::set<std::string> ids;
  for (finding& f : kb.match_error_text(failure_text(r), facts))
    if (ids.insert(f.id).second) out.push_back(std::move(f));
  return out;
}

void add_failure_findings(const knowledge_base& kb, const machine_facts& facts, std::vector<probe_result>& results,
                          std::vector<finding>& findings) {
  std::set<std::string> seen;
  for (const finding& f : findings) seen.insert(f.id);
  for (probe_result& r : results) {
    if (r.outcome == status::pass || r.outcome == status::skip) continue;
    for (finding& f : failure_findings(kb, r, facts)) {
      // A probe may have named the finding itself already (the py.* steps do, in the child).
      if (std::find(r.finding_ids.begin(), r.finding_ids.end(), f.id) == r.finding_ids.end())
        r.finding_ids.push_back(f.id);
      if (seen.insert(f.id).second) findings.push_back(std::move(f));
    }
  }
}

std::vector<finding> run_findings(const knowledge_base& kb, const machine_facts& facts, std::vector<probe_result>& results) {
  std::vector<finding> out = kb.evaluate(facts);
  add_failure_findings(kb, facts, results, out);
  // Across the two lists too; a step keeps no id of a finding dropped that way.
  std::set<std::string> before, kept;
  for (const finding& f : out) before.insert(f.id);
  kb.drop_superseded(out);
  for (const finding& f : out) kept.insert(f.id);
  for (probe_result& r : results)
    std::erase_if(r.finding_ids, [&](const std::string& id) { return before.count(id) && !kept.count(id); });
  return out;
}

}  // namespace gs
