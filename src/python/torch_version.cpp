// Line scanner for torch/version.py. Only simple assignments of string literals matter; anything
// else (imports, expressions, comments) is skipped, and a malformed file yields empty fields.
#include "python/torch_version.h"

#include "core/text_scan.h"

namespace gs {
namespace {

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// 'x' or "x" without escapes (version strings have none); false for None or anything else.
bool string_literal(std::string_view v, std::string& out) {
  if (v.size() < 2 || (v.front() != '\'' && v.front() != '"')) return false;
  char q = v.front();
  size_t close = v.find(q, 1);
  if (close == std::string_view::npos) return false;
  std::string_view rest = scan::trim(v.substr(close + 1));
  if (!rest.empty() && rest.front() != '#') return false;  // 'a' + b: an expression, not a literal
  out = std::string(v.substr(1, close - 1));
  return true;
}

}  // namespace

torch_version_py parse_torch_version_py(std::string_view text) {
  torch_version_py r;
  for (std::string_view line : scan::lines(text)) {
    // Only top-level statements: generated files never indent the assignments we want.
    if (line.empty() || !is_ident_char(line.front())) continue;
    size_t i = 0;
    while (i < line.size() && is_ident_char(line[i])) ++i;
    std::string_view name = line.substr(0, i);
    std::string_view rest = scan::trim(line.substr(i));
    if (!rest.empty() && rest.front() == ':') {  // annotation: "Optional[str] = ..."
      size_t eq = rest.find('=');
      if (eq == std::string_view::npos) continue;
      rest = rest.substr(eq);
    }
    if (rest.empty() || rest.front() != '=' || (rest.size() > 1 && rest[1] == '=')) continue;
    std::string_view value = scan::trim(rest.substr(1));
    std::string* field = nullptr;
    if (name == "__version__") field = &r.version;
    else if (name == "cuda") field = &r.cuda;
    else if (name == "hip") field = &r.hip;
    else if (name == "git_version") field = &r.git_version;
    if (!field) continue;
    r.any = true;
    std::string s;
    if (string_literal(value, s)) *field = s;
    else field->clear();  // None, or something we do not evaluate: absent
  }
  return r;
}

}  // namespace gs
