// Reading a (possibly malformed or older) report: the renderers walk paths that may be missing
// or hold the wrong type, and must still draw something.
#pragma once
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

namespace gs {

/// j[a][b]... as text: strings as they are, numbers and booleans printed; "" when a step is
/// missing, not an object, or the end is not a scalar.
std::string json_text_at(const nlohmann::json& j, std::initializer_list<const char*> path);

/// j[k] when it is an object, else an empty object: a malformed report must still render.
const nlohmann::json& json_object_at(const nlohmann::json& j, const char* k);

/// j[k] when it is an array, else an empty array.
const nlohmann::json& json_array_at(const nlohmann::json& j, const char* k);

}  // namespace gs
