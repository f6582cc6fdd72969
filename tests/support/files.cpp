#include "support/files.h"

#include <stdlib.h>

#include <fstream>
#include <sstream>

namespace gs::test {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

temp_dir::temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "gpustack-test-XXXXXX").string();
  path = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
}

temp_dir::~temp_dir() {
  std::error_code ec;
  if (!path.empty()) std::filesystem::remove_all(path, ec);
}

}  // namespace gs::test
