// Internal to the loader: the parse context shared by kb_loader.cpp (files, rules, derived
// tables) and condition_parse.cpp (`when` tables). Not for use outside src/rules/.
#pragma once
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "rules/fact_resolver.h"
#include "rules/knowledge_base.h"
#include "rules/rule.h"

namespace gs {

struct kb_parse_ctx {
  std::string path;
  std::vector<kb_error>* errors = nullptr;
  const kb_data* kb = nullptr;

  void error(const toml::source_region& where, std::string message) const {
    errors->push_back({path, static_cast<int>(where.begin.line), static_cast<int>(where.begin.column), std::move(message)});
  }
  source_pos pos(const toml::source_region& where) const {
    return {path, static_cast<int>(where.begin.line), static_cast<int>(where.begin.column)};
  }
};

/// Parse a `when`-style table (dotted keys or quoted "a.b" keys; values are operator tables
/// or shorthands) into conditions. Returns false if anything in it was rejected.
bool parse_conditions(const toml::node& when, kb_parse_ctx& ctx, std::vector<condition>& out);

/// One shorthand value (not an operator table) for `key`, as in `gpu.arch = "gfx12*"`.
bool parse_shorthand(const std::string& key, const toml::node& value, const toml::source_region& key_pos,
                     kb_parse_ctx& ctx, std::vector<condition>& out);

/// "unknown fact 'gpu.arhc' (did you mean 'gpu.arch'?)"
std::string unknown_fact_message(const std::string& key, const kb_data* kb);

}  // namespace gs
