// Evidence and remediation templates: "{gpu.hsa_override.var}={gpu.hsa_override} on {gpu.arch}".
// A placeholder is a fact key, optionally with a format after ':' ({host.ram_bytes:gib});
// "{{" and "}}" are literal braces.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "rules/rule.h"

namespace gs {

struct fact_context;

/// Split `text` into pieces; on a malformed template returns false and sets `error` and the
/// byte `offset` of the problem. Fact keys are not checked here (the loader does that).
bool parse_template(std::string_view text, text_template& out, std::string& error, size_t& offset);

/// N for a "match.N" placeholder (N = 1..9: the N-th capture group of the error-text regex that
/// matched), 0 for a fact key.
int capture_index(std::string_view key);

/// Formats a template accepts after ':'.
bool valid_template_format(std::string_view format);

/// Fill the placeholders. An unset fact prints "(unset)" for env.*, "(not installed)" for
/// pkg.*, "(unknown)" otherwise, so evidence never silently drops a word. On partial facts
/// (pasted text) a fact the text did not show prints "(not shown)" and its key is appended to
/// `unknown` when given, so a caller can refuse to print a fix that needs it; a GPU count the
/// paste only bounds from below (it names two GPUs) prints "at least 2". A `{match.N}` the
/// match did not capture (an optional group) counts as not shown.
std::string render_template(const text_template& t, const fact_context& ctx, std::vector<std::string>* unknown = nullptr);

}  // namespace gs
