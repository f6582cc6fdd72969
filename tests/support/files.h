// Whole-file reads and writes for tests: fixtures, reports a command wrote, generated docs.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace gs::test {

/// The bytes of `path`; "" when it cannot be opened (the caller's EXPECT says what was missing).
std::string read_file(const std::filesystem::path& path);
/// tests/fixtures/<sub>/ with its trailing slash: the one spelling of a fixture directory (two
/// files of one unity batch that each defined a kDir for it did not compile).
inline std::string fixture_dir(std::string_view sub) {
  return std::string(GPUSTACK_TEST_FIXTURES) + "/" + std::string(sub) + "/";
}
/// Replace `path` with `bytes`.
void write_file(const std::filesystem::path& path, const std::string& bytes);

}  // namespace gs::test
