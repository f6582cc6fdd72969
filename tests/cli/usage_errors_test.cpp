// What the user names explicitly and cannot be used is a usage error (exit 2) that says why,
// the same on every command: --python, --venv, unknown commands.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/files.h"
#include "support/run_binary.h"

namespace gs {
namespace {

using gs::testing::run_gpustack;

TEST(UsageErrors, AnUnusablePythonOrVenvIsExit2WithTheReason) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "gs-usage-python";
  std::filesystem::create_directories(dir / "empty");
  struct row {
    std::string args;
    std::string says;
  };
  const row rows[] = {
      {"--python /nonexistent/python", "--python: /nonexistent/python: no such interpreter"},
      {"--python /bin/false", "--python: /bin/false: not a Python interpreter (it is 'false')"},
      {"--venv /nonexistent/venv", "not a directory"},
      {"--venv " + (dir / "empty").string(), "not a Python environment"},
  };
  for (const char* command : {"check", "probe selftest.pass", "probe fla --stages 1", "snapshot -o /dev/null", "train-smoke --model qwen3.5-0.8b"}) {
    for (const row& r : rows) {
      std::string args = std::string(command) + " " + r.args;
      gs::testing::run_output o = run_gpustack(args);
      EXPECT_EQ(o.rc, 2) << args << "\n" << o.err;
      EXPECT_NE(o.err.find(r.says), std::string::npos) << args << "\n[" << o.err << "]";
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(UsageErrors, PythonAndVenvTogetherIsExit2) {
  gs::testing::run_output o = run_gpustack("check --python /usr/bin/python3 --venv /tmp");
  EXPECT_EQ(o.rc, 2) << o.err;
  EXPECT_NE(o.err.find("excludes"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace gs
