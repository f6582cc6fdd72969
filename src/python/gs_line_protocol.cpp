// The `@gs` line parser (gs_line_protocol.h).
#include "python/gs_line_protocol.h"

#include "core/text_scan.h"

namespace gs {
namespace {

constexpr std::string_view kPrefix = "@gs ";
constexpr size_t kMaxPhase = 32;  // the watchdog's own cap on phase names

/// Length of the valid UTF-8 sequence at s[i], 0 when invalid (the report's JSON must be valid).
size_t utf8_len(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  unsigned char c1 = n > 1 ? static_cast<unsigned char>(s[i + 1]) : 0;
  // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are invalid too.
  if ((n == 2 && c < 0xC2) || (c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) ||
      (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90) || c > 0xF4)
    return 0;
  return n;
}

bool phase_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

}  // namespace

gs_line_event parse_gs_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  gs_line_event log_event{gs_line_event::log, std::string(line)};
  if (!line.starts_with(kPrefix)) return log_event;
  std::string_view rest = line.substr(kPrefix.size());
  size_t sp = rest.find(' ');
  std::string_view verb = rest.substr(0, sp);
  std::string_view arg = sp == std::string_view::npos ? std::string_view() : scan::trim(rest.substr(sp + 1));
  if (verb == "heartbeat" && arg.empty()) return {gs_line_event::heartbeat, {}};
  if (verb == "phase") {
    if (arg.empty() || arg.size() > kMaxPhase) return log_event;
    for (char c : arg)
      if (!phase_char(c)) return log_event;
    return {gs_line_event::phase, std::string(arg)};
  }
  if (verb == "result" && !arg.empty() && arg.front() == '{') return {gs_line_event::result, std::string(arg)};
  if (verb == "worker" && !arg.empty() && arg.front() == '{') return {gs_line_event::worker, std::string(arg)};
  return log_event;
}

void gs_line_parser::feed(std::string_view bytes, std::vector<gs_line_event>& out) {
  while (!bytes.empty()) {
    size_t nl = bytes.find('\n');
    std::string_view piece = bytes.substr(0, nl);
    if (skipping_) {
      if (nl == std::string_view::npos) return;
      skipping_ = false;
    } else if (buf_.size() + piece.size() > kMaxLine) {
      // A runaway line: drop it whole, up to its newline, rather than grow without bound.
      buf_.clear();
      ++dropped_;
      if (nl == std::string_view::npos) {
        skipping_ = true;
        return;
      }
    } else if (nl == std::string_view::npos) {
      buf_.append(piece);
      return;
    } else if (buf_.empty()) {
      take(piece, out);
    } else {
      buf_.append(piece);
      take(buf_, out);
      buf_.clear();
    }
    bytes.remove_prefix(nl + 1);
  }
}

void gs_line_parser::finish(std::vector<gs_line_event>& out) {
  if (!buf_.empty() && !skipping_) take(buf_, out);
  buf_.clear();
  skipping_ = false;
}

void gs_line_parser::take(std::string_view line, std::vector<gs_line_event>& out) {
  out.push_back(parse_gs_line(line));
}

void log_tail::add(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (scan::trim(line).empty()) return;
  // Control bytes and invalid UTF-8 become '?', so a dying process's garbage can break
  // neither a terminal nor the report's JSON.
  std::string s;
  size_t i = 0;
  while (i < line.size() && s.size() < max_chars_) {
    size_t n = utf8_len(line, i);
    if (n == 0 || (n == 1 && static_cast<unsigned char>(line[i]) < 0x20 && line[i] != '\t')) {
      s += '?';
      ++i;
    } else {
      s.append(line.substr(i, n));
      i += n;
    }
  }
  if (i < line.size()) s += " [...]";
  lines_.push_back(std::move(s));
  if (lines_.size() > max_lines_) lines_.erase(lines_.begin());
}

}  // namespace gs
