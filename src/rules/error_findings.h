// The one home for loading the knowledge base in a command and for matching what failed steps
// printed against its error signatures. `probe`, `probe fla`, `train-smoke`, the Python steps
// and `explain` all go through here, so they cannot drift apart.
#pragma once
#include <string>
#include <vector>

#include "core/facts.h"
#include "core/finding.h"
#include "core/probe_result.h"
#include "rules/knowledge_base.h"

namespace gs {

/// The built-in knowledge base, loaded on first use. Its load errors (a broken embedded file,
/// which BuiltinRules tests rule out) are printed once to stderr, never dropped.
const knowledge_base& builtin_knowledge_base();

/// The built-in rules plus `extra_files` (`--rules FILE`); a file whose path ends with a
/// built-in file's path (`matrix/rules/bnb.toml`) replaces that file instead. A file that cannot be read or does
/// not load is printed to stderr as "file:line:column: message" and makes this return false.
bool load_knowledge_base(const std::vector<std::string>& extra_files, knowledge_base& kb);

/// The text a failed step's error signatures are matched against: its detail, the tail of its
/// output and the kernel-log lines seen while it ran.
std::string failure_text(const probe_result& r);

/// The findings whose signatures match `r`'s failure text, one per id (whatever `r`'s status:
/// the callers decide which results to ask about).
std::vector<finding> failure_findings(const knowledge_base& kb, const probe_result& r, const machine_facts& facts);

/// For each result that neither passed nor was skipped, its failure_findings: each id is added
/// to the result once, each finding to `findings` once per id (a finding already there, e.g.
/// from kb.evaluate, is not repeated).
void add_failure_findings(const knowledge_base& kb, const machine_facts& facts, std::vector<probe_result>& results,
                          std::vector<finding>& findings);

/// The findings of a command that ran steps: the machine's (kb.evaluate), then those its failed
/// steps' text names (add_failure_findings, which also files their ids on `results`).
std::vector<finding> run_findings(const knowledge_base& kb, const machine_facts& facts, std::vector<probe_result>& results);

}  // namespace gs
