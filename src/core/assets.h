// Text assets embedded at build time (cmake/embed.cmake): kernel sources, the knowledge base,
// Python probe scripts, the report JSON Schema. Keyed by path relative to the source root.
#pragma once
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace gs {

struct asset {
  const char* path;       ///< "matrix/rules/env.toml"
  std::string_view text;  ///< file contents, byte for byte
};

/// Every embedded asset, in build order.
std::span<const asset> all_assets();

/// The asset at `path`, or nullopt.
std::optional<std::string_view> find_asset(std::string_view path);

/// Assets whose path starts with `prefix` ("matrix/"), sorted by path.
std::vector<asset> assets_under(std::string_view prefix);

}  // namespace gs
