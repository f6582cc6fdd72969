// Environment variables from a paste: `env` / `printenv` / `export -p` dumps, `export K=V`,
// Windows `set K=V` and `$env:K="V"`, Dockerfile `ENV K=V`, `docker run -e K=V`, assignments in
// front of a command (`HSA_OVERRIDE_GFX_VERSION=10.3.0 python train.py`), `os.environ["K"] = "V"`,
// and K=V written inside a sentence when K looks like a variable (upper case with an '_').
// A dump (8+ assignments including PATH, HOME or SHELL) makes the env facts complete.
#include <algorithm>
#include <cctype>

#include "explain/paste_scan.h"

namespace gs {
namespace {

/// /etc/os-release and lsb-release keys: facts about the OS (extract_prose.cpp), not settings.
bool os_release_key(const std::string& k) {
  static constexpr std::string_view keys[] = {"NAME", "VERSION", "ID", "ID_LIKE", "PRETTY_NAME", "VERSION_ID", "HOME_URL",
                                              "SUPPORT_URL", "BUG_REPORT_URL", "PRIVACY_POLICY_URL", "VERSION_CODENAME",
                                              "UBUNTU_CODENAME", "LOGO", "ANSI_COLOR", "CPE_NAME", "BUILD_ID", "VARIANT", "VARIANT_ID",
                                              "DOCUMENTATION_URL", "PLATFORM_ID", "DEBIAN_CODENAME"};
  return std::find(std::begin(keys), std::end(keys), k) != std::end(keys) || k.rfind("DISTRIB_", 0) == 0;
}

bool key_char(char c) { return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'; }

/// Strips one layer of quotes/backticks and trailing punctuation a sentence adds.
std::string clean_value(std::string v) {
  v = trim_copy(v);
  // A sentence's punctuation and Markdown's backticks end the value ("set `HSA_OVERRIDE_GFX_VERSION=10.3.0`.").
  while (!v.empty() && (v.back() == ',' || v.back() == ';' || v.back() == '`' || v.back() == ')' || v.back() == '.' ||
                        v.back() == '!' || v.back() == '?'))
    v.pop_back();
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  while (!v.empty() && (v.front() == '"' || v.front() == '\'' || v.front() == '`')) v.erase(0, 1);
  while (!v.empty() && (v.back() == '"' || v.back() == '\'')) v.pop_back();
  return v;
}

/// A value runs to the next space unless quoted.
std::string value_at(std::string_view t, size_t p) {
  if (p < t.size() && (t[p] == '"' || t[p] == '\'')) {
    size_t close = t.find(t[p], p + 1);
    return std::string(t.substr(p + 1, close == std::string_view::npos ? std::string_view::npos : close - p - 1));
  }
  size_t e = p;
  while (e < t.size() && t[e] != ' ' && t[e] != '\t') ++e;
  return clean_value(std::string(t.substr(p, e - p)));
}

/// Every KEY=VALUE in `t` whose KEY is an upper-case identifier starting at a word boundary;
/// inside prose only keys with an '_' count (A=B in a sentence is rarely a variable).
void assignments(paste_scan& s, size_t i, std::string_view t, bool whole_line_key, int& count, bool& path_like) {
  for (size_t eq = t.find('='); eq != std::string_view::npos; eq = t.find('=', eq + 1)) {
    if (eq == 0 || (eq + 1 < t.size() && t[eq + 1] == '=') || t[eq - 1] == '=' || t[eq - 1] == '!' || t[eq - 1] == '<' || t[eq - 1] == '>') continue;
    size_t b = eq;
    while (b > 0 && key_char(t[b - 1])) --b;
    if (b == eq || std::isdigit(static_cast<unsigned char>(t[b]))) continue;
    if (b > 0 && (std::isalnum(static_cast<unsigned char>(t[b - 1])) || t[b - 1] == '.' || t[b - 1] == '/' || t[b - 1] == '-'))
      continue;
    std::string key(t.substr(b, eq - b));
    if (os_release_key(key)) continue;
    bool at_start = trim_copy(t.substr(0, b)).empty() || t[b - 1] == '"';
    if (key.find('_') == std::string::npos && !(whole_line_key && at_start)) continue;
    // docker inspect's Env array: "NVIDIA_REQUIRE_CUDA=cuda>=10.0 brand=tesla": the quotes hold it all.
    std::string value;
    if (b > 0 && t[b - 1] == '"') {
      size_t close = t.find('"', eq + 1);
      value = std::string(t.substr(eq + 1, close == std::string_view::npos ? std::string_view::npos : close - eq - 1));
    } else {
      value = value_at(t, eq + 1);
    }
    s.propose("env." + key, value, i, "env", at_start ? weight::labelled : weight::prose);
    ++count;
    if (key == "PATH" || key == "HOME" || key == "SHELL" || key == "PWD") path_like = true;
  }
}

}  // namespace

/// Libraries' own advice names variables the user has not set: torch's "For debugging consider
/// passing CUDA_LAUNCH_BLOCKING=1", its OOM message's "try setting PYTORCH_CUDA_ALLOC_CONF=
/// expandable_segments:True", "Enable it with TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1".
bool advice_line(std::string_view lower) {
  for (std::string_view w : {"consider passing", "consider setting", "enable it with", "to enable", "try setting",
                             "you can set", "please set", "can be set", "by setting", "if you want", "you may set",
                             "you can try", "recommended to set", "should set", "must set", "compile with", "to avoid", "run with",
                             "rerun with", "re-run with", "for details", "for more information"})
    if (lower.find(w) != std::string_view::npos) return true;
  return false;
}

void scan_env(paste_scan& s) {
  int count = 0;
  bool path_like = false;
  for (size_t i = 0; i < s.lines.size(); ++i) {
    const std::string& l = s.lines[i];
    if (l.size() > 4096 || l.find('=') == std::string::npos) continue;
    std::string t = trim_copy(l);
    for (std::string_view prefix : {"export ", "declare -x ", "set ", "ENV ", "$env:", "$Env:"})
      if (t.rfind(prefix, 0) == 0) t = trim_copy(t.substr(prefix.size()));
    // os.environ["K"] = "V" / os.environ['K']='V' / os.environ.setdefault("K", "V")
    for (size_t p = t.find("environ["); p != std::string::npos; p = t.find("environ[", p + 1)) {
      size_t q1 = t.find_first_of("\"'", p);
      size_t q2 = q1 == std::string::npos ? q1 : t.find(t[q1], q1 + 1);
      size_t eq = q2 == std::string::npos ? q2 : t.find('=', q2);
      if (eq == std::string::npos || (eq + 1 < t.size() && t[eq + 1] == '=')) continue;
      size_t v = t.find_first_not_of(' ', eq + 1);  // the quoted value alone, not the sentence after it
      if (v == std::string::npos) continue;
      s.propose("env." + t.substr(q1 + 1, q2 - q1 - 1), value_at(t, v), i, "env", weight::labelled);
      ++count;
    }
    if (t.find("environ[") != std::string::npos) continue;
    if (advice_line(lower_copy(t))) continue;
    assignments(s, i, t, true, count, path_like);
  }
  if (count > 0) s.kind("env");
  if (count >= 8 && path_like) s.env_dump = true;
}

}  // namespace gs
