// `gpustack explain`: what is wrong, by the knowledge base, in text a user or maintainer has.
// The paste is read into partial machine_facts (paste.h); every environment rule is evaluated
// on them exactly as on a live machine, and the whole text goes through the same error-
// signature matcher the probes use (knowledge_base::match_error_text).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "explain/paste.h"
#include "rules/knowledge_base.h"

namespace gs {

struct explain_result {
  paste_reading reading;
  std::vector<finding> findings;       ///< fail first, then warn, then info
  std::vector<std::string> undecided;  ///< what the paste did not let it decide, one sentence each
  std::string next_step;               ///< the one thing to paste or run next ("" when nothing is missing)
  std::string first_error_line;        ///< the line that reads most like the error itself (earliest of the best), for "nothing matched"
};

explain_result explain_text(std::string_view text, const knowledge_base& kb);

/// What to paste or run so the paste shows `fact_key` ("gpu.arch" -> "which GPU is this? ...").
std::string how_to_show(std::string_view fact_key);

}  // namespace gs
