// PEP 503 normalisation and PEP 508 name validity, by hand (no std::regex: it is slow and
// recurses deeply on long inputs, and METADATA comes from the user's disk).
#include "python/pep503.h"

namespace gs {
namespace {

bool is_alnum_ascii(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool is_separator(char c) { return c == '-' || c == '_' || c == '.'; }

}  // namespace

std::string pep503_normalize(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool in_run = false;
  for (char c : name) {
    if (is_separator(c)) {
      if (!in_run) out.push_back('-');
      in_run = true;
      continue;
    }
    in_run = false;
    out.push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

bool is_valid_project_name(std::string_view name) {
  if (name.empty() || !is_alnum_ascii(name.front()) || !is_alnum_ascii(name.back())) return false;
  for (char c : name)
    if (!is_alnum_ascii(c) && !is_separator(c)) return false;
  return true;
}

}  // namespace gs
