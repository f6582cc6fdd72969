// Whole-file reads and writes for tests: fixtures, reports a command wrote, generated docs.
#pragma once
#include <filesystem>
#include <string>

namespace gs::test {

/// The bytes of `path`; "" when it cannot be opened (the caller's EXPECT says what was missing).
std::string read_file(const std::filesystem::path& path);
/// Replace `path` with `bytes`.
void write_file(const std::filesystem::path& path, const std::string& bytes);

}  // namespace gs::test
