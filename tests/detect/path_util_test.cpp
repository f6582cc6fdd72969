// Path helpers and symlink resolution inside a captured tree (absolute links stay inside).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "detect/path_util.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

TEST(PathUtil, Lexical) {
  EXPECT_EQ(path_join("/opt/rocm/", "/lib"), "/opt/rocm/lib");
  EXPECT_EQ(path_join("/", "x"), "/x");
  EXPECT_EQ(path_join("/a", ""), "/a");
  EXPECT_EQ(path_dirname("/a/b"), "/a");
  EXPECT_EQ(path_dirname("/a"), "/");
  EXPECT_EQ(path_dirname("a"), ".");
  EXPECT_EQ(path_basename("/a/b/"), "b");
  EXPECT_EQ(path_normalize("/a//b/./c/../d"), "/a/b/d");
  EXPECT_EQ(path_normalize("/../x"), "/x");
  EXPECT_EQ(path_normalize("a/../../b"), "../b");
  EXPECT_TRUE(path_is_under("/opt/rocm-7.2.0/lib", "/opt/rocm-7.2.0"));
  EXPECT_TRUE(path_is_under("/opt/rocm-7.2.0", "/opt/rocm-7.2.0"));
  EXPECT_FALSE(path_is_under("/opt/rocm-7.2.01/lib", "/opt/rocm-7.2.0"));
  EXPECT_EQ(split_path_list(":/a::/b:"), (std::vector<std::string>{"/a", "/b"}));
}

class ResolveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("gs_resolve_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "opt/rocm-7.2.0/lib");
    fs::create_directories(root_ / "etc/alternatives");
    fs::create_symlink("/opt/rocm-7.2.0", root_ / "etc/alternatives/rocm");  // absolute
    fs::create_symlink("/etc/alternatives/rocm", root_ / "opt/rocm");
    fs::create_symlink("loop2", root_ / "loop1");
    fs::create_symlink("loop1", root_ / "loop2");
    fs::create_symlink("../opt/./rocm-7.2.0/lib", root_ / "etc/rel");
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(ResolveTest, AbsoluteLinksStayInsideTheTree) {
  sysroot sys = sysroot::captured(root_.string());
  EXPECT_EQ(resolve_path(sys, "/opt/rocm"), "/opt/rocm-7.2.0");
  EXPECT_EQ(resolve_path(sys, "/opt/rocm/lib/libamdhip64.so"), "/opt/rocm-7.2.0/lib/libamdhip64.so");
  EXPECT_EQ(resolve_path(sys, "/etc/rel"), "/opt/rocm-7.2.0/lib");
  EXPECT_TRUE(stat_resolved(sys, "/opt/rocm").is_dir);
  EXPECT_EQ(resolve_path(sys, "/no/such/../path"), "/no/path");
}

TEST_F(ResolveTest, LoopsEnd) {
  sysroot sys = sysroot::captured(root_.string());
  EXPECT_EQ(resolve_path(sys, "/loop1"), "/loop1");
}

}  // namespace
}  // namespace gs
