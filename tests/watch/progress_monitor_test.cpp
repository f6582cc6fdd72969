// Deadlines and the no-progress check with made-up clocks and CPU readings: fires for a
// process frozen at 0 % CPU in launch/sync, not for one that works, beats, or compiles.
#include <gtest/gtest.h>

#include "watch/progress_monitor.h"

namespace gs {
namespace {

watch_limits limits() {
  watch_limits l;  // defaults: launch/sync 30 s, compile 120 s, window 10 s
  return l;
}

TEST(PhaseDeadlines, DefaultsAndOverride) {
  phase_deadlines d = phase_deadlines::defaults();
  EXPECT_EQ(d.for_phase("compile"), 120);
  EXPECT_EQ(d.for_phase("load"), 30);
  EXPECT_EQ(d.for_phase("launch"), 30);
  EXPECT_EQ(d.for_phase("sync"), 30);
  EXPECT_EQ(d.for_phase("verify"), 60);
  EXPECT_EQ(d.for_phase("start"), 30);
  EXPECT_EQ(d.for_phase("something-else"), 60);
  d.override_all(2);
  EXPECT_EQ(d.for_phase("compile"), 2);
  EXPECT_EQ(d.for_phase("something-else"), 2);
}

TEST(ProgressMonitor, DeadlineIsPerPhaseFromItsStart) {
  watch_limits l = limits();
  progress_monitor m(l, 0);
  EXPECT_EQ(m.phase(), "");
  EXPECT_FALSE(m.deadline_passed(29.9));
  EXPECT_TRUE(m.deadline_passed(30));
  m.enter_phase("compile", 20);
  EXPECT_FALSE(m.deadline_passed(139));  // a 119 s JIT is fine
  EXPECT_TRUE(m.deadline_passed(140));
  m.enter_phase("sync", 100);
  m.heartbeat(125);  // beats do not move the deadline
  EXPECT_TRUE(m.deadline_passed(130));
}

TEST(ProgressMonitor, FrozenCpuInSyncIsNoProgress) {
  watch_limits l = limits();
  progress_monitor m(l, 0);
  m.enter_phase("sync", 0);
  for (double t = 0; t <= 9.5; t += 0.5) m.cpu_sample(t, 3.0);
  EXPECT_FALSE(m.no_progress());
  m.cpu_sample(10.0, 3.0);
  EXPECT_TRUE(m.no_progress());
  EXPECT_EQ(m.no_progress_phase(), "sync");
  EXPECT_DOUBLE_EQ(m.no_progress_s(), 10.0);
  ASSERT_TRUE(m.cpu_seconds());
  EXPECT_DOUBLE_EQ(*m.cpu_seconds(), 3.0);
}

TEST(ProgressMonitor, TrickleOfCpuIsStillNoProgress) {
  watch_limits l = limits();
  progress_monitor m(l, 0);
  m.enter_phase("launch", 0);
  // 0.5 % of a core (a runtime's helper thread waking now and then): still stuck.
  for (double t = 0; t <= 10.0; t += 0.5) m.cpu_sample(t, 1.0 + 0.005 * t);
  EXPECT_TRUE(m.no_progress());
}

TEST(ProgressMonitor, BusyProcessIsProgress) {
  watch_limits l = limits();
  progress_monitor m(l, 0);
  m.enter_phase("sync", 0);
  for (double t = 0; t <= 29; t += 0.5) m.cpu_sample(t, t);  // 100 %: a host spin-wait
  EXPECT_FALSE(m.no_progress());
}

TEST(ProgressMonitor, HeartbeatsResetTheWindow) {
  watch_limits l = limits();
  progress_monitor m(l, 0);
  m.enter_phase("sync", 0);
  for (double t = 0; t <= 25; t += 0.5) {
    if (static_cast<int>(t * 2) % 10 == 0) m.heartbeat(t);  // every 5 s
    m.cpu_sample(t, 2.0);
  }
  EXPECT_FALSE(m.no_progress());
}

TEST(ProgressMonitor, OnlyWaitingPhasesAreJudged) {
  watch_limits l = limits();
  progress_monitor m(l, 0);
  m.enter_phase("verify", 0);
  for (double t = 0; t <= 50; t += 1) m.cpu_sample(t, 2.0);
  EXPECT_FALSE(m.no_progress());
  m.enter_phase("sync", 50);  // re-anchors: the window starts now
  m.cpu_sample(55, 2.0);
  EXPECT_FALSE(m.no_progress());
  m.cpu_sample(60, 2.0);
  EXPECT_TRUE(m.no_progress());
}

TEST(ProgressMonitor, WindowIsCappedAtHalfTheDeadline) {
  watch_limits l = limits();
  l.deadlines.override_all(2);
  progress_monitor m(l, 0);
  m.enter_phase("launch", 0);
  EXPECT_DOUBLE_EQ(m.window(), 1.0);
  m.cpu_sample(0.0, 0);
  m.cpu_sample(0.9, 0);
  EXPECT_FALSE(m.no_progress());
  m.cpu_sample(1.0, 0);
  EXPECT_TRUE(m.no_progress());
}

TEST(ProgressMonitor, UnreadableCpuJudgesNothing) {
  watch_limits l = limits();
  progress_monitor m(l, 0);
  m.enter_phase("sync", 0);
  for (double t = 0; t <= 29; t += 1) m.cpu_sample(t, std::nullopt);
  EXPECT_FALSE(m.no_progress());
  EXPECT_FALSE(m.cpu_seconds());
}

TEST(ProgressMonitor, LatchesTheFirstStall) {
  watch_limits l = limits();
  progress_monitor m(l, 0);
  m.enter_phase("sync", 0);
  m.cpu_sample(0, 1);
  m.cpu_sample(12, 1);
  EXPECT_TRUE(m.no_progress());
  m.cpu_sample(13, 5);  // it came back to life: the stall stays on record
  m.enter_phase("verify", 14);
  EXPECT_TRUE(m.no_progress());
  EXPECT_EQ(m.no_progress_phase(), "sync");
}

}  // namespace
}  // namespace gs
