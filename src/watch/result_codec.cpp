// probe_result as JSON over the watchdog pipe (see result_codec.h).
#include "watch/result_codec.h"

namespace gs {

std::string encode_probe_result(const probe_result& r) {
  nlohmann::json j = {{"id", r.id},
                      {"status", std::string(to_string(r.outcome))},
                      {"phase", r.phase},
                      {"duration_ms", r.duration_ms},
                      {"detail", r.detail},
                      {"data", r.data},
                      {"finding_ids", r.finding_ids},
                      {"kernel_log", r.kernel_log}};
  // A probe may put invalid UTF-8 (a vendor error string) into detail; replace, never throw.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<probe_result> decode_probe_result(std::string_view text, std::string* why) {
  auto fail = [&](std::string w) -> std::optional<probe_result> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return fail("not a JSON object");
  probe_result r;
  auto str = [&](const char* key, std::string& out) {
    auto it = j.find(key);
    if (it == j.end()) return true;
    if (!it->is_string()) return false;
    out = it->get<std::string>();
    return true;
  };
  std::string st;
  if (!str("id", r.id) || !str("phase", r.phase) || !str("detail", r.detail) || !str("status", st))
    return fail("a text field is not a string");
  auto s = parse_status(st);
  if (!s) return fail("unknown status '" + st + "'");
  r.outcome = *s;
  if (auto it = j.find("duration_ms"); it != j.end()) {
    if (!it->is_number()) return fail("duration_ms is not a number");
    r.duration_ms = it->get<double>();
  }
  if (auto it = j.find("data"); it != j.end()) {
    if (!it->is_object()) return fail("data is not an object");
    r.data = *it;
  }
  for (auto [key, out] : {std::pair{"finding_ids", &r.finding_ids}, std::pair{"kernel_log", &r.kernel_log}}) {
    auto it = j.find(key);
    if (it == j.end()) continue;
    if (!it->is_array()) return fail(std::string(key) + " is not an array");
    for (const auto& e : *it) {
      if (!e.is_string()) return fail(std::string(key) + " holds a non-string");
      out->push_back(e.get<std::string>());
    }
  }
  return r;
}

}  // namespace gs
