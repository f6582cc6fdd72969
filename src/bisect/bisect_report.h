// The bisection as a schema-v1 report (command "bisect", with a `bisect` block: every release in
// the range with its verdict, status and timings, the answer, the project's links), the answer as
// one sentence, and the terminal and Markdown renderings, which read only the redacted JSON
// (docs/bisect.md, docs/report-format.md).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "bisect/bisect.h"

namespace gs {

/// The answer in words: "first bad: triton 3.5.0 (uploaded 2025-10-13); last good: 3.4.0", or
/// why there is none and what to do.
std::string bisect_answer_sentence(const bisect_request& r, const bisect_outcome& o);

nlohmann::json bisect_report(const bisect_request& r, const bisect_outcome& o, bool include_identifiers,
                             const std::string& created_utc = "");

std::string render_bisect_human(const nlohmann::json& report, bool color);
std::string render_bisect_markdown(const nlohmann::json& report);

/// 0 an answer was found, 1 none (an end is not what it should be, skips hide it, the run
/// stopped early), 130 interrupted.
int bisect_exit_code(const bisect_outcome& o);

}  // namespace gs
