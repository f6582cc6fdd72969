#include "core/edit_distance.h"

#include <algorithm>

namespace gs {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       size_t max_distance, size_t max) {
  struct scored {
    size_t d;
    size_t order;
    const std::string* s;
  };
  std::vector<scored> hits;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string& c = candidates[i];
    size_t d = edit_distance(name, c);
    // "gemma4" should suggest "gemma4-31b" although the distance is the suffix's length.
    bool contains = !name.empty() && (c.find(name) != std::string::npos || name.find(c) != std::string_view::npos);
    if (d <= max_distance || contains) hits.push_back({contains ? std::min(d, max_distance) : d, i, &c});
  }
  std::stable_sort(hits.begin(), hits.end(), [](const scored& x, const scored& y) { return x.d < y.d; });
  std::vector<std::string> out;
  for (const scored& h : hits) {
    if (out.size() >= max) break;
    if (std::find(out.begin(), out.end(), *h.s) == out.end()) out.push_back(*h.s);
  }
  return out;
}

}  // namespace gs
