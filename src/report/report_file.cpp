// read_report_file: JSON first; failing that, the first fenced json block of a Markdown report
// (its fence may be longer than three backticks, render_markdown picks one longer than any
// backtick run in the body).
#include "report/report_file.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace gs {
namespace {

bool from_markdown(const std::string& text, nlohmann::json& out) {
  size_t pos = 0;
  while ((pos = text.find("```", pos)) != std::string::npos) {
    size_t ticks = pos;
    while (ticks < text.size() && text[ticks] == '`') ++ticks;
    std::string fence = text.substr(pos, ticks - pos);
    if (text.compare(ticks, 5, "json\n") != 0) {
      pos = ticks;
      continue;
    }
    size_t body = ticks + 5;
    size_t end = text.find("\n" + fence, body);
    if (end == std::string::npos) return false;
    out = nlohmann::json::parse(text.substr(body, end - body), nullptr, false);
    return !out.is_discarded();
  }
  return false;
}

}  // namespace

bool read_report_file(const std::string& path, nlohmann::json& out, std::string& error) {
  std::stringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in || !(ss << in.rdbuf())) {
      error = "cannot read " + path;
      return false;
    }
  }
  return parse_report_text(ss.str(), path, out, error);
}

bool parse_report_text(const std::string& text, const std::string& name, nlohmann::json& out, std::string& error) {
  out = nlohmann::json::parse(text, nullptr, false);
  if (out.is_discarded() && !from_markdown(text, out)) {
    error = name + ": neither JSON nor a Markdown report with a ```json block";
    return false;
  }
  if (!out.is_object() || !out.contains("schema_version") || out["schema_version"] != 1) {
    error = name + ": not a gpustack report (schema_version 1)";
    return false;
  }
  return true;
}

}  // namespace gs
