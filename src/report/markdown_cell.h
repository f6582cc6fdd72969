// Text inside a Markdown table cell: a '|' would end the cell and a newline the row, and a
// detail line or an error message may hold either.
#pragma once
#include <string>
#include <string_view>

namespace gs {

/// `s` with '|' escaped and CR/LF flattened to spaces; nothing else changed.
std::string md_cell(std::string_view s);

}  // namespace gs
