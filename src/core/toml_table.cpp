#include "core/toml_table.h"

#include <cstdio>

#include "core/text_scan.h"

namespace gs {

std::string table_error::to_string() const {
  return path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

void print_table_errors(const std::vector<table_error>& errors) {
  for (const table_error& e : errors) std::fprintf(stderr, "gpustack: %s\n", e.to_string().c_str());
}

table_error error_at(std::string_view path, const toml::node& n, std::string msg) {
  return {std::string(path), static_cast<int>(n.source().begin.line), static_cast<int>(n.source().begin.column),
          std::move(msg)};
}

std::optional<toml::table> parse_toml_table(std::string_view path, std::string_view text, std::vector<table_error>& errors) {
  int line = 1, column = 1;
  for (unsigned char c : text) {
    if (c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      errors.push_back({std::string(path), line, column, "byte 0x" + scan::hex(c, 2) + ": the hardware tables are printable ASCII"});
      return std::nullopt;
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    errors.push_back({std::string(path), static_cast<int>(e.source().begin.line), static_cast<int>(e.source().begin.column),
                      std::string(e.description())});
    return std::nullopt;
  }
}

}  // namespace gs
