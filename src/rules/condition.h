// Evaluating one `when` condition against a fact context, and the small matchers it uses
// (globs, sizes). Semantics in docs/knowledge-base.md "Operators".
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/rule.h"

namespace gs {

struct fact_context;

/// Three-valued: `unknown` only for partial facts (pasted text), where a fact the text does not
/// show can be neither true nor false.
enum class truth { no, yes, unknown };

/// The condition's truth; on complete facts (live, --sysroot) never `unknown`.
truth condition_truth(const condition& c, const fact_context& ctx);
/// `no` when any condition is no, `yes` when all are yes (an empty list is yes), else `unknown`.
/// The keys of the unknown ones are appended to `unknown_keys` when given.
truth conditions_truth(const std::vector<condition>& cs, const fact_context& ctx,
                       std::vector<std::string>* unknown_keys = nullptr);

/// True when the condition holds (condition_truth is yes). Positive operators need the fact set; the negative ones
/// (ne, not_glob, not_regex, not_in) hold on an unset fact when compared with a literal; any
/// comparison with another fact needs both facts set.
bool condition_holds(const condition& c, const fact_context& ctx);
/// All of them (an empty list holds).
bool conditions_hold(const std::vector<condition>& cs, const fact_context& ctx);

/// fnmatch-style glob (*, ?, [a-z], [!x]) compared case-insensitively.
bool glob_match(std::string_view pattern, std::string_view text);

/// "16GiB", "512 MiB", "1.5 TB", "4096" -> bytes. nullopt when not a size.
std::optional<double> parse_size(std::string_view text);

}  // namespace gs
