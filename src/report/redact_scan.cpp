// Pattern scanners for redaction. Each is one left-to-right pass that copies the input and
// swaps what it recognises; a 1 MiB sysfs/METADATA file costs ~10 passes x 1 MiB, a few ms.
// Matching is deliberately on token boundaries so "hf_hub_download" or "task-runner" survive.
#include "report/redact_scan.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/text_scan.h"
#include "report/redact.h"

namespace gs::scan {

const char* const kRedacted = "<redacted>";

namespace {

bool hexd(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool word(char c) { return scan::is_alnum(c) || c == '_'; }
/// A character of a KEY in KEY=value, or of a token glued to one.
bool key_char(char c) { return word(c) || c == '-'; }
bool b64url(char c) { return word(c) || c == '-'; }
bool upper_digit(char c) { return (c >= 'A' && c <= 'Z') || scan::is_digit(c); }

size_t run(std::string_view s, size_t i, bool (*cls)(char)) {
  size_t j = i;
  while (j < s.size() && cls(s[j])) ++j;
  return j - i;
}

bool starts_with_ci(std::string_view s, size_t i, std::string_view p) {
  if (s.size() - i < p.size()) return false;
  for (size_t k = 0; k < p.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(s[i + k])) != std::tolower(static_cast<unsigned char>(p[k])))
      return false;
  return true;
}

struct token_shape {
  std::string_view prefix;
  bool (*cls)(char);
  size_t min_len;  ///< characters after the prefix
};

// Lengths: HF tokens are hf_ + 34, GitHub ghp_ + 36, OpenAI sk-(proj-)… 48+, Slack xoxb-… 50+.
// Minimums sit well below those and well above identifiers such as hf_hub or sk-learn.
constexpr std::array<token_shape, 14> kTokens{{
    {"github_pat_", word, 20},        {"hf_", scan::is_alnum, 20},   {"ghp_", scan::is_alnum, 20},
    {"gho_", scan::is_alnum, 20},     {"ghs_", scan::is_alnum, 20},  {"ghu_", scan::is_alnum, 20},
    {"ghr_", scan::is_alnum, 20},     {"glpat-", b64url, 20},        {"sk-", b64url, 20},
    {"npm_", scan::is_alnum, 30},     {"pypi-", b64url, 50},         {"AIza", b64url, 30},
    {"xox", b64url, 12},  // xoxb-/xoxp-/xoxa-/xoxr-/xoxs-: checked below
    {"AKIA", upper_digit, 16},
}};

/// Length of a token starting at i, 0 if none; `keep` = how much of it stays visible.
size_t match_token(std::string_view s, size_t i, size_t& keep) {
  for (const token_shape& t : kTokens) {
    if (s.compare(i, t.prefix.size(), t.prefix) != 0) continue;
    size_t p = i + t.prefix.size();
    if (t.prefix == "xox") {
      if (p + 1 >= s.size() || std::string_view("baprs").find(s[p]) == std::string_view::npos || s[p + 1] != '-')
        continue;
      size_t n = run(s, p + 2, b64url);
      if (n < 10) continue;
      keep = 5;
      return 5 + n;
    }
    size_t n = run(s, p, t.cls);
    if (t.prefix == "AKIA") {
      if (n != 16) continue;
    } else if (n < t.min_len) {
      continue;
    }
    keep = t.prefix.size();
    return t.prefix.size() + n;
  }
  if (s.compare(i, 4, "ASIA") == 0 && run(s, i + 4, upper_digit) == 16) {
    keep = 4;
    return 20;
  }
  // JWT: base64url("{"...) always starts "eyJ"; header.payload.signature.
  if (s.compare(i, 3, "eyJ") == 0) {
    size_t a = run(s, i, b64url);
    size_t p = i + a;
    if (a >= 10 && p < s.size() && s[p] == '.' && s.compare(p + 1, 3, "eyJ") == 0) {
      size_t b = run(s, p + 1, b64url);
      size_t q = p + 1 + b;
      if (b >= 10 && q < s.size() && s[q] == '.') {
        size_t c = run(s, q + 1, b64url);
        keep = 0;
        return q + 1 + c - i;
      }
    }
  }
  if (starts_with_ci(s, i, "bearer ")) {
    size_t p = i + 7;
    while (p < s.size() && s[p] == ' ') ++p;
    size_t n = 0;
    while (p + n < s.size() && (b64url(s[p + n]) || std::string_view("._~+/=").find(s[p + n]) != std::string_view::npos)) ++n;
    if (n >= 16) {
      keep = 7;
      return p + n - i;
    }
  }
  return 0;
}

bool secret_value_stop(char c, char quote) {
  if (quote) return c == quote || c == '\n';
  return std::isspace(static_cast<unsigned char>(c)) || std::string_view(",;&\"')]}>").find(c) != std::string_view::npos;
}

}  // namespace

std::string secret_tokens(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t keep = 0, n = 0;
    if ((i == 0 || !scan::is_alnum(s[i - 1])) && (n = match_token(s, i, keep)) > 0) {
      out.append(s.substr(i, keep));
      out.append(kRedacted);
      i += n;
      continue;
    }
    out += s[i++];
  }
  return out;
}

std::string url_userinfo(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    size_t at = s.find("://", i);
    if (at == std::string_view::npos) break;
    size_t start = at + 3;
    out.append(s.substr(i, start - i));
    size_t j = start;
    bool colon = false;
    while (j < s.size() && std::string_view("/@ \t\r\n\"'<>").find(s[j]) == std::string_view::npos) {
      colon |= s[j] == ':';
      ++j;
    }
    if (j < s.size() && s[j] == '@' && colon && j > start) {
      out.append(kRedacted);
      i = j;  // keeps the '@'
    } else {
      i = start;
    }
  }
  out.append(s.substr(std::min(i, s.size())));
  return out;
}

std::string secret_assignments(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    bool starts = (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_') && (i == 0 || !key_char(s[i - 1]));
    if (!starts) {
      out += s[i++];
      continue;
    }
    size_t j = i + run(s, i, key_char);
    std::string_view name = s.substr(i, j - i);
    if (!is_secret_name(name)) {
      out.append(name);
      i = j;
      continue;
    }
    size_t k = j;
    if (k < s.size() && (s[k] == '"' || s[k] == '\'')) ++k;
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
    bool assign = k < s.size() && (s[k] == '=' || s[k] == ':') &&
                  !(k + 1 < s.size() && (s[k + 1] == '=' || s[k + 1] == ':' || s[k + 1] == '/'));
    if (!assign) {
      out.append(name);
      i = j;
      continue;
    }
    ++k;
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
    char quote = 0;
    if (k < s.size() && (s[k] == '"' || s[k] == '\'')) quote = s[k++];
    size_t v = k;
    while (v < s.size() && !secret_value_stop(s[v], quote)) ++v;
    std::string_view value = s.substr(k, v - k);
    out.append(s.substr(i, k - i));
    if (!value.empty() && value.front() != '<') out.append(kRedacted);
    else out.append(value);
    i = v;
  }
  return out;
}

std::string literals(std::string_view s, const std::vector<std::string>& values, std::string_view replacement) {
  std::string cur(s);
  for (const std::string& v : values) {
    if (v.empty() || cur.find(v) == std::string::npos) continue;
    std::string next;
    size_t i = 0;
    for (size_t at; (at = cur.find(v, i)) != std::string::npos; i = at + v.size()) {
      next.append(cur, i, at - i);
      next.append(replacement);
    }
    next.append(cur, i);
    cur.swap(next);
  }
  return cur;
}

std::string bounded_word(std::string_view s, std::string_view w, std::string_view replacement, bool dot_is_boundary) {
  if (w.empty()) return std::string(s);
  std::string out;
  size_t i = 0;
  for (size_t at; (at = s.find(w, i)) != std::string_view::npos;) {
    size_t end = at + w.size();
    auto glued = [&](char c) { return key_char(c) || (!dot_is_boundary && c == '.'); };
    bool ok = (at == 0 || !glued(s[at - 1])) && (end == s.size() || !glued(s[end]));
    out.append(s.substr(i, at - i));
    out.append(ok ? replacement : w);
    i = end;
  }
  out.append(s.substr(i));
  return out;
}

std::string path_prefix(std::string_view s, std::string_view dir, std::string_view replacement) {
  if (dir.empty()) return std::string(s);
  std::string out;
  size_t i = 0;
  for (size_t at; (at = s.find(dir, i)) != std::string_view::npos;) {
    size_t end = at + dir.size();
    bool ok = (at == 0 || !key_char(s[at - 1])) && (end == s.size() || !(key_char(s[end]) || s[end] == '.'));
    out.append(s.substr(i, at - i));
    out.append(ok ? replacement : dir);
    i = end;
  }
  out.append(s.substr(i));
  return out;
}

std::string home_dirs(std::string_view s) {
  static constexpr std::string_view kHome = "/home/";
  std::string out;
  size_t i = 0;
  for (size_t at; (at = s.find(kHome, i)) != std::string_view::npos;) {
    size_t p = at + kHome.size();
    size_t e = p;
    while (e < s.size() && std::string_view("/ \t\r\n:;,'\"<>)]}=").find(s[e]) == std::string_view::npos) ++e;
    out.append(s.substr(i, p - i));
    std::string_view name = s.substr(p, e - p);
    out.append(name.empty() ? name : std::string_view("<user>"));
    i = e;
  }
  out.append(s.substr(i));
  return out;
}

std::string uuids(std::string_view s, bool same_shape) {
  static constexpr std::array<int, 5> kGroups{8, 4, 4, 4, 12};
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (i > 0 && scan::is_alnum(s[i - 1])) {
      out += s[i++];
      continue;
    }
    size_t p = i;
    if (s.compare(i, 4, "GPU-") == 0 || s.compare(i, 4, "MIG-") == 0) p += 4;
    size_t q = p;
    bool ok = true;
    for (size_t g = 0; g < kGroups.size() && ok; ++g) {
      if (g > 0) ok = q < s.size() && s[q++] == '-';
      if (ok) ok = run(s, q, hexd) == static_cast<size_t>(kGroups[g]);
      q += kGroups[g];
    }
    if (ok && (q >= s.size() || !scan::is_alnum(s[q]))) {
      std::string_view m = s.substr(i, q - i);
      if (same_shape) out.append(same_shape_pseudonym(m));
      else out.append(p > i ? stable_serial_id(m) : "UUID-" + stable_serial_id(m).substr(4));
      i = q;
      continue;
    }
    out += s[i++];
  }
  return out;
}

std::string macs(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    bool start = i + 17 <= s.size() && (i == 0 || !(scan::is_alnum(s[i - 1]) || s[i - 1] == ':' || s[i - 1] == '-'));
    if (start) {
      char sep = s[i + 2];
      bool ok = sep == ':' || sep == '-';
      for (size_t g = 0; g < 6 && ok; ++g) {
        ok = hexd(s[i + 3 * g]) && hexd(s[i + 3 * g + 1]) && (g == 5 || s[i + 3 * g + 2] == sep);
      }
      if (ok && i + 17 < s.size() && (scan::is_alnum(s[i + 17]) || s[i + 17] == sep)) ok = false;
      if (ok) {
        std::string_view m = s.substr(i, 17);
        bool zero = m.find_first_not_of("0:-") == std::string_view::npos;
        bool bcast = m.find_first_not_of("fF:-") == std::string_view::npos;
        out.append(zero || bcast ? m : std::string_view("<mac>"));
        i += 17;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

std::string ipv6(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    bool start = (hexd(s[i]) || s[i] == ':') && (i == 0 || !(scan::is_alnum(s[i - 1]) || s[i - 1] == ':' || s[i - 1] == '.'));
    if (start) {
      size_t e = i;
      while (e < s.size() && (hexd(s[e]) || s[e] == ':')) ++e;
      std::string_view m = s.substr(i, e - i);
      bool glued = e < s.size() && (scan::is_alnum(s[e]) || s[e] == '.');
      // Count groups; "::" may appear once and stands for one or more zero groups.
      size_t dbl = m.find("::");
      bool ok = !glued && m.find(":::") == std::string_view::npos &&
                (dbl == std::string_view::npos || m.find("::", dbl + 1) == std::string_view::npos);
      size_t groups = 0;
      for (size_t k = 0; ok && k < m.size();) {
        if (m[k] == ':') {
          ++k;
          continue;
        }
        size_t n = run(m, k, hexd);
        if (n > 4) ok = false;
        ++groups;
        k += n;
      }
      if (ok) ok = dbl != std::string_view::npos ? groups >= 2 && groups <= 7 : groups == 8;
      if (ok && (m.front() == ':' && dbl != 0)) ok = false;
      if (ok && (m.back() == ':' && dbl != m.size() - 2)) ok = false;
      if (ok) {
        out.append("<ipv6>");
        i = e;
        continue;
      }
      if (!hexd(s[i])) {
        out += s[i++];
        continue;
      }
      // Not an address: copy the whole hex run so its tail is not re-tried as a start.
      out.append(m);
      i = e;
      continue;
    }
    out += s[i++];
  }
  return out;
}

std::string ipv4(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool version_line = false;  // "Version: 9.1.0.70", "__version__ = '12.4.5.8'"
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '\n') version_line = false;
    if ((s[i] == 'v' || s[i] == 'V') && starts_with_ci(s, i, "version")) version_line = true;
    bool start = scan::is_digit(s[i]) && (i == 0 || !(scan::is_alnum(s[i - 1]) || s[i - 1] == '.' || s[i - 1] == '_'));
    if (!start) {
      out += s[i++];
      continue;
    }
    size_t q = i;
    int octet[4] = {};
    bool ok = true;
    for (int g = 0; g < 4 && ok; ++g) {
      if (g > 0) ok = q < s.size() && s[q++] == '.';
      size_t n = ok ? run(s, q, scan::is_digit) : 0;
      ok = ok && n >= 1 && n <= 3;
      if (ok) octet[g] = std::stoi(std::string(s.substr(q, n)));
      ok = ok && octet[g] <= 255;
      q += n;
    }
    if (ok && q < s.size() && (scan::is_alnum(s[q]) || (s[q] == '.' && q + 1 < s.size() && scan::is_digit(s[q + 1])))) ok = false;
    if (ok) {
      char prev = i > 0 ? s[i - 1] : 0;
      char prev2 = i > 1 ? s[i - 2] : 0;
      bool versionish = prev == '-' || prev == 'v' || prev == 'V' || prev == '+' ||
                        (prev == '=' && std::string_view("=<>~!").find(prev2) != std::string_view::npos && prev2);
      versionish |= version_line;
      bool harmless = octet[0] == 127 || octet[0] == 255 || (octet[0] == 0 && octet[1] == 0 && octet[2] == 0 && octet[3] == 0);
      if (!versionish && !harmless) {
        out.append("<ip>");
        i = q;
        continue;
      }
      out.append(s.substr(i, q - i));
      i = q;
      continue;
    }
    // Copy the whole digit/dot run so "1.2.3.4.5" is not re-tried from its second number.
    size_t e = i;
    while (e < s.size() && (scan::is_digit(s[e]) || s[e] == '.')) ++e;
    out.append(s.substr(i, e - i));
    i = e;
  }
  return out;
}

}  // namespace gs::scan
