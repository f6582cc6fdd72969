// docs/findings.md, generated from the loaded rules so the documentation cannot drift from the
// data: every id with its title, severity, what fires it, remediation and refs, plus the
// derived-fact tables. tests/rules/kb_docs_test.cpp checks the committed file against this.
#pragma once
#include <string>

#include "rules/rule.h"

namespace gs {

/// One condition in words: "`gpu.arch` matches `gfx12*`", "`rocm.version` < `gpu.min_rocm`".
std::string describe_condition(const condition& c);

/// The whole of docs/findings.md.
std::string render_findings_doc(const kb_data& kb);

/// The table of built-in fact keys that docs/knowledge-base.md carries between the markers
/// "<!-- facts:begin -->" and "<!-- facts:end -->".
std::string render_fact_reference();

}  // namespace gs
