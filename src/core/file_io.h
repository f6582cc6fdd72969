// Reading and writing whole files with the operating system's reason when it fails ("cannot
// write out.json: Permission denied"), and writes that replace a file only once complete (a
// temporary beside it, then rename), so a full disk or a Ctrl-C never leaves half a report.
#pragma once
#include <string>
#include <string_view>

namespace gs {

/// The whole file into `out`; false with `error` = "cannot read PATH: <strerror>".
bool read_whole_file(const std::string& path, std::string& out, std::string& error);
/// `text` into `path` through PATH.tmp.<pid> and rename(2); false with `error` =
/// "cannot write PATH: <strerror>" (the temporary is removed).
bool write_file_atomically(const std::string& path, std::string_view text, std::string& error);

}  // namespace gs
