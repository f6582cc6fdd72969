// Shell words, sizes and variable substitution: what every container spec reader needs.
#include <cmath>
#include <cstdlib>

#include "container/container_read.h"
#include "core/edit_distance.h"
#include "core/text_scan.h"

namespace gs::container_read {

std::vector<std::string> shell_words(std::string_view s) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) out.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    if (c == '#' && !in_word) break;  // a comment runs to the end
    in_word = true;
    if (c == '\'') {
      size_t e = s.find('\'', i + 1);
      if (e == std::string_view::npos) e = s.size();
      word.append(s.substr(i + 1, e - i - 1));
      i = e;
    } else if (c == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '"' || s[i + 1] == '\\' || s[i + 1] == '$')) ++i;
        word += s[i];
      }
    } else if (c == '\\' && i + 1 < s.size()) {
      word += s[++i];
    } else {
      word += c;
    }
  }
  if (in_word) out.push_back(word);
  return out;
}

namespace {

/// A number then a unit, both read strictly; nullopt when the unit is not one of `units`.
std::optional<double> sized(std::string_view s, std::initializer_list<std::pair<std::string_view, double>> units) {
  std::string t(scan::trim(s));
  if (t.empty() || t.size() > 32) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || !std::isfinite(v) || v < 0) return std::nullopt;
  std::string unit(end);
  for (auto [u, mult] : units)
    if (unit == u) return v * mult;
  return std::nullopt;
}

}  // namespace

std::optional<double> docker_size(std::string_view s) {
  // docker's RAMInBytes: b, k, m, g, t (optionally followed by b), any case, 1024-based.
  std::string t = scan::lower(scan::trim(s));
  constexpr double K = 1024.0;
  return sized(t, {{"", 1}, {"b", 1}, {"k", K}, {"kb", K}, {"m", K * K}, {"mb", K * K}, {"g", K * K * K},
                   {"gb", K * K * K}, {"t", K * K * K * K}, {"tb", K * K * K * K}});
}

std::optional<double> k8s_quantity(std::string_view s) {
  constexpr double K = 1024.0;
  return sized(s, {{"", 1}, {"Ki", K}, {"Mi", K * K}, {"Gi", K * K * K}, {"Ti", K * K * K * K}, {"k", 1e3},
                   {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}});
}

std::string device_path_typo(std::string_view path) {
  if (path.rfind("/dev/kfd", 0) == 0 || path.rfind("/dev/dri", 0) == 0 || path.rfind("/dev/nvidia", 0) == 0) return "";
  for (std::string_view want : {"/dev/kfd", "/dev/dri"})
    if (edit_distance(path, want) <= 2) return std::string(path) + " (" + std::string(want) + "?)";
  return "";
}

std::string substitute(std::string_view s, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '$' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    if (s[i + 1] == '{') {
      size_t close = s.find('}', i + 2);
      if (close == std::string_view::npos) {
        out += s.substr(i);
        break;
      }
      std::string_view body = s.substr(i + 2, close - i - 2);
      std::string_view name = body, fallback;
      bool has_default = false;
      if (size_t d = body.find_first_of(":-"); d != std::string_view::npos) {
        name = body.substr(0, d);
        size_t skip = body.compare(d, 2, ":-") == 0 ? 2 : 1;
        has_default = body[d] == '-' || skip == 2;
        fallback = body.substr(d + skip);
      }
      auto it = vars.find(std::string(name));
      if (it != vars.end() && !it->second.empty()) out += it->second;
      else if (has_default) out += fallback;
      else out += s.substr(i, close - i + 1);
      i = close;
      continue;
    }
    size_t e = i + 1;
    while (e < s.size() && (scan::is_alnum(s[e]) || s[e] == '_')) ++e;
    auto it = e > i + 1 ? vars.find(std::string(s.substr(i + 1, e - i - 1))) : vars.end();
    if (it != vars.end()) {
      out += it->second;
      i = e - 1;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace gs::container_read
