// Parsing one of the TOML data tables that ship in the binary (matrix/hardware/*.toml): every
// problem becomes a table_error at its file, line and column; nothing is thrown.
#pragma once
#include <toml++/toml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/table_error.h"

namespace gs {

/// An error about node `n` of the file at `path`, at the node's position.
table_error error_at(std::string_view path, const toml::node& n, std::string msg);

/// An integer node's value; nullopt for a missing node or any other type. toml++'s
/// value<int64_t>() also converts a float node, and for a float outside int64_t's range
/// ("gid = 9e92", found by snapshot_manifest_fuzz) that conversion is undefined behaviour.
inline std::optional<int64_t> integer_value(const toml::node* n) {
  if (const toml::value<int64_t>* i = n ? n->as_integer() : nullptr) return i->get();
  return std::nullopt;
}

/// `text` parsed, or nullopt with the error appended to `errors`. The tables are printable
/// ASCII, and anything else is refused before toml++ sees it: that keeps untrusted input away
/// from two toml++ 3.3 traps found by fuzzing (is_non_ascii_horizontal_whitespace reaches
/// TOML_UNREACHABLE, undefined behaviour, for code points such as U+00A1, and a control byte in
/// a key, "[[\x10pu]]", trips TOML_ASSERT_ASSUME in parse_key).
std::optional<toml::table> parse_toml_table(std::string_view path, std::string_view text, std::vector<table_error>& errors);

}  // namespace gs
