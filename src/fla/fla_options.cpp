// Parsing of --stages, --backends, --target and --kernels; see fla_options.h.
#include "fla/fla_options.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "core/text_scan.h"

namespace gs {
namespace {

std::optional<int> parse_depth(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

using scan::split;

}  // namespace

std::optional<std::vector<int>> parse_stage_range(std::string_view text, std::string* why) {
  auto bad = [&](std::string msg) -> std::optional<std::vector<int>> {
    if (why) *why = std::move(msg);
    return std::nullopt;
  };
  std::set<int> out;
  const std::string range_help = "use N, A..B or a comma list such as 1,3 (each 1.." + std::to_string(fla_max_stage) + ")";
  if (text.empty()) return bad("empty stage range: " + range_help);
  for (std::string_view part : split(text, ',')) {
    size_t dots = part.find("..");
    std::optional<int> lo, hi;
    if (dots == std::string_view::npos) {
      lo = hi = parse_depth(part);
    } else {
      lo = parse_depth(part.substr(0, dots));
      hi = parse_depth(part.substr(dots + 2));
    }
    if (!lo || !hi) return bad("'" + std::string(part) + "' is not a stage or range: " + range_help);
    if (*lo < 1 || *hi > fla_max_stage || *lo > fla_max_stage || *hi < 1)
      return bad("stage " + std::to_string(*lo < 1 || *lo > fla_max_stage ? *lo : *hi) + " is outside 1.." +
                 std::to_string(fla_max_stage) + " (num_stages 1 means no software pipelining)");
    if (*lo > *hi) return bad("'" + std::string(part) + "' runs backwards: write " + std::to_string(*hi) + ".." + std::to_string(*lo));
    for (int s = *lo; s <= *hi; ++s) out.insert(s);
  }
  return std::vector<int>(out.begin(), out.end());
}

std::optional<std::vector<std::string>> parse_backends(std::string_view text, std::string* why) {
  std::set<std::string> want;
  for (std::string_view part : split(text, ',')) {
    const auto& all = fla_all_backends();
    if (std::find(all.begin(), all.end(), part) == all.end()) {
      if (why) *why = "unknown backend '" + std::string(part) + "': choose from native, triton, fla";
      return std::nullopt;
    }
    want.insert(std::string(part));
  }
  std::vector<std::string> out;
  for (const std::string& b : fla_all_backends())
    if (want.count(b)) out.push_back(b);
  return out;
}

std::string check_compile_target(std::string_view arch) {
  auto all_of = [](std::string_view t, bool hex) {
    return !t.empty() && std::all_of(t.begin(), t.end(), [hex](char c) {
      return (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
    });
  };
  if (arch.substr(0, 3) == "gfx" && arch.size() >= 6 && arch.size() <= 7 && all_of(arch.substr(3), true)) return "";
  std::string_view sm = arch.substr(0, 3) == "sm_" ? arch.substr(3) : arch;
  if (sm.size() >= 2 && sm.size() <= 3 && all_of(sm, false)) return "";
  return "'" + std::string(arch) + "' is no GPU arch Triton compiles for: give gfxNNNN (AMD, e.g. gfx1201) or a "
         "compute capability such as 90 or sm_90 (NVIDIA)";
}

std::string check_compile_kernels(std::string_view list) {
  std::set<std::string_view> seen;
  for (std::string_view k : split(list, ',')) {
    if (k != "prep" && k != "state" && k != "out")
      return "unknown kernel '" + std::string(k) + "': choose from prep, state, out";
    if (!seen.insert(k).second) return "kernel '" + std::string(k) + "' named twice";
  }
  return "";
}

}  // namespace gs
