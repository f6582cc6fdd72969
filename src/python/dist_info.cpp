// Core-metadata header parsing. The format is "what email.parser compat32 accepts": Name: value
// lines, continuation lines starting with whitespace, headers end at the first blank line. We
// need only three headers, so the reader is a forgiving line scanner that rejects binary junk
// instead of guessing (a half-written METADATA after a killed pip is a real case).
#include "python/dist_info.h"

#include <nlohmann/json.hpp>

#include "core/text_scan.h"
#include "python/pep503.h"

namespace gs {
namespace {

using scan::iequals;

/// PEP 440 versions (and the legacy ones pip still tolerates) are short printable ASCII.
bool plausible_version(std::string_view v) {
  if (v.empty() || v.size() > 128) return false;
  for (unsigned char c : v)
    if (c <= 0x20 || c >= 0x7f) return false;
  return true;
}

}  // namespace

bool parse_dist_metadata(std::string_view text, dist_metadata& out, std::string& error) {
  out = {};
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  bool have_name = false, have_version = false;
  for (std::string_view line : scan::lines(text)) {
    if (line.find('\0') != std::string_view::npos) {
      error = "binary data in the metadata headers";
      return false;
    }
    if (scan::trim(line).empty()) break;                       // end of headers
    if (line.front() == ' ' || line.front() == '\t') continue;  // continuation of a header we skip
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) break;  // not a header: the headers are over
    std::string_view key = scan::trim(line.substr(0, colon)), value = scan::trim(line.substr(colon + 1));
    // First occurrence wins, as email.parser's msg["Name"] returns the first.
    if (!have_name && iequals(key, "Name")) {
      out.name = std::string(value);
      have_name = true;
    } else if (!have_version && iequals(key, "Version")) {
      out.version = std::string(value);
      have_version = true;
    } else if (out.metadata_version.empty() && iequals(key, "Metadata-Version")) {
      out.metadata_version = std::string(value);
    }
  }
  if (!have_name) {
    error = "no Name header";
    return false;
  }
  if (!have_version) {
    error = "no Version header";
    return false;
  }
  if (!is_valid_project_name(out.name)) {
    error = "Name is not a valid project name";
    return false;
  }
  if (!plausible_version(out.version)) {
    error = "Version is empty or has spaces or control characters";
    return false;
  }
  return true;
}

std::optional<dist_dir_name> split_dist_dir_name(std::string_view dirname) {
  dist_dir_name d;
  constexpr std::string_view kDist = ".dist-info", kEgg = ".egg-info";
  auto ends_with = [&](std::string_view suf) {
    return dirname.size() > suf.size() && dirname.substr(dirname.size() - suf.size()) == suf;
  };
  if (ends_with(kDist)) {
    dirname.remove_suffix(kDist.size());
  } else if (ends_with(kEgg)) {
    dirname.remove_suffix(kEgg.size());
    d.egg_info = true;
  } else {
    return std::nullopt;
  }
  size_t dash = dirname.find('-');
  d.name = std::string(dirname.substr(0, dash));
  if (dash != std::string_view::npos) {
    std::string_view rest = dirname.substr(dash + 1);
    // egg-info names may carry "-py3.12" after the version: drop it.
    size_t py = rest.find("-py");
    d.version = std::string(rest.substr(0, py));
  }
  if (d.name.empty()) return std::nullopt;
  return d;
}

std::string parse_installer(std::string_view text) {
  size_t nl = text.find('\n');
  std::string_view first = scan::trim(text.substr(0, nl));
  if (first.empty() || first.size() > 64) return "";
  for (unsigned char c : first)
    if (c < 0x20 || c >= 0x7f) return "";
  return std::string(first);
}

bool direct_url_is_editable(std::string_view json_text) {
  auto j = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return false;
  auto di = j.find("dir_info");
  if (di == j.end() || !di->is_object()) return false;
  auto ed = di->find("editable");
  return ed != di->end() && ed->is_boolean() && ed->get<bool>();
}

}  // namespace gs
