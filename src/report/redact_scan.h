// The pattern scanners behind redactor (report/redact.cpp): hand-written, linear, no
// std::regex (which recurses per character and overflows the stack on a 1 MiB file).
// Internal to src/report/.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace gs::scan {

extern const char* const kRedacted;  ///< "<redacted>"

/// Tokens by shape: hf_, ghp_/gho_/ghs_/ghu_/ghr_, github_pat_, glpat-, sk-, xox?-, npm_,
/// pypi-, AIza, AKIA/ASIA, JWTs, "Bearer <token>". The recognisable prefix is kept.
std::string secret_tokens(std::string_view s);
/// scheme://user:pass@host -> scheme://<redacted>@host.
std::string url_userinfo(std::string_view s);
/// NAME=value, NAME: value, "name": "value" where is_secret_name(NAME).
std::string secret_assignments(std::string_view s);
/// Every occurrence of each literal (longest first) -> replacement.
std::string literals(std::string_view s, const std::vector<std::string>& values, std::string_view replacement);
/// Occurrences of `word` not glued to other name characters ([A-Za-z0-9_-]) -> replacement.
std::string bounded_word(std::string_view s, std::string_view word, std::string_view replacement,
                         bool dot_is_boundary);
/// `dir` followed by '/', end or a non-path character -> replacement.
std::string path_prefix(std::string_view s, std::string_view dir, std::string_view replacement);
/// "/home/<name>" -> "/home/<user>" for any name.
std::string home_dirs(std::string_view s);
/// UUIDs (optionally GPU-/MIG- prefixed) -> stable ids, or same-shape pseudonyms.
std::string uuids(std::string_view s, bool same_shape = false);
/// MAC addresses -> "<mac>" (all-zero and broadcast kept).
std::string macs(std::string_view s);
/// IPv6 addresses -> "<ipv6>" (:: and ::1 kept).
std::string ipv6(std::string_view s);
/// IPv4 addresses -> "<ip>" (loopback, 0.0.0.0 and 255.x masks kept). Shapes that read as
/// versions ("cudnn-9.1.0.70", "Version: 9.1.0.70", "==1.2.3.4") are left alone.
std::string ipv4(std::string_view s);

}  // namespace gs::scan
