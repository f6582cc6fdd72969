// Lookup over the generated asset table.
#include "core/assets.h"

#include <algorithm>

namespace gs {

std::optional<std::string_view> find_asset(std::string_view path) {
  for (const asset& a : all_assets())
    if (a.path == path) return a.text;
  return std::nullopt;
}

std::vector<asset> assets_under(std::string_view prefix) {
  std::vector<asset> out;
  for (const asset& a : all_assets())
    if (std::string_view(a.path).starts_with(prefix)) out.push_back(a);
  std::sort(out.begin(), out.end(),
            [](const asset& x, const asset& y) { return std::string_view(x.path) < y.path; });
  return out;
}

}  // namespace gs
