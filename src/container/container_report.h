// The report's `container` block for `check --container`: the spec and, per container, what was
// read from it (the terminal and Markdown views render it from the JSON, as everything else).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "container/container_spec.h"

namespace gs {

nlohmann::json container_json(const container_spec& spec, const std::string& file);

}  // namespace gs
