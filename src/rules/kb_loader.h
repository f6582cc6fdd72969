// The knowledge-base loader: TOML text -> checked kb_data, every problem reported as
// "file:line:column: message" and loading carried on past it. Public so a libFuzzer target
// (fuzz/kb_loader_fuzz.cpp) can feed it arbitrary bytes.
#pragma once
#include <string_view>
#include <vector>

#include "rules/knowledge_base.h"
#include "rules/rule.h"

namespace gs {

/// Load `sources` in order into `out`. Files are read in three passes (package groups, then
/// [[derive]] tables, then [[rule]]s), so a rule may use a derived fact from any file, and a
/// derived fact any fact declared before it. Never throws; a bad file or rule is skipped and
/// the rest still loads.
void load_kb(const std::vector<kb_source>& sources, kb_data& out, std::vector<kb_error>& errors);

/// The operator names a `when` table accepts ({ set = true }, { glob = "gfx12*" }, ...).
const std::vector<std::string_view>& condition_operator_names();

}  // namespace gs
