// Every test process gets a private XDG_DATA_HOME before any test runs, so a gpustack child
// started by a test (`gpustack probe ...` records its results in the compatibility matrix,
// docs/matrix.md) never writes into the real ~/.local/share. Removed again at exit.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

struct private_data_home {
  std::string dir;
  private_data_home() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gpustack-test-data-XXXXXX").string();
    if (char* d = ::mkdtemp(tmpl.data())) {
      dir = d;
      ::setenv("XDG_DATA_HOME", d, 1);
    }
  }
  ~private_data_home() {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};

const private_data_home kDataHome;

}  // namespace
