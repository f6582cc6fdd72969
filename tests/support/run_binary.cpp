#include "support/run_binary.h"

#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "support/files.h"
#include "support/shell.h"

namespace gs::testing {

run_output run_gpustack(const std::string& args, const std::string& input) {
  return run_gpustack(args, run_options{.input = input});
}

run_output run_gpustack(const std::string& args, const run_options& options) {
  namespace fs = std::filesystem;
  // The streams live in a directory of their own, so a test's `dir` keeps only what gpustack
  // wrote there (a test may look for a file named "out").
  std::string tmpl = (fs::temp_directory_path() / "gpustack-run-XXXXXX").string();
  fs::path streams = ::mkdtemp(tmpl.data());
  fs::path dir = options.dir.empty() ? streams : options.dir;
  { std::ofstream(streams / "in", std::ios::binary) << options.input; }
  std::string cmd = "cd '" + dir.string() + "' && GPUSTACK_STATE_DIR='" + dir.string() + "' XDG_DATA_HOME='" + dir.string() +
                    "' " + options.env + " '" GPUSTACK_BINARY "' " + args + " <'" + (streams / "in").string() + "' >'" +
                    (streams / "out").string() + "' 2>'" + (streams / "err").string() + "'";
  auto t0 = std::chrono::steady_clock::now();
  int status = std::system(cmd.c_str());
  run_output r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = gs::test::read_file(streams / "out");
  r.err = gs::test::read_file(streams / "err");
  std::error_code ec;
  fs::remove_all(streams, ec);
  return r;
}

std::string torchless_python() { return gs::test::torchless("/usr/bin/python3"); }

std::optional<run_output> run_without_torch(const std::string& args) {
  const std::string py = torchless_python();
  if (gs::test::python_has_torch(py)) return std::nullopt;
  return run_gpustack(args + " --python '" + py + "' --json");
}

}  // namespace gs::testing
