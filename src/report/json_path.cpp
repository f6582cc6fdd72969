#include "report/json_path.h"

#include <fmt/format.h>

namespace gs {

std::string json_text_at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* cur = &j;
  for (const char* k : path) {
    if (!cur->is_object()) return "";
    auto it = cur->find(k);
    if (it == cur->end()) return "";
    cur = &*it;
  }
  if (cur->is_string()) return cur->get<std::string>();
  if (cur->is_number_integer()) return std::to_string(cur->get<long long>());
  if (cur->is_number()) return fmt::format("{}", cur->get<double>());
  if (cur->is_boolean()) return cur->get<bool>() ? "true" : "false";
  return "";
}

const nlohmann::json& json_object_at(const nlohmann::json& j, const char* k) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(k);
  return (it != j.end() && it->is_object()) ? *it : kEmpty;
}

const nlohmann::json& json_array_at(const nlohmann::json& j, const char* k) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(k);
  return (it != j.end() && it->is_array()) ? *it : kEmpty;
}

}  // namespace gs
