#include "support/run_binary.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/files.h"

namespace gs::testing {
run_output run_gpustack(const std::string& args, const std::string& input) {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "gpustack-run-XXXXXX").string();
  fs::path dir = ::mkdtemp(tmpl.data());
  { std::ofstream(dir / "in", std::ios::binary) << input; }
  std::string cmd = "cd '" + dir.string() + "' && GPUSTACK_STATE_DIR='" + dir.string() + "' XDG_DATA_HOME='" + dir.string() +
                    "' '" GPUSTACK_BINARY "' " + args +
                    " <'" + (dir / "in").string() + "' >'" + (dir / "out").string() + "' 2>'" + (dir / "err").string() + "'";
  int status = std::system(cmd.c_str());
  run_output r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = gs::test::read_file(dir / "out");
  r.err = gs::test::read_file(dir / "err");
  std::error_code ec;
  fs::remove_all(dir, ec);
  return r;
}

}  // namespace gs::testing
