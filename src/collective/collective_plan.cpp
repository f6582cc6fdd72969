// Parsing the plan of `probe collective` (collective_plan.h).
#include "collective/collective_plan.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/text_scan.h"

namespace gs {

using scan::lower;
using scan::split;
using scan::trim;

const std::vector<std::string>& collective_ops() {
  static const std::vector<std::string> ops = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "p2p"};
  return ops;
}

std::optional<uint64_t> parse_byte_count(std::string_view text, std::string* why) {
  std::string t(trim(text));
  size_t digits = 0;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  std::string unit = lower(t.substr(digits));
  int shift = -1;
  if (unit.empty() || unit == "b") shift = 0;
  else if (unit == "k" || unit == "kib" || unit == "kb") shift = 10;
  else if (unit == "m" || unit == "mib" || unit == "mb") shift = 20;
  else if (unit == "g" || unit == "gib" || unit == "gb") shift = 30;
  if (digits == 0 || digits > 11 || shift < 0) {  // 16 GiB is 11 digits
    if (why) *why = "'" + t + "' is not a size: give bytes or a number with K, M or G (4K, 64M, 1G)";
    return std::nullopt;
  }
  uint64_t v = std::stoull(t.substr(0, digits)) << shift;
  if (v == 0 || v > (16ull << 30)) {
    if (why) *why = "'" + t + "' is outside 1 byte to 16 GiB";
    return std::nullopt;
  }
  return v;
}

std::vector<uint64_t> size_ladder(uint64_t lo, uint64_t hi) {
  std::vector<uint64_t> out;
  for (uint64_t s = lo; s < hi; s *= 4) out.push_back(s);
  out.push_back(hi);
  return out;
}

std::optional<std::vector<std::string>> parse_collective_ops(std::string_view text, std::string* why) {
  if (trim(text) == "all") return collective_ops();
  std::vector<std::string> asked;
  for (std::string_view part : split(text, ',')) {
    std::string op = lower(trim(part));
    std::replace(op.begin(), op.end(), '-', '_');
    const auto& known = collective_ops();
    if (std::find(known.begin(), known.end(), op) == known.end()) {
      if (why) *why = "unknown operation '" + std::string(trim(part)) + "' (all_reduce, all_gather, reduce_scatter, broadcast, p2p or all)";
      return std::nullopt;
    }
    asked.push_back(op);
  }
  if (asked.empty()) {
    if (why) *why = "name at least one operation";
    return std::nullopt;
  }
  std::vector<std::string> ordered;
  for (const std::string& op : collective_ops())
    if (std::find(asked.begin(), asked.end(), op) != asked.end()) ordered.push_back(op);
  return ordered;
}

std::optional<std::string> parse_collective_fault(std::string_view text, std::string* why) {
  std::vector<std::string_view> parts = split(text, ':');
  if (parts.size() == 3 && (parts[0] == "hang" || parts[0] == "crash" || parts[0] == "linger")) {
    std::string rank(parts[1]);
    bool digits = !rank.empty() && rank.size() < 4 &&
                  std::all_of(rank.begin(), rank.end(), [](char c) { return c >= '0' && c <= '9'; });
    std::string op(parts[2]);
    const auto& known = collective_ops();
    if (digits && (op == "any" || std::find(known.begin(), known.end() - 1, op) != known.end() - 1))
      return nlohmann::json{{"kind", std::string(parts[0])}, {"rank", std::stoi(rank)}, {"op", op}}.dump();
  }
  if (why) *why = "'" + std::string(text) + "': expected hang:RANK:OP, crash:RANK:OP or linger:RANK:OP";
  return std::nullopt;
}

}  // namespace gs
