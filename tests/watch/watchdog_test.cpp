// run_watched against real child processes: a result, a hang in each kind of phase, crashes
// (SIGSEGV, an OOM-like SIGKILL), an exit without a result, and process-group clean-up when a
// grandchild ignores SIGTERM or outlives the child. After every run no process of the child's
// group may exist: kill(-pgid, 0) must fail with ESRCH.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "watch/pipe_protocol.h"
#include "watch/watch.h"
#include "watch/watch_test_util.h"

namespace gs {
namespace {

using testing::fast_limits;
using testing::gone;
using testing::scripted_cpu;

[[noreturn]] void sleep_forever() {
  for (;;) ::pause();
}

TEST(Watchdog, FinishedChildReturnsPayloadAndPhase) {
  watch_outcome w = run_watched(
      [](child_reporter& r) {
        r.phase("compile");
        r.phase("verify");
        return std::string("payload\nwith newline");
      },
      fast_limits(), nullptr);
  EXPECT_EQ(w.end, watch_end::finished);
  ASSERT_TRUE(w.payload);
  EXPECT_EQ(*w.payload, "payload\nwith newline");
  EXPECT_EQ(w.phase, "verify");
  EXPECT_EQ(w.exit_code, 0);
  EXPECT_EQ(w.signal, 0);
  EXPECT_FALSE(w.left_processes);
  EXPECT_TRUE(gone(-w.pgid));
}

TEST(Watchdog, HangInLaunchIsKilledAtTheDeadlineWithNoProgressRecorded) {
  scripted_cpu cpu([](int) { return 0.5; });  // CPU time frozen: blocked in a driver wait
  auto t0 = std::chrono::steady_clock::now();
  watch_outcome w = run_watched(
      [](child_reporter& r) -> std::string {
        r.phase("launch");
        sleep_forever();
      },
      fast_limits(1.0), &cpu);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(w.end, watch_end::hang);
  EXPECT_EQ(w.phase, "launch");
  EXPECT_GE(w.phase_elapsed_s, 1.0);
  EXPECT_DOUBLE_EQ(w.deadline_s, 1.0);
  EXPECT_EQ(w.signal, SIGTERM);  // it died of our SIGTERM: no SIGKILL needed
  EXPECT_TRUE(w.no_progress);
  EXPECT_EQ(w.no_progress_phase, "launch");
  ASSERT_TRUE(w.cpu_seconds);
  EXPECT_DOUBLE_EQ(*w.cpu_seconds, 0.5);
  EXPECT_LT(took, 3.0);
  EXPECT_TRUE(gone(-w.pgid));
}

TEST(Watchdog, BusyHangIsStillAHangButNotNoProgress) {
  scripted_cpu cpu([](int n) { return 0.05 * n; });  // a full core: real work, or a spin
  watch_outcome w = run_watched(
      [](child_reporter& r) -> std::string {
        r.phase("sync");
        sleep_forever();
      },
      fast_limits(0.8), &cpu);
  EXPECT_EQ(w.end, watch_end::hang);
  EXPECT_EQ(w.phase, "sync");
  EXPECT_FALSE(w.no_progress);
}

TEST(Watchdog, HeartbeatsKeepNoProgressAway) {
  scripted_cpu cpu([](int) { return 1.0; });
  watch_outcome w = run_watched(
      [](child_reporter& r) -> std::string {
        r.phase("launch");
        for (;;) {
          r.heartbeat();
          ::usleep(20000);
        }
      },
      fast_limits(1.0), &cpu);
  EXPECT_EQ(w.end, watch_end::hang);  // heartbeats do not extend the deadline
  EXPECT_FALSE(w.no_progress);
}

TEST(Watchdog, CompileThatNeverReturnsHangsInCompile) {
  // A JIT stuck in an infinite loop: busy, in compile, with the live /proc CPU source.
  auto cpu = proc_cpu_time_source();
  watch_outcome w = run_watched(
      [](child_reporter& r) -> std::string {
        r.phase("load");
        r.phase("compile");
        volatile unsigned long x = 0;
        for (;;) x = x + 1;
      },
      fast_limits(0.8), cpu.get());
  EXPECT_EQ(w.end, watch_end::hang);
  EXPECT_EQ(w.phase, "compile");
  EXPECT_FALSE(w.no_progress);  // compile is not a waiting phase, and it burns CPU anyway
  ASSERT_TRUE(w.cpu_seconds);
  EXPECT_GT(*w.cpu_seconds, 0.1);
  EXPECT_TRUE(gone(-w.pgid));
}

TEST(Watchdog, NoPhaseAtAllHangsInStart) {
  watch_outcome w = run_watched([](child_reporter&) -> std::string { sleep_forever(); },
                                fast_limits(0.5), nullptr);
  EXPECT_EQ(w.end, watch_end::hang);
  EXPECT_EQ(w.phase, "");
}

TEST(Watchdog, SegfaultIsACrashWithTheSignal) {
  watch_outcome w = run_watched(
      [](child_reporter& r) -> std::string {
        r.phase("launch");
        ::raise(SIGSEGV);
        return "not reached";
      },
      fast_limits(), nullptr);
  EXPECT_EQ(w.end, watch_end::crashed);
  EXPECT_EQ(w.signal, SIGSEGV);
  EXPECT_EQ(signal_name(w.signal), "SIGSEGV");
  EXPECT_EQ(w.phase, "launch");
  EXPECT_TRUE(gone(-w.pgid));
}

TEST(Watchdog, OomLikeSigkillWeDidNotSendIsACrash) {
  watch_outcome w = run_watched(
      [](child_reporter& r) -> std::string {
        r.phase("load");
        ::kill(::getpid(), SIGKILL);  // what the OOM killer does
        sleep_forever();
      },
      fast_limits(5.0), nullptr);
  EXPECT_EQ(w.end, watch_end::crashed);
  EXPECT_EQ(w.signal, SIGKILL);
  EXPECT_EQ(w.phase, "load");
  EXPECT_LT(w.elapsed_s, 4.0);  // noticed at once, not at the deadline
}

TEST(Watchdog, ExitWithoutResultIsNoResultWithTheCode) {
  watch_outcome w = run_watched(
      [](child_reporter& r) -> std::string {
        r.phase("verify");
        std::fprintf(stderr, "something went wrong\n");
        std::fflush(stderr);
        ::_exit(7);
      },
      fast_limits(), nullptr);
  EXPECT_EQ(w.end, watch_end::no_result);
  EXPECT_EQ(w.exit_code, 7);
  EXPECT_EQ(w.phase, "verify");
  EXPECT_NE(w.output_tail.find("something went wrong"), std::string::npos);
}

TEST(Watchdog, ExceptionInTheBodyIsNoResult) {
  watch_outcome w = run_watched(
      [](child_reporter&) -> std::string { throw std::runtime_error("boom"); }, fast_limits(),
      nullptr);
  EXPECT_EQ(w.end, watch_end::no_result);
  EXPECT_EQ(w.exit_code, 70);
  EXPECT_NE(w.output_tail.find("boom"), std::string::npos);
}

TEST(Watchdog, ChildStdoutIsCapturedNotPrinted) {
  watch_outcome w = run_watched(
      [](child_reporter&) {
        std::printf("to stdout\n");
        return std::string("ok");
      },
      fast_limits(), nullptr);
  EXPECT_EQ(w.end, watch_end::finished);
  EXPECT_NE(w.output_tail.find("to stdout"), std::string::npos);
}

TEST(Watchdog, OutputTailKeepsOnlyTheEnd) {
  watch_limits l = fast_limits();
  l.output_tail_bytes = 16;
  watch_outcome w = run_watched(
      [](child_reporter&) {
        for (int i = 0; i < 1000; ++i) std::printf("line %d\n", i);
        return std::string("ok");
      },
      l, nullptr);
  EXPECT_EQ(w.output_tail.size(), 16u);
  EXPECT_NE(w.output_tail.find("line 999"), std::string::npos);
}

/// Forks a grandchild that ignores SIGTERM, prints its pid, and sleeps.
pid_t fork_stubborn_grandchild() {
  pid_t g = ::fork();
  if (g == 0) {
    ::signal(SIGTERM, SIG_IGN);
    sleep_forever();
  }
  std::printf("grandchild %d\n", static_cast<int>(g));
  std::fflush(stdout);
  return g;
}

pid_t grandchild_from(const std::string& tail) {
  int g = 0;
  size_t at = tail.find("grandchild ");
  if (at == std::string::npos || std::sscanf(tail.c_str() + at, "grandchild %d", &g) != 1) return 0;
  return g;
}

TEST(Watchdog, GrandchildIgnoringSigtermIsKilledAndReaped) {
  watch_limits l = fast_limits(0.6);
  auto t0 = std::chrono::steady_clock::now();
  watch_outcome w = run_watched(
      [](child_reporter& r) -> std::string {
        fork_stubborn_grandchild();
        r.phase("sync");
        sleep_forever();
      },
      l, nullptr);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(w.end, watch_end::hang);
  EXPECT_EQ(w.phase, "sync");
  pid_t g = grandchild_from(w.output_tail);
  ASSERT_GT(g, 0) << w.output_tail;
  EXPECT_TRUE(gone(g)) << "grandchild " << g << " survived or was left a zombie";
  EXPECT_TRUE(gone(-w.pgid));
  EXPECT_FALSE(w.unkillable);
  EXPECT_GE(took, 0.6 + l.grace_s);  // SIGTERM was not enough: the grace period ran out
}

TEST(Watchdog, ChildExitingLeavesNoOrphansBehind) {
  watch_outcome w = run_watched(
      [](child_reporter& r) {
        fork_stubborn_grandchild();
        r.phase("verify");
        return std::string("done");
      },
      fast_limits(5.0), nullptr);
  EXPECT_EQ(w.end, watch_end::finished);
  EXPECT_TRUE(w.left_processes);
  pid_t g = grandchild_from(w.output_tail);
  ASSERT_GT(g, 0);
  EXPECT_TRUE(gone(g));
  EXPECT_TRUE(gone(-w.pgid));
}

TEST(Watchdog, SignalAfterTheResultKeepsTheResult) {
  watch_outcome w = run_watched(
      [](child_reporter& r) -> std::string {
        // The result goes out, then the child dies as a crashing runtime teardown would.
        dynamic_cast<pipe_reporter&>(r).result("kept");
        ::raise(SIGSEGV);
        return "not reached";
      },
      fast_limits(), nullptr);
  EXPECT_EQ(w.end, watch_end::finished);
  ASSERT_TRUE(w.payload);
  EXPECT_EQ(*w.payload, "kept");
  EXPECT_EQ(w.signal, SIGSEGV);
}

TEST(Watchdog, ParentIgnoringSigtermDoesNotLeakIntoTheChild) {
  // The child resets dispositions: a parent that ignores SIGTERM must not give the child an
  // immunity that turns every hang into a grace-period wait and a SIGKILL.
  struct sigaction old = {}, ign = {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGTERM, &ign, &old);
  watch_outcome w = run_watched(
      [](child_reporter& r) -> std::string {
        r.phase("launch");
        sleep_forever();
      },
      fast_limits(0.4), nullptr);
  ::sigaction(SIGTERM, &old, nullptr);
  EXPECT_EQ(w.end, watch_end::hang);
  EXPECT_EQ(w.signal, SIGTERM);  // the child got SIGTERM's default action, not our SIG_IGN
}

TEST(Watchdog, PhaseEventsReachTheParent) {
  std::vector<std::string> seen;
  int ticks = 0;
  watch_events ev;
  ev.on_phase = [&](std::string_view p) { seen.emplace_back(p); };
  ev.on_tick = [&](double) { ++ticks; };
  run_watched(
      [](child_reporter& r) {
        r.phase("load");
        r.phase("launch");
        ::usleep(100000);
        return std::string("x");
      },
      fast_limits(), nullptr, ev);
  EXPECT_EQ(seen, (std::vector<std::string>{"load", "launch"}));
  EXPECT_GT(ticks, 0);
}

TEST(Watchdog, SignalNames) {
  EXPECT_EQ(signal_name(SIGABRT), "SIGABRT");
  EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
  EXPECT_EQ(signal_name(63), "signal 63");
}

}  // namespace
}  // namespace gs
