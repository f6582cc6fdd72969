// Levenshtein distance for "did you mean" suggestions on unknown names (models, ids, facts).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

/// Insertions, deletions and substitutions needed to turn a into b.
size_t edit_distance(std::string_view a, std::string_view b);

/// Up to `max` candidates closest to `name` (distance <= max_distance, or containing it as a
/// substring), best first, ties in candidate order.
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       size_t max_distance = 3, size_t max = 3);

}  // namespace gs
