// libhsakmt's override parse and the visible-device mask walk. Both emulate C library
// behaviour on purpose (sscanf's %u skips blanks and accepts a sign; a trailing character
// makes %c match a fourth field), because the question is what the runtime does, not what is
// tidy.
#include "rules/gpu_env.h"

#include <cctype>
#include <cstdio>
#include <set>
#include <vector>

#include "core/text_scan.h"

namespace gs {
namespace {

/// One sscanf "%u": blanks, an optional sign, at least one digit. Values wrap like strtoul
/// into unsigned int would, which for a range check only needs "too big".
bool scan_u(std::string_view s, size_t& i, unsigned long long& out) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  unsigned long long v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    v = v > 1000000000000ULL ? v : v * 10 + static_cast<unsigned>(s[i] - '0');
    ++i;
  }
  out = negative && v ? ~0ULL : v;  // "-1" through %u is 4294967295: out of range
  return true;
}

}  // namespace

std::string gfx_name(unsigned major, unsigned minor, unsigned stepping) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "gfx%u%x%x", major, minor, stepping);
  return buf;
}

std::optional<std::string> hsa_override_gfx(std::string_view value) {
  size_t i = 0;
  unsigned long long f[3];
  for (int k = 0; k < 3; ++k) {
    if (k > 0) {
      if (i >= value.size() || value[i] != '.') return std::nullopt;
      ++i;
    }
    if (!scan_u(value, i, f[k])) return std::nullopt;
  }
  if (i != value.size()) return std::nullopt;  // "%c" would match: four fields, rejected
  if (f[0] > 63 || f[1] > 255 || f[2] > 255) return std::nullopt;
  return gfx_name(static_cast<unsigned>(f[0]), static_cast<unsigned>(f[1]), static_cast<unsigned>(f[2]));
}

mask_effect apply_visible_mask(std::string_view value, int available) {
  mask_effect out;
  std::vector<std::string> entries;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    entries.push_back(std::string(scan::trim(value.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start))));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::set<std::string> seen;
  for (const std::string& e : entries) {
    bool ok = false;
    if (!e.empty() && (std::isdigit(static_cast<unsigned char>(e[0])))) {
      bool digits = true;
      for (char c : e) digits = digits && std::isdigit(static_cast<unsigned char>(c));
      ok = digits && e.size() < 9 && std::stoi(e) < available;
    } else if (e.rfind("GPU-", 0) == 0 || e.rfind("MIG-", 0) == 0 || e.rfind("gpu-", 0) == 0) {
      ok = e.size() > 4;  // a UUID: which device it names is unknown here, assume one that exists
    }
    std::string norm = ok && std::isdigit(static_cast<unsigned char>(e[0])) ? std::to_string(std::stoi(e)) : e;
    if (!ok || !seen.insert(norm).second || out.visible >= available) {
      if (!(e.empty() && entries.size() == 1)) {  // "" is "no devices", not a broken entry
        out.truncated = true;
        out.dropped = e;
      }
      break;
    }
    ++out.visible;
  }
  return out;
}

}  // namespace gs
