// The explain result as a schema-v1 report (command "explain", with an `explain` block: the
// input kinds read, each fact with the line it came from, what stayed undecided and the next
// step), and its terminal and Markdown renderings. Renderers read only the redacted JSON, so
// tokens, hostnames and home paths in a paste never reach any output.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "explain/explain.h"

namespace gs {

nlohmann::json explain_report(const explain_result& r, bool include_identifiers, const std::string& created_utc = "");

/// Terminal text. `width` 0: no wrapping (a pipe or a file gets whole lines); a fix or any
/// other command is never cut, only the prose around it is wrapped.
std::string render_explain_human(const nlohmann::json& report, bool color, size_t width);

/// An issue-ready Markdown answer with the JSON in <details>.
std::string render_explain_markdown(const nlohmann::json& report);

}  // namespace gs
