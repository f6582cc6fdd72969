// `gpustack fix triton-stages` against a real Python: a throwaway venv (python3 -m venv
// --without-pip) holding a stand-in `triton` (tests/fixtures/python_fakes/triton36, whose
// JITFunction.run echoes the num_stages it is given). Proves the cap applies from interpreter
// start, lazily (triton is not imported until the program imports it), survives a reinstall of
// triton, obeys GPUSTACK_TRITON_STAGES_CAP, refuses files it did not write, and that --remove
// leaves site-packages exactly as it was.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cli/cli.h"
#include "cli/fix_command.h"
#include "core/assets.h"
#include "fix/triton_stages_fix.h"
#include "support/files.h"
#include "sys/subprocess_capture.h"

namespace gs {
namespace {

namespace fs = std::filesystem;
const std::string kFakeTriton = std::string(GPUSTACK_TEST_FIXTURES) + "/python_fakes/triton36/triton";

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.insert(fs::relative(e.path(), dir).string());
  return out;
}

/// One venv for the whole suite (creating one takes a second or more on a busy machine).
class TritonStagesFix : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("gs-flapy-venv-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    std::string cmd = "python3 -m venv --without-pip '" + (root_ / "venv").string() + "' >/dev/null 2>&1";
    ok_ = std::system(cmd.c_str()) == 0;
    if (!ok_) return;
    python_ = (root_ / "venv/bin/python").string();
    std::string err;
    std::optional<python_site> s = python_site_of(python_, &err);
    ok_ = s.has_value();
    if (ok_) site_ = s->purelib;
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  void SetUp() override {
    if (!ok_) GTEST_SKIP() << "python3 -m venv is not available here";
    ::unsetenv("GPUSTACK_TRITON_STAGES_CAP");
    install_triton();
  }
  void TearDown() override {
    stages_fix_args rm;
    rm.remove = true;
    rm.venv = (root_ / "venv").string();
    std::string out, err;
    run_triton_stages_fix(rm, out, err);
    fs::remove_all(fs::path(site_) / "triton");
    fs::remove(fs::path(site_) / kStagesModule);
    fs::remove(fs::path(site_) / kStagesPth);
  }
  static void install_triton() {
    fs::remove_all(fs::path(site_) / "triton");
    fs::copy(kFakeTriton, fs::path(site_) / "triton", fs::copy_options::recursive);
  }
  /// Runs code in the venv's Python (site on, as a user's program starts); its output.
  static std::string py(const std::string& code, std::map<std::string, std::string> env = {}) {
    captured_run r = run_captured({python_, "-c", code}, 30, env);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::string out = r.output;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }
  static int fix(stages_fix_args a, std::string* out = nullptr, std::string* err = nullptr) {
    if (a.python.empty() && a.venv.empty()) a.venv = (root_ / "venv").string();
    std::string o, e;
    int rc = run_triton_stages_fix(a, o, e);
    if (out) *out = o;
    if (err) *err = e;
    return rc;
  }
  static stages_fix_args cap(int n) {
    stages_fix_args a;
    a.max_stages = n;
    return a;
  }
  static stages_fix_args removal() {
    stages_fix_args a;
    a.remove = true;
    return a;
  }
  static inline fs::path root_;
  static inline std::string python_, site_;
  static inline bool ok_ = false;
};

// What a launch is compiled with: explicit 4, explicit 1, and none (the backend default, 3 on CUDA).
const char* kLaunches =
    "import triton\n"
    "f = triton.jit(lambda: None)\n"
    "print(f.run(grid=(1,), warmup=False, num_stages=4).metadata.num_stages,\n"
    "      f[(1,)](num_stages=1).metadata.num_stages,\n"
    "      f.warmup(grid=(1,)).metadata.num_stages)\n";

TEST_F(TritonStagesFix, WithoutTheFixTritonIsUntouched) {
  EXPECT_EQ(py(kLaunches), "4 1 None");
}

TEST_F(TritonStagesFix, CapAppliesFromInterpreterStartLazilyAndSurvivesAReinstall) {
  std::string out, err;
  ASSERT_EQ(fix(cap(2), &out, &err), 0) << out << err;
  EXPECT_NE(out.find("Checked: a fresh interpreter starts with the cap in force"), std::string::npos) << out;
  EXPECT_NE(out.find("gpustack fix triton-stages --remove --venv"), std::string::npos) << out;
  EXPECT_EQ(gs::test::read_file(fs::path(site_) / kStagesModule), *find_asset("probes/python/gpustack_triton_stages.py"));
  std::string pth = gs::test::read_file(fs::path(site_) / kStagesPth);
  EXPECT_EQ(pth.rfind(std::string(kStagesMarker), 0), 0u) << pth;
  EXPECT_NE(pth.find("activate(2)"), std::string::npos) << pth;

  // At start: our module is loaded, triton is not (the hook waits for the program's import).
  EXPECT_EQ(py("import sys; print('triton' in sys.modules, 'gpustack_triton_stages' in sys.modules)"), "False True");
  EXPECT_EQ(py(kLaunches), "2 1 2");
  // pip install --force-reinstall triton replaces triton's files; ours are elsewhere.
  install_triton();
  EXPECT_EQ(py(kLaunches), "2 1 2");
  // Off for one run, or another cap for one run.
  EXPECT_EQ(py(kLaunches, {{"GPUSTACK_TRITON_STAGES_CAP", "off"}}), "4 1 None");
  EXPECT_EQ(py(kLaunches, {{"GPUSTACK_TRITON_STAGES_CAP", "1"}}), "1 1 1");
  // On ROCm the default depth is 2: a cap of 3 leaves a launch that names none alone at 2.
  ASSERT_EQ(fix(cap(3)), 0);
  EXPECT_EQ(py(kLaunches, {{"GS_FAKE_TRITON_BACKEND", "hip"}}), "3 1 2");
  // What the module recorded, for probes that want proof.
  EXPECT_EQ(py(std::string(kLaunches) + "import gpustack_triton_stages as m; print(m.seen())"),
            "3 1 3\n{'<lambda>': [1, 3]}");
}

TEST_F(TritonStagesFix, RemoveLeavesSitePackagesAsItWas) {
  std::set<std::string> before = listing(site_);
  ASSERT_EQ(fix(cap(1)), 0);
  EXPECT_EQ(py(kLaunches), "1 1 1");  // also leaves Python's bytecode of our module behind
  std::string out;
  EXPECT_EQ(fix(removal(), &out), 0) << out;
  EXPECT_NE(out.find("no longer capped"), std::string::npos) << out;
  EXPECT_EQ(py(kLaunches), "4 1 None");
  std::set<std::string> after = listing(site_);
  // __pycache__ of the stand-in triton is Python's own doing; nothing of ours is left.
  for (const std::string& f : after)
    EXPECT_EQ(f.find("gpustack_triton_stages"), std::string::npos) << f;
  for (const std::string& f : before) EXPECT_TRUE(after.count(f)) << f << " disappeared";
  // A second --remove has nothing to do.
  EXPECT_EQ(fix(removal(), &out), 0);
  EXPECT_NE(out.find("No gpustack num_stages cap"), std::string::npos) << out;
}

TEST_F(TritonStagesFix, FilesGpustackDidNotWriteAreNeverTouched) {
  fs::path foreign = fs::path(site_) / kStagesPth;
  std::ofstream(foreign) << "import something_else\n";
  std::string out, err;
  EXPECT_EQ(fix(cap(1), &out, &err), 1);
  EXPECT_NE(err.find("was not written by gpustack"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(fs::path(site_) / kStagesModule)) << "nothing may be written when one file is refused";
  EXPECT_EQ(fix(removal(), &out, &err), 1);
  EXPECT_NE(err.find("left alone"), std::string::npos) << err;
  EXPECT_EQ(gs::test::read_file(foreign), "import something_else\n");
  fs::remove(foreign);
}

TEST_F(TritonStagesFix, DryRunWritesNothing) {
  std::string out;
  stages_fix_args a = cap(1);
  a.dry_run = true;
  EXPECT_EQ(fix(a, &out), 0);
  EXPECT_NE(out.find("Would cap Triton's num_stages at 1"), std::string::npos) << out;
  EXPECT_NE(out.find("activate(1)"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(fs::path(site_) / kStagesPth));
  EXPECT_FALSE(fs::exists(fs::path(site_) / kStagesModule));
  ASSERT_EQ(fix(cap(2)), 0);
  stages_fix_args r = removal();
  r.dry_run = true;
  EXPECT_EQ(fix(r, &out), 0);
  EXPECT_NE(out.find("would remove"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(fs::path(site_) / kStagesPth));
}

TEST_F(TritonStagesFix, BadArgumentsAreUsageErrors) {
  std::string out, err;
  EXPECT_EQ(fix(stages_fix_args{}, &out, &err), 2);
  EXPECT_NE(err.find("give either --max N"), std::string::npos) << err;
  stages_fix_args both = cap(1);
  both.remove = true;
  EXPECT_EQ(fix(both, &out, &err), 2);
  stages_fix_args two = cap(1);
  two.python = python_;
  two.venv = (root_ / "venv").string();
  EXPECT_EQ(fix(two, &out, &err), 2);
  stages_fix_args none = cap(1);
  none.python = "/nonexistent/bin/python3";
  err.clear();
  EXPECT_EQ(fix(none, &out, &err), 2);
  EXPECT_NE(err.find("/nonexistent/bin/python3"), std::string::npos) << err;
}

TEST(TritonStagesFiles, TheCommandLineRejectsWhatItCannotDo) {
  auto cli = [](std::vector<std::string> args) {
    args.insert(args.begin(), "gpustack");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    return run_cli(int(argv.size()), argv.data());
  };
  EXPECT_EQ(cli({"fix"}), 2);                                    // which fix?
  EXPECT_EQ(cli({"fix", "triton-stages"}), 2);                   // neither --max nor --remove
  EXPECT_EQ(cli({"fix", "triton-stages", "--max", "0"}), 2);     // 1..16
  EXPECT_EQ(cli({"fix", "triton-stages", "--max", "2", "--remove"}), 2);
  EXPECT_EQ(cli({"fix", "triton-stages", "--max", "2", "--python", "/nonexistent/python3"}), 2);
}

TEST(TritonStagesFiles, PthRunsTheModuleAndBothCarryTheMarker) {
  std::vector<fix_file> files = triton_stages_files("/x/site-packages/", 3);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "/x/site-packages/gpustack_triton_stages.py");
  EXPECT_EQ(files[1].path, "/x/site-packages/gpustack_triton_stages.pth");
  for (const fix_file& f : files) EXPECT_EQ(f.content.rfind(std::string(kStagesMarker), 0), 0u) << f.path;
  // site.py executes only .pth lines that start with "import".
  EXPECT_NE(files[1].content.find("\nimport gpustack_triton_stages as _gpustack_ts; _gpustack_ts.activate(3)\n"),
            std::string::npos)
      << files[1].content;
}

}  // namespace
}  // namespace gs
