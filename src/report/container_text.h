// The report's `container` block (check --container, docs/container.md) as text: one line per
// container saying what the spec gives it. The terminal view and the Markdown both say it this way.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gs {

/// "file (kind)" then one "name: what it gets" line per container; empty when there is no block.
std::vector<std::string> container_lines(const nlohmann::json& report);

}  // namespace gs
