// The breadcrumb state file: where it lives, round trip, and the startup check that reports a
// run that never finished (dead pid or another boot) once, and leaves a live run's crumb alone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/utc_time.h"
#include "watch/breadcrumb.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

class BreadcrumbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gs-crumb-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

breadcrumb crumb(long pid, std::string boot = "boot-a") {
  return {"gemm.bf16", "sync", "2026-12-02T15:04:05Z", pid, std::move(boot)};
}

TEST(BreadcrumbDir, Precedence) {
  EXPECT_EQ(breadcrumb_file::default_dir({{"GPUSTACK_STATE_DIR", "/s"}, {"XDG_STATE_HOME", "/x"},
                                          {"HOME", "/h"}}),
            "/s");
  EXPECT_EQ(breadcrumb_file::default_dir({{"XDG_STATE_HOME", "/x"}, {"HOME", "/h"}}), "/x/gpustack");
  EXPECT_EQ(breadcrumb_file::default_dir({{"XDG_STATE_HOME", "relative"}, {"HOME", "/h"}}),
            "/h/.local/state/gpustack");
  EXPECT_EQ(breadcrumb_file::default_dir({{"HOME", "/h"}}), "/h/.local/state/gpustack");
  EXPECT_EQ(breadcrumb_file::default_dir({}), "");
}

TEST_F(BreadcrumbTest, RoundTripCreatesTheDirectory) {
  breadcrumb_file f((dir_ / "nested").string());
  ASSERT_TRUE(f.write(crumb(1234)));
  auto b = f.read();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->probe, "gemm.bf16");
  EXPECT_EQ(b->phase, "sync");
  EXPECT_EQ(b->time_utc, "2026-12-02T15:04:05Z");
  EXPECT_EQ(b->pid, 1234);
  EXPECT_EQ(b->boot_id, "boot-a");
  f.remove();
  EXPECT_FALSE(f.read());
  EXPECT_FALSE(fs::exists(f.path()));
}

TEST_F(BreadcrumbTest, NoDirectoryMeansNoCrumb) {
  breadcrumb_file f("");
  std::string why;
  EXPECT_FALSE(f.write(crumb(1), &why));
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(f.read());
}

TEST_F(BreadcrumbTest, DeadPidIsReportedOnceAndRemoved) {
  breadcrumb_file f(dir_.string());
  ASSERT_TRUE(f.write(crumb(4242, "boot-a")));
  auto msg = take_stale_breadcrumb(f, "boot-a", [](long) { return false; });
  ASSERT_TRUE(msg);
  EXPECT_EQ(*msg,
            "the previous gpustack run did not finish: probe gemm.bf16 was in phase sync at "
            "2026-12-02T15:04:05Z (the machine may have hung)");
  EXPECT_FALSE(fs::exists(f.path()));
  EXPECT_FALSE(take_stale_breadcrumb(f, "boot-a", [](long) { return false; }));
}

TEST_F(BreadcrumbTest, AnotherBootIsStaleEvenIfThePidIsReused) {
  breadcrumb_file f(dir_.string());
  ASSERT_TRUE(f.write(crumb(4242, "boot-a")));
  auto msg = take_stale_breadcrumb(f, "boot-b", [](long) { return true; });
  ASSERT_TRUE(msg);
  EXPECT_NE(msg->find("rebooted"), std::string::npos);
}

TEST_F(BreadcrumbTest, LiveRunIsLeftAlone) {
  breadcrumb_file f(dir_.string());
  ASSERT_TRUE(f.write(crumb(4242, "boot-a")));
  EXPECT_FALSE(take_stale_breadcrumb(f, "boot-a", [](long) { return true; }));
  EXPECT_TRUE(fs::exists(f.path()));
}

TEST_F(BreadcrumbTest, MalformedFileIsReportedAndRemoved) {
  fs::create_directories(dir_);
  breadcrumb_file f(dir_.string());
  for (const char* text : {"{\"probe\": 3}", "not json", "", "[]"}) {
    std::ofstream(f.path()) << text;
    bool malformed = false;
    EXPECT_FALSE(f.read(&malformed));
    EXPECT_TRUE(malformed) << text;
    auto msg = take_stale_breadcrumb(f, "boot-a", [](long) { return false; });
    ASSERT_TRUE(msg) << text;
    EXPECT_NE(msg->find("unreadable"), std::string::npos);
    EXPECT_FALSE(fs::exists(f.path()));
  }
}

TEST(BreadcrumbLive, PidAliveAndBootId) {
  // Alive means "a gpustack process has this pid": the name matters, as pids are reused.
  std::ifstream comm("/proc/self/comm");
  std::string name;
  std::getline(comm, name);
  EXPECT_EQ(pid_alive(::getpid()), name.starts_with("gpustack")) << name;
  EXPECT_FALSE(pid_alive(1));  // init exists, but is not a gpustack
  EXPECT_FALSE(pid_alive(0));
  EXPECT_FALSE(pid_alive(-5));
  EXPECT_FALSE(pid_alive(2147483600L));  // beyond any pid_max
  EXPECT_EQ(utc_now_iso().size(), 20u);
  EXPECT_EQ(current_boot_id(), current_boot_id());
}

}  // namespace
}  // namespace gs
