// Small text helpers shared by every parser (sysfs/procfs, pastes, Python metadata, rule
// files): trimming, splitting, ASCII case folding and strict number parsing. Strict because a sysfs value that does not parse must become a
// detection_issue, not a silent 0 (std::stoul would accept "12abc" and throw on "").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gs::scan {

/// `s` without leading and trailing spaces, tabs, CR and LF.
std::string_view trim(std::string_view s);

/// Whitespace-separated fields of one line (spaces and tabs; runs count once). Views into `line`.
std::vector<std::string_view> fields(std::string_view line);

/// Lines of `text` without their '\n' (a final line without '\n' is included).
std::vector<std::string_view> lines(std::string_view text);

/// Unsigned decimal, the whole of `s` (after trim); nullopt on anything else or overflow.
std::optional<uint64_t> parse_u64(std::string_view s);

/// Decimal that may start with '-' (the kernel prints some int32 fields with %u, some with %d);
/// a negative value wraps like the kernel's %u would show it.
std::optional<uint64_t> parse_u64_or_negative(std::string_view s);

/// Hex with an optional "0x" prefix ("0x7551", "c0"); nullopt on anything else or overflow.
std::optional<uint64_t> parse_hex(std::string_view s);

/// Lower-case hex, zero padded to `width` digits ("7551", "00c0").
std::string hex(uint64_t v, int width);

/// True when `s` holds only printable ASCII and tabs (sysfs text files always do; binary junk
/// in a captured tree does not).
bool printable(std::string_view s);

/// An ASCII decimal digit, whatever the locale (std::isdigit's answer depends on it).
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// An ASCII letter or digit, whatever the locale.
inline bool is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/// The last component of a '/'-separated path ("/usr/bin/docker" -> "docker"); the whole string
/// when it has no '/'.
inline std::string_view last_path_part(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// `v`, or "(none)" when it is empty: a table cell or a before/after column never shows a gap.
inline std::string or_none(const std::string& v) { return v.empty() ? "(none)" : v; }

/// Case-insensitive "contains".
bool icontains(std::string_view haystack, std::string_view needle);

/// `s` with ASCII A-Z lowered; other bytes (UTF-8 included) unchanged, whatever the locale.
std::string lower(std::string_view s);

/// ASCII case-insensitive equality ("Name" == "name"; metadata keys, version labels).
bool iequals(std::string_view a, std::string_view b);

/// The parts of `s` between each `sep`, empty ones kept: "a,,b" -> {"a", "", "b"}, "" -> {""}.
/// Views into `s`.
std::vector<std::string_view> split(std::string_view s, char sep);
/// The non-empty parts of `s` between each `sep`: "/a//b/" at '/' -> {"a", "b"}, "" -> {}.
/// Views into `s` (path components, PATH-style lists).
std::vector<std::string_view> split_nonempty(std::string_view s, char sep);

}  // namespace gs::scan
