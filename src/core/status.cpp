#include "core/status.h"

#include <array>
#include <utility>

namespace gs {
namespace {
constexpr std::array<std::pair<status, std::string_view>, 7> kStatusNames{{
    {status::pass, "pass"}, {status::warn, "warn"}, {status::fail, "fail"}, {status::skip, "skip"},
    {status::hang, "hang"}, {status::crash, "crash"}, {status::error, "error"}}};
constexpr std::array<std::pair<severity, std::string_view>, 3> kSeverityNames{{
    {severity::info, "info"}, {severity::warn, "warn"}, {severity::fail, "fail"}}};
}  // namespace

std::string_view to_string(status s) {
  for (auto& [v, n] : kStatusNames)
    if (v == s) return n;
  return "error";
}
std::string_view to_string(severity s) {
  for (auto& [v, n] : kSeverityNames)
    if (v == s) return n;
  return "fail";
}
std::optional<status> parse_status(std::string_view s) {
  for (auto& [v, n] : kStatusNames)
    if (n == s) return v;
  return std::nullopt;
}
std::optional<severity> parse_severity(std::string_view s) {
  for (auto& [v, n] : kSeverityNames)
    if (n == s) return v;
  return std::nullopt;
}
bool is_failure(status s) { return s == status::fail || s == status::crash || s == status::error; }

int severity_rank(severity s) { return s == severity::fail ? 0 : s == severity::warn ? 1 : 2; }

}  // namespace gs
