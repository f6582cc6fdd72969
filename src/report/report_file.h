// Reading a saved report: the JSON file `--json -o` wrote, or the Markdown `--markdown` wrote
// (an issue comment pasted into a file), whose JSON sits in a fenced ```json block.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace gs {

/// Reads `path` ("-" = standard input) into `out`. false with `error` set when the file cannot
/// be read, holds no JSON object, or is not a schema_version 1 gpustack report.
bool read_report_file(const std::string& path, nlohmann::json& out, std::string& error);

/// The same on text already read; `name` prefixes the error ("report.md: not a gpustack report").
bool parse_report_text(const std::string& text, const std::string& name, nlohmann::json& out, std::string& error);

}  // namespace gs
