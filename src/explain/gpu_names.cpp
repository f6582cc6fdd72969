// The product-name table, compiled once into lower-case spellings; matching is a plain scan of
// the lower-cased line for each spelling's first word (a memchr-driven find) with word guards
// around a hit: ~200 finds on a 100-byte line, about 1 us, so a 1 MB log costs ~20 ms here.
#include "explain/gpu_names.h"

#include <algorithm>
#include <cctype>
#include <toml++/toml.h>

#include "core/assets.h"
#include "core/text_scan.h"

namespace gs {
namespace {

constexpr std::string_view kTablePath = "matrix/hardware/gpu_names.toml";

struct spelling {
  std::string words;  ///< lower case, single spaces ("rx 9070")
  std::string arch;
  bool by_cpu = false;  ///< an APU's CPU model ([[apu]] cpus), not a GPU's name
};

struct table {
  std::vector<spelling> names;  ///< longest first
  std::vector<std::string> errors;
};

const table& names_table() {
  static const table t = [] {
    table out;
    std::optional<std::string_view> text = find_asset(kTablePath);
    if (!text) {
      out.errors.push_back(std::string(kTablePath) + ": not embedded");
      return out;
    }
    toml::table parsed;
    try {
      parsed = toml::parse(*text, kTablePath);
    } catch (const toml::parse_error& e) {
      out.errors.push_back(std::string(kTablePath) + ":" + std::to_string(e.source().begin.line) + ":" +
                           std::to_string(e.source().begin.column) + ": " + std::string(e.description()));
      return out;
    }
    const toml::array* arches = parsed["arch"].as_array();
    if (!arches) out.errors.push_back(std::string(kTablePath) + ": no [[arch]] entries");
    // [[arch]] names = GPU product names; [[apu]] cpus = CPU models whose integrated GPU is that arch
    auto read = [&](const toml::array* entries, std::string_view section, std::string_view list, bool by_cpu) {
      for (const toml::node& n : entries ? *entries : toml::array{}) {
        const toml::table* t = n.as_table();
        const auto arch = t ? (*t)["arch"].value<std::string>() : std::nullopt;
        const toml::array* names = t ? (*t)[list].as_array() : nullptr;
        if (!arch || !names) {
          out.errors.push_back(std::string(kTablePath) + ":" + std::to_string(n.source().begin.line) + ": an [[" + std::string(section) +
                               "]] needs arch = \"...\" and " + std::string(list) + " = [...]");
          continue;
        }
        for (const toml::node& s : *names)
          if (auto w = s.value<std::string>()) {
            std::string lower;
            for (char c : *w) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            out.names.push_back({lower, *arch, by_cpu});
          }
      }
    };
    read(arches, "arch", "names", false);
    read(parsed["apu"].as_array(), "apu", "cpus", true);
    std::stable_sort(out.names.begin(), out.names.end(),
                     [](const spelling& a, const spelling& b) { return a.words.size() > b.words.size(); });
    return out;
  }();
  return t;
}

/// Where `words` occurs in `line` (both lower case) from `from`, a space in `words` matching any
/// run of spaces, '-' and '_' or nothing; returns [begin, end) or npos.
std::pair<size_t, size_t> find_words(std::string_view line, std::string_view words, size_t from) {
  // Candidate starts come from a find of the first word (memchr-fast), not a walk over every byte.
  const std::string_view head = words.substr(0, words.find(' '));
  for (size_t start = line.find(head, from); start != std::string_view::npos; start = line.find(head, start + 1)) {
    if (start > 0 && scan::is_alnum(line[start - 1])) continue;  // "xrx 9070" is not "rx 9070"
    size_t i = start, w = 0;
    while (w < words.size() && i <= line.size()) {
      if (words[w] == ' ') {
        while (i < line.size() && (line[i] == ' ' || line[i] == '-' || line[i] == '_')) ++i;
        ++w;
      } else if (i < line.size() && line[i] == words[w]) {
        ++i;
        ++w;
      } else {
        break;
      }
    }
    if (w != words.size()) continue;
    if (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) continue;  // "rx 90700"
    return {start, i};
  }
  return {std::string_view::npos, std::string_view::npos};
}

}  // namespace

std::vector<gpu_name_hit> find_gpu_names(std::string_view line) {
  std::string lower(line);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<gpu_name_hit> hits;
  std::vector<std::pair<size_t, size_t>> taken;
  // A CPU model says which iGPU there is only where the line speaks of that iGPU.
  const bool igpu_words = lower.find("radeon") != std::string::npos || lower.find("igpu") != std::string::npos ||
                          lower.find("integrated") != std::string::npos || lower.find("apu") != std::string::npos ||
                          lower.find("vega") != std::string::npos;
  for (const spelling& s : names_table().names) {
    if (s.by_cpu && !igpu_words) continue;
    for (size_t from = 0;;) {
      // Plain variables, not a structured binding: clang before 16 cannot capture those in a lambda.
      const std::pair<size_t, size_t> hit = find_words(lower, s.words, from);
      const size_t b = hit.first, e = hit.second;
      if (b == std::string_view::npos) break;
      from = b + 1;
      bool overlaps = std::any_of(taken.begin(), taken.end(), [&](auto r) { return b < r.second && r.first < e; });
      if (overlaps) continue;
      taken.push_back({b, e});
      hits.push_back({s.arch, s.words, std::string(line.substr(b, e - b)), b, s.by_cpu});
    }
  }
  std::stable_sort(hits.begin(), hits.end(), [](const gpu_name_hit& a, const gpu_name_hit& b) { return a.at < b.at; });
  return hits;
}

std::string_view vendor_of_arch(std::string_view arch) {
  if (arch.rfind("sm_", 0) == 0) return "nvidia";
  if (arch.rfind("gfx", 0) == 0) return "amd";
  return "";
}

std::vector<std::string> gpu_names_errors() { return names_table().errors; }

}  // namespace gs
