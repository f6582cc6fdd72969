// read_report_file: JSON first; failing that, the first fenced json block of a Markdown report
// (its fence may be longer than three backticks, render_markdown picks one longer than any
// backtick run in the body).
#include "report/report_file.h"

#include "core/file_io.h"

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
    std::string text;
    if (!read_whole_file(path, text, error)) return false;
    ss << text;
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
  // The shape every report has had since schema 1 (reports/schema/report.schema.json): enough
  // that `report show` never prints an empty report for something else, while a report from
  // an older or newer gpustack with other fields still reads.
  auto type_name = [](const nlohmann::json& j) { return std::string(j.type_name()); };
  const nlohmann::json* tool = out.contains("tool") ? &out["tool"] : nullptr;
  if (!tool || !tool->is_object() || tool->value("name", "") != "gpustack") {
    error = name + ": not a gpustack report (no tool.name \"gpustack\")";
    return false;
  }
  for (const char* list : {"probes", "findings", "gpus"}) {
    if (!out.contains(list)) continue;
    const nlohmann::json& l = out[list];
    if (!l.is_array()) {
      error = name + ": not a gpustack report ('" + list + "' is " + type_name(l) + ", not a list)";
      return false;
    }
    for (const nlohmann::json& e : l)
      if (!e.is_object()) {
        error = name + ": not a gpustack report ('" + list + "' holds " + type_name(e) + ", not objects)";
        return false;
      }
  }
  if (!out.contains("summary") || !out["summary"].is_object() || !out["summary"].contains("status")) {
    error = name + ": not a gpustack report (no summary.status)";
    return false;
  }
  return true;
}

}  // namespace gs
