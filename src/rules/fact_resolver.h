// The fact resolver: the only place that knows how a rule key ("gpu.arch", "pkg.triton",
// "env.HSA_OVERRIDE_GFX_VERSION", "alloc.max_split_size_mb") maps onto machine_facts. Rules
// stay data; a new kind of fact is one entry here plus a line in docs/knowledge-base.md.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"
#include "core/version.h"
#include "rules/alloc_conf.h"
#include "rules/rule.h"

namespace gs {

/// A resolved fact. `text` is what templates print; the typed member matching `type` is set.
struct fact_value {
  fact_type type = fact_type::string;
  std::string text;
  double number = 0;
  bool flag = false;
  std::optional<version> ver;
};

/// One allocator-setting variable that is set, parsed (the `alloc` scope).
struct alloc_entry {
  std::string var;       ///< "PYTORCH_HIP_ALLOC_CONF"
  std::string raw;
  alloc_conf conf;
  bool conflict = false; ///< another allocator variable is set to a different value
};

/// What one evaluation of a rule sees: the machine, plus one element of each scope it uses.
struct fact_context {
  const machine_facts* facts = nullptr;
  const kb_data* kb = nullptr;           ///< derived facts and package groups (may be null)
  const gpu_info* gpu = nullptr;
  int gpu_index = -1;
  const device_access* dev = nullptr;
  const detection_issue* issue = nullptr;
  const alloc_entry* alloc = nullptr;
  /// A text rule's match: the capture groups of the regex that matched ([0] is group 1), for
  /// `{match.N}` in its templates; null outside error-text matching.
  const std::vector<std::string>* captures = nullptr;
};

struct fact_info {
  fact_type type = fact_type::string;
  unsigned scopes = 0;  ///< fact_scope bits
};

/// Type and scope of a key, or nullopt when the engine does not know it (a load error).
/// Knows built-in keys, env.NAME, pkg.NAME[.name], the .major/.minor of version facts and the
/// derived facts in `kb`.
std::optional<fact_info> lookup_fact(std::string_view key, const kb_data* kb);

/// The value of `key` in `ctx`, or nullopt when the machine does not have it (unset).
std::optional<fact_value> resolve_fact(std::string_view key, const fact_context& ctx);

/// Whether a condition on `key` has no answer in `ctx`: only ever for partial facts (pasted text,
/// facts_coverage::partial), where a fact the text did not mention is unknown rather than unset,
/// and where facts about the whole machine (device nodes, GPU counts, visibility masks,
/// detection problems) cannot be known at all. `is_set`: whether resolve_fact found a value.
bool fact_is_unknown(std::string_view key, const fact_context& ctx, bool is_set);

/// Built-in keys with their documentation (docs/knowledge-base.md must list every one).
struct builtin_fact_doc {
  std::string_view key;
  fact_type type;
  fact_scope scope;
  std::string_view doc;
};
const std::vector<builtin_fact_doc>& builtin_fact_docs();

/// The allocator variables set in facts.env, parsed.
std::vector<alloc_entry> alloc_entries(const machine_facts& facts);

/// PEP 503: lower case, runs of '-', '_' and '.' become one '-'.
std::string normalize_package_name(std::string_view name);

std::string_view to_string(fact_type t);

}  // namespace gs
