// Which environment variables `check` collects: a table of exact names and name prefixes that
// change how the GPU stack behaves (env_vars.cpp says why each one matters). Nothing else is
// collected, and a prefix match whose name looks like a credential is dropped too, so an
// unrelated HF_TOKEN or AWS_SECRET_ACCESS_KEY never enters the facts in the first place.
#pragma once
#include <string_view>

namespace gs {

/// True when `name` is in the table (exact) or under one of its prefixes and not secret-looking.
bool is_relevant_env_var(std::string_view name);
/// Names containing TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH or KEY (as a word part).
bool env_name_looks_secret(std::string_view name);

}  // namespace gs
