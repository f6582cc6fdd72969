// Whole-file reads and writes for tests (fixtures, reports a command wrote, generated docs), a
// scratch directory, and a membership test for lists.
#pragma once
#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

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

/// A fresh directory under $TMPDIR for one test, removed with everything in it at scope end.
struct temp_dir {
  std::string path;
  temp_dir();
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

/// Whether `v` holds `x` (a list of ids, names, flags a test expects).
inline bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace gs::test
