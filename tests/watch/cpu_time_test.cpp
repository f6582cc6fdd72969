// CPU time of a process group from /proc/<pid>/stat: the parser (a comm with spaces and
// parentheses, malformed lines), the sum over a captured /proc tree, and the live source.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "watch/watch.h"

namespace gs {
namespace {

// A real line shape (Linux 6.x, 52 fields), trimmed after the fields that matter plus a few.
std::string stat_line(int pid, std::string comm, long pgrp, int ut, int st, int cut, int cst) {
  return std::to_string(pid) + " (" + comm + ") S 1 " + std::to_string(pgrp) + " " +
         std::to_string(pgrp) + " 0 -1 4194560 1234 0 0 0 " + std::to_string(ut) + " " +
         std::to_string(st) + " " + std::to_string(cut) + " " + std::to_string(cst) +
         " 20 0 1 0 12345 1000000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0\n";
}

TEST(ProcStat, ParsesPgrpAndTimes) {
  auto t = parse_proc_stat(stat_line(42, "python3", 40, 100, 20, 3, 4));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->pgrp, 40);
  EXPECT_EQ(t->ticks, 127u);
}

TEST(ProcStat, CommWithSpacesAndParentheses) {
  auto t = parse_proc_stat(stat_line(7, "pt_main (thread) 1", 7, 5, 5, 0, 0));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->pgrp, 7);
  EXPECT_EQ(t->ticks, 10u);
}

TEST(ProcStat, MalformedIsNullopt) {
  EXPECT_FALSE(parse_proc_stat(""));
  EXPECT_FALSE(parse_proc_stat("42 (x"));
  EXPECT_FALSE(parse_proc_stat("42 (x) S 1 2 3"));
  EXPECT_FALSE(parse_proc_stat("42 (x) S 1 abc 2 0 -1 4 1 0 0 0 1 1 1 1 20"));
  EXPECT_FALSE(parse_proc_stat("42 (x) S 1 2 2 0 -1 4 1 0 0 0 1 -1 1 1 20"));
}

TEST(ProcCpuTime, SumsTheGroupInACapturedTree) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("gs-proc-" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto put = [&](int pid, const std::string& text) {
    fs::create_directories(root / "proc" / std::to_string(pid));
    std::ofstream(root / "proc" / std::to_string(pid) / "stat") << text;
  };
  long hz = ::sysconf(_SC_CLK_TCK);
  put(100, stat_line(100, "gpustack", 100, 50, 50, 0, 0));  // not in the group
  put(200, stat_line(200, "probe", 200, 2 * hz, hz, 0, 0));
  put(201, stat_line(201, "probe helper", 200, hz, 0, 0, hz));
  put(202, "garbage");
  fs::create_directories(root / "proc" / "self");  // non-numeric names are ignored
  auto src = proc_cpu_time_source(root.string());
  auto s = src->group_cpu_seconds(200);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(*s, 5.0);
  EXPECT_FALSE(src->group_cpu_seconds(999));  // no member: unreadable, not zero
  fs::remove_all(root);
}

TEST(ProcCpuTime, LiveSourceSeesOwnGroup) {
  auto src = proc_cpu_time_source();
  volatile double x = 0;
  for (int i = 0; i < 20000000; ++i) x = x + i;  // burn a few ticks
  auto s = src->group_cpu_seconds(::getpgrp());
  ASSERT_TRUE(s);
  EXPECT_GT(*s, 0.0);
}

}  // namespace
}  // namespace gs
