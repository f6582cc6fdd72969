// NVIDIA procfs parsers (see nvidia_proc.h).
#include "detect/nvidia_proc.h"

#include "core/text_scan.h"

namespace gs {
namespace {

/// digits '.' digits ('.' digits)? and nothing else.
bool is_driver_version(std::string_view t) {
  int groups = 0;
  size_t i = 0;
  while (i < t.size()) {
    size_t j = i;
    while (j < t.size() && scan::is_digit(t[j])) ++j;
    if (j == i) return false;
    ++groups;
    if (j == t.size()) break;
    if (t[j] != '.') return false;
    i = j + 1;
    if (i == t.size()) return false;  // "580." is not a version
  }
  return groups == 2 || groups == 3;
}

}  // namespace

std::string find_driver_version(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    std::string_view tok = s.substr(i, j - i);
    if (!tok.empty() && is_driver_version(tok)) return std::string(tok);
    i = j;
  }
  return "";
}

nvidia_banner parse_nvidia_version(std::string_view text) {
  nvidia_banner b;
  for (std::string_view line : scan::lines(text)) {
    constexpr std::string_view kTag = "NVRM version:";
    size_t at = line.find(kTag);
    if (at == std::string_view::npos) continue;
    std::string_view rest = scan::trim(line.substr(at + kTag.size()));
    b.banner.assign(rest);
    // Tokens, not a regex: "x86_64" holds digits but is no version; "(nixbld@)" is a builder.
    b.version = find_driver_version(rest);
    b.open_module = rest.find("Open Kernel Module") != std::string_view::npos;
    b.ok = !b.version.empty();
    break;
  }
  return b;
}

std::map<std::string, std::string> parse_nvidia_information(std::string_view text) {
  std::map<std::string, std::string> out;
  for (std::string_view line : scan::lines(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    std::string_view key = scan::trim(line.substr(0, colon));
    if (key.empty()) continue;
    out.emplace(std::string(key), std::string(scan::trim(line.substr(colon + 1))));
  }
  return out;
}

std::vector<nvidia_proc_gpu> read_nvidia_proc_gpus(const sysroot& sys) {
  std::vector<nvidia_proc_gpu> out;
  const std::string base = "/proc/driver/nvidia/gpus";
  for (const std::string& bus : sys.list(base)) {
    nvidia_proc_gpu g;
    g.bus = bus;
    read_result r = sys.read(base + "/" + bus + "/information");
    if (r) g.info = parse_nvidia_information(*r.text);
    else g.err = r.err;
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace gs
