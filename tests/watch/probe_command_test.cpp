// `gpustack probe` end to end through the built binary: the watchdog self-tests give the
// documented exit codes within seconds and leave no process behind; unknown ids, --list and a
// breadcrumb left by a run that never finished.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/files.h"
#include "support/run_binary.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

using cli_run = gs::testing::run_output;

class ProbeCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gs-probe-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// Runs gpustack with GPUSTACK_STATE_DIR=dir_ (which also marks its processes).
  cli_run run(const std::string& args) { return gs::testing::run_gpustack(args, gs::testing::run_options{.dir = dir_}); }

  /// Processes whose environment carries our state dir: gpustack and anything it forked.
  std::vector<int> marked_processes() {
    std::string marker = "GPUSTACK_STATE_DIR=" + dir_.string();
    std::vector<int> found;
    for (const auto& e : fs::directory_iterator("/proc")) {
      std::string name = e.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string env = gs::test::read_file(e.path() / "environ");
      std::replace(env.begin(), env.end(), '\0', '\n');
      if (("\n" + env).find("\n" + marker + "\n") != std::string::npos) found.push_back(std::stoi(name));
    }
    return found;
  }

  fs::path dir_;
};

TEST_F(ProbeCommand, SelftestHangExits3QuicklyAndLeavesNothingBehind) {
  cli_run r = run("probe selftest.hang --timeout 2 --json");
  EXPECT_EQ(r.rc, 3) << r.err;
  EXPECT_LT(r.seconds, 8.0);
  EXPECT_NE(r.err.find("selftest.hang ... hang in launch"), std::string::npos) << r.err;
  EXPECT_TRUE(marked_processes().empty());
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  ASSERT_TRUE(j.contains("probes")) << r.out;
  bool seen = false;
  for (const auto& p : j["probes"])
    if (p.value("id", "") == "selftest.hang") {
      seen = true;
      EXPECT_EQ(p.value("status", ""), "hang");
      EXPECT_EQ(p.value("phase", ""), "launch");
      int pgid = p["data"].value("pgid", 0);
      ASSERT_GT(pgid, 1);
      EXPECT_TRUE(::kill(-pgid, 0) != 0 && errno == ESRCH) << "group " << pgid << " still exists";
    }
  EXPECT_TRUE(seen) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "breadcrumb.json"));  // not a GPU probe: no crumb
}

TEST_F(ProbeCommand, SelftestCrashExits1) {
  cli_run r = run("probe selftest.crash --json");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("selftest.crash ... crash in launch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("SIGSEGV"), std::string::npos) << r.err;
  EXPECT_TRUE(marked_processes().empty());
}

TEST_F(ProbeCommand, SelftestPassDoesNotHang) {
  cli_run r = run("probe selftest.pass -o '" + (dir_ / "report.json").string() + "' --json");
  EXPECT_TRUE(r.rc == 0 || r.rc == 1) << r.rc << r.err;  // 1 if this machine has failing findings
  EXPECT_NE(r.err.find("selftest.pass ... pass"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "report.json"));
}

TEST_F(ProbeCommand, UnknownIdExits2WithCloseMatches) {
  cli_run r = run("probe selftest.hnag");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("unknown probe 'selftest.hnag'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean selftest.hang"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--list"), std::string::npos);
}

TEST_F(ProbeCommand, BadArgumentsExit2) {
  EXPECT_EQ(run("probe selftest.pass --device gpu0").rc, 2);
  EXPECT_EQ(run("probe selftest.pass --device cuda:x").rc, 2);
  EXPECT_NE(run("probe selftest.pass --device hip:1").rc, 2);
  EXPECT_NE(run("probe selftest.pass --device cpu").rc, 2);
  EXPECT_EQ(run("probe selftest.pass --timeout -1").rc, 2);
}

TEST_F(ProbeCommand, ListShowsProbesAndFlags) {
  cli_run r = run("probe --list");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("selftest.hang"), std::string::npos);
  EXPECT_NE(r.out.find("DEPENDS ON"), std::string::npos);
  EXPECT_NE(r.out.find("ISOLATED"), std::string::npos);
}

TEST_F(ProbeCommand, StaleBreadcrumbIsReported) {
  // pid 2^31-2 cannot exist (pid_max is at most 2^22).
  std::ofstream(dir_ / "breadcrumb.json")
      << R"({"probe":"gemm.bf16","phase":"sync","time":"2026-12-02T15:04:05Z","pid":2147483646,"boot_id":""})";
  cli_run r = run("probe selftest.pass --json");
  EXPECT_NE(r.err.find("the previous gpustack run did not finish: probe gemm.bf16 was in phase "
                       "sync at 2026-12-02T15:04:05Z (the machine may have hung)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "breadcrumb.json"));
  cli_run again = run("probe selftest.pass --json");
  EXPECT_EQ(again.err.find("did not finish"), std::string::npos);  // said once
}

}  // namespace
}  // namespace gs
