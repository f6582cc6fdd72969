// A knowledge-base rule after loading: the TOML of matrix/rules/*.toml turned into checked data
// (conditions with their operands parsed, templates split into pieces, positions kept for
// errors and for finding.rule_source). Format reference: docs/knowledge-base.md.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/version.h"

namespace gs {

/// What a fact holds; decides which operators apply and what a bare value in `when` means.
enum class fact_type { string, version, number, boolean };

/// Which list of machine_facts a fact is read from. A rule that uses a scoped fact is
/// evaluated once per element of that list (every GPU, every device node, ...).
enum class fact_scope : unsigned { global = 0, gpu = 1, dev = 2, issue = 4, alloc = 8 };

struct source_pos {
  std::string path;  ///< "matrix/rules/env.toml"
  int line = 0, column = 0;
};

/// The right-hand side of a comparison: a literal from the TOML or another fact.
struct operand {
  std::string fact;                  ///< non-empty: compare with this fact ({ fact = "gpu.arch" })
  std::string text;                  ///< literal as written (string, or a number/bool rendered)
  std::optional<double> number;      ///< numeric literal (sizes like "16GiB" already in bytes)
  std::optional<bool> flag;          ///< boolean literal
  std::optional<version_range> range; ///< version literal as the one-clause range "<op>text"
};

enum class cond_op { set, eq, ne, lt, le, gt, ge, glob, not_glob, regex, not_regex, in, not_in, version };

/// One operator applied to one fact. `when.gpu.arch = { glob = "gfx12*", ne = "gfx1250" }`
/// becomes two conditions.
struct condition {
  std::string key;                    ///< "gpu.arch"
  fact_type type = fact_type::string; ///< the fact's type, resolved at load
  cond_op op = cond_op::eq;
  bool want_set = true;               ///< for cond_op::set
  std::vector<operand> args;          ///< one for comparisons; several for glob/in lists
  std::optional<version_range> range; ///< cond_op::version
  std::shared_ptr<const std::regex> re;
  source_pos pos;
};

/// "{env.HSA_OVERRIDE_GFX_VERSION} on {gpu.arch}" split into literal text and fact keys.
struct text_template {
  struct piece {
    bool is_fact = false;
    std::string text;    ///< literal text, or the fact key
    std::string format;  ///< after ':' in "{host.ram_bytes:gib}"
  };
  std::vector<piece> pieces;
  std::string source;    ///< as written
};

/// Severity raised (or lowered) when extra conditions hold, so one problem keeps one id.
struct escalation {
  std::vector<condition> when;
  severity level = severity::info;
  std::optional<text_template> evidence;  ///< replaces the rule's evidence when given
};

/// A pattern for match_error_text: a case-insensitive substring, or a regex ({ regex = "..." }).
struct text_pattern {
  std::string text;
  std::shared_ptr<const std::regex> re;  ///< null for a substring
  /// Regex only: lower-case literals one of which every match contains (one per top-level
  /// alternative); empty when some alternative has none, and then every line is tried.
  std::vector<std::string> anchors;
};

/// For each top-level alternative of an ECMAScript regex, the longest literal (lower case, 2+
/// characters) every match of it contains, read outside groups and classes. Empty when some
/// alternative has no such literal. Used to skip lines before running the regex.
std::vector<std::string> regex_anchors(std::string_view regex);

struct rule {
  std::string id;                       ///< "GS-ENV-001"
  severity level = severity::info;
  std::string title;
  text_template evidence, remediation;
  std::vector<std::string> refs;
  std::string why;                      ///< the longer explanation that docs/findings.md shows
  std::vector<condition> when;          ///< all must hold; empty: the rule only matches error text
  std::vector<condition> unless;        ///< the rule is silent when all of these hold
  /// Text rules: conditions the facts must show to hold for the text to count (an unknown fact
  /// silences the rule, where `when` lets it stand): for messages with several causes.
  std::vector<condition> when_shown;
  std::vector<escalation> escalate;     ///< first whose conditions hold sets the severity
  std::vector<text_pattern> match_text;      ///< any one matching a line makes the rule a candidate
  std::vector<text_pattern> match_requires;  ///< each must also match some line of the text
  std::vector<text_pattern> match_excludes;  ///< any matching anywhere silences the rule
  /// With match_text, `when` only gates the text match; `facts_alone = true` makes the rule also
  /// fire from the facts without any error text (a known-bad configuration, GS-TRITON-001).
  bool facts_alone = false;
  /// Rules this one makes redundant: where both fire on one machine or paste, theirs are dropped.
  /// For a specific cause that a generic rule also catches (an iGPU visible next to the discrete
  /// card vs "rocBLAS lacks this arch"), whose generic fix would mislead.
  std::vector<std::string> supersedes;
  /// A generic reading of a kind of error line (a stated compute-capability or arch requirement):
  /// dropped when a rule that is not a fallback matched the same line, since that one knows the
  /// line's own cause and fix.
  bool fallback = false;
  /// A context answer for when nothing specific is known ("this is a nightly build: step back a
  /// date"): dropped whenever any other fail or warn finding stands on the same machine or paste,
  /// since that one names a cause and this one only where to look.
  bool last_resort = false;
  /// The highest N of a `{match.N}` placeholder in its templates or a `match.N` fact in its
  /// conditions (0: none): the N-th capture group of the match_text regex that matched, so one
  /// rule can name and compare what the error names.
  int captures_used = 0;
  source_pos pos;                       ///< the [[rule]] header
  unsigned scopes = 0;                  ///< fact_scope bits used anywhere in the rule
};

/// A fact computed from a table in the data (`[[derive]]`): the value of the first row whose
/// conditions hold, e.g. the minimum ROCm per gfx arch or the newest CUDA a driver supports.
struct derived_fact {
  struct row {
    std::vector<condition> when;
    std::string value;
  };
  std::string key;                      ///< "gpu.min_rocm"
  fact_type type = fact_type::string;
  std::string doc;
  std::vector<row> rows;
  source_pos pos;
  unsigned scopes = 0;
};

/// Everything the loader builds; facts resolve against it (derived facts, package groups).
struct kb_data {
  std::vector<rule> rules;
  std::vector<derived_fact> derived;
  /// pkg.<group> -> distributions that count as it, first installed one wins
  /// ("triton" -> triton, pytorch-triton-rocm, triton-rocm, pytorch-triton).
  std::map<std::string, std::vector<std::string>> package_groups;

  const derived_fact* find_derived(std::string_view key) const;
};

}  // namespace gs
