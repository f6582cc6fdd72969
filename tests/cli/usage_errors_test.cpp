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

TEST(UsageErrors, SetTakesOneSyntaxAndRefusesWhatNoProbeTakes) {
  struct row {
    const char* args;
    int rc;
    const char* says;
  };
  const row rows[] = {
      {"probe tensor.vector_add --device cpu --set n=-5", 2, "-5 is outside 1..268435456 (tensor.vector_add.n: elements)"},
      {"probe tensor.vector_add --device cpu --set n=abc", 2, "'abc' is not a whole number"},
      {"probe tensor.vector_add --device cpu --set iters=3", 2, "no selected probe takes 'iters'; valid keys: tensor.vector_add.n"},
      {"probe tensor.vector_add --device cpu --set tensor.reduce.n=5", 2, "valid keys: tensor.vector_add.n"},
      {"probe tensor.vector_add --device cpu --set n", 2, "write KEY=VALUE or PROBE.KEY=VALUE"},
      {"probe tensor.vector_add --device cpu --set tensor.vector_add.n=1000 --json --no-matrix", 0, "\"elements_checked\": 1000"},
      {"probe tensor.vector_add --device cpu --set n=999 --json --no-matrix", 0, "\"elements_checked\": 999"},
  };
  for (const row& r : rows) {
    gs::testing::run_output o = run_gpustack(r.args);
    EXPECT_EQ(o.rc, r.rc) << r.args << "\n" << o.err;
    EXPECT_NE((r.rc == 0 ? o.out : o.err).find(r.says), std::string::npos) << r.args << "\n" << o.err << o.out.substr(0, 2000);
  }
  // Two probes with the same key take different values when named.
  gs::testing::run_output both =
      run_gpustack("probe tensor.vector_add tensor.reduce --device cpu --set tensor.vector_add.n=1000 --set tensor.reduce.n=77 --json --no-matrix");
  EXPECT_EQ(both.rc, 0) << both.err;
  EXPECT_NE(both.out.find("\"elements_checked\": 1000"), std::string::npos);
}

TEST(UsageErrors, UnknownCommandsTimeoutsAndUnwritableFilesSayWhy) {
  gs::testing::run_output o = run_gpustack("chek");
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.err.find("unknown command 'chek' (did you mean check?)"), std::string::npos) << o.err;
  o = run_gpustack("bogus --help");
  EXPECT_EQ(o.rc, 2) << "help for a command that does not exist is an error";
  EXPECT_NE(o.err.find("unknown command 'bogus'"), std::string::npos) << o.err;
  for (const char* cmd : {"probe selftest.pass --timeout 0", "probe fla --timeout 0", "train-smoke --model qwen3.5-0.8b --timeout 0"}) {
    o = run_gpustack(cmd);
    EXPECT_EQ(o.rc, 2) << cmd;
    EXPECT_NE(o.err.find("from 1 to 86400"), std::string::npos) << cmd << "\n" << o.err;
    EXPECT_LT(o.err.size(), 400u) << o.err;
  }
  o = run_gpustack("check -o /proc/gs-cannot-write.json");
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.err.find("cannot write /proc/gs-cannot-write.json: "), std::string::npos) << o.err;
  o = run_gpustack("train-smoke --help");
  EXPECT_EQ(o.out.find("estimate --list`"), std::string::npos) << "no pointer to a command that does not exist";
}

TEST(UsageErrors, SysrootTakesTheSnapshotArchive) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "gs-usage-sysroot";
  std::filesystem::create_directories(dir);
  std::string archive = (dir / "m.tar.gz").string();
  gs::testing::run_output snap = run_gpustack("snapshot -o '" + archive + "'");
  ASSERT_EQ(snap.rc, 0) << snap.err;
  gs::testing::run_output from_archive = run_gpustack("check --json --sysroot '" + archive + "'");
  EXPECT_NE(from_archive.rc, 2) << from_archive.err;
  EXPECT_NE(from_archive.out.find("\"schema_version\": 1"), std::string::npos) << from_archive.err;
  std::string not_archive = (dir / "notes.txt").string();
  gs::test::write_file(not_archive, "hello\n");
  gs::testing::run_output bad = run_gpustack("check --sysroot '" + not_archive + "'");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("neither a directory nor a snapshot archive"), std::string::npos) << bad.err;
  std::filesystem::remove_all(dir);
}

TEST(UsageErrors, PythonAndVenvTogetherIsExit2) {
  gs::testing::run_output o = run_gpustack("check --python /usr/bin/python3 --venv /tmp");
  EXPECT_EQ(o.rc, 2) << o.err;
  EXPECT_NE(o.err.find("excludes"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace gs
