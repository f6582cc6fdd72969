// The probe runner with test probes: dependency skips (one root cause, one failure), the GPU
// unusable cascade, breadcrumbs around GPU probes, kernel-log lines, events, Ctrl-C, and the
// built-in selftest probes end to end.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <deque>
#include <filesystem>

#include "probes/selftest_probes.h"
#include "watch/probe_runner.h"
#include "watch/watch_test_util.h"

namespace gs {
namespace {

using testing::fast_limits;

probe_result result_of(status s, std::string detail = {}) {
  probe_result r;
  r.outcome = s;
  r.detail = std::move(detail);
  return r;
}

probe_result run_pass(const probe_context& c) {
  c.phase("verify");
  return result_of(status::pass, "fine");
}
probe_result run_fail(const probe_context&) { return result_of(status::fail, "wrong numbers"); }
probe_result run_hang_sync(const probe_context& c) {
  c.phase("sync");
  for (;;) ::pause();
}
probe_result run_segv(const probe_context& c) {
  c.phase("launch");
  ::raise(SIGSEGV);
  return result_of(status::error);
}
probe_result run_exit3(const probe_context& c) {
  c.phase("load");
  std::fputs("libfoo.so: cannot open shared object file\n", stderr);
  std::fflush(stderr);
  ::_exit(3);
}
probe_result run_throw(const probe_context&) { throw std::runtime_error("bad state"); }
probe_result run_read_crumb(const probe_context& c) {
  c.phase("launch");
  breadcrumb_file f(c.options.at("crumb_dir"));
  probe_result r = result_of(status::pass);
  // The parent updates the crumb when our phase message reaches it: wait for that.
  for (int i = 0; i < 100; ++i) {
    auto b = f.read();
    if (b) r.data = {{"probe", b->probe}, {"phase", b->phase}, {"pid", b->pid}};
    if (b && b->phase == "launch") break;
    ::usleep(10000);
  }
  return r;
}
probe_result run_interrupt_parent(const probe_context& c) {
  c.phase("sync");
  ::kill(::getppid(), SIGINT);
  for (;;) ::pause();
}

const probe_spec kPass{"test.pass", "passes", {}, true, false, run_pass};
const probe_spec kFail{"test.fail", "fails", {}, true, false, run_fail};
const probe_spec kDep{"test.dep", "needs test.fail", {"test.fail"}, true, false, run_pass};
const probe_spec kChain{"test.chain", "needs test.dep", {"test.dep"}, true, false, run_pass};
const probe_spec kOrphan{"test.orphan", "needs a probe not run", {"test.nowhere"}, false, false, run_pass};
const probe_spec kNeedsPass{"test.needs_pass", "needs test.pass", {"test.pass"}, false, false, run_pass};
const probe_spec kGpuHang{"test.gpu_hang", "hangs in sync", {}, true, true, run_hang_sync};
const probe_spec kGpuCrash{"test.gpu_crash", "segfaults", {}, true, true, run_segv};
const probe_spec kGpuAfter{"test.gpu_after", "gpu work", {}, true, true, run_pass};
const probe_spec kCpuHang{"test.cpu_hang", "hangs, no gpu", {}, true, false, run_hang_sync};
const probe_spec kCpuAfter{"test.cpu_after", "cpu work", {}, true, false, run_pass};
const probe_spec kExit3{"test.exit3", "exits without a result", {}, true, false, run_exit3};
const probe_spec kThrowLocal{"test.throw", "throws in process", {}, false, false, run_throw};
const probe_spec kCrumb{"test.crumb", "reads the breadcrumb", {}, true, true, run_read_crumb};
const probe_spec kCrumbCpu{"test.crumb_cpu", "no gpu, no crumb", {}, true, false, run_read_crumb};
const probe_spec kInterrupt{"test.interrupt", "Ctrl-C", {}, true, false, run_interrupt_parent};

runner_options fast_options() {
  runner_options o;
  o.limits = fast_limits(0.6);
  return o;
}

TEST(ProbeRunner, DependencyFailureSkipsDependentsWithOneRootCause) {
  run_summary s = run_probes({&kFail, &kDep, &kChain, &kPass, &kNeedsPass, &kOrphan}, fast_options());
  ASSERT_EQ(s.results.size(), 6u);
  EXPECT_EQ(s.results[0].outcome, status::fail);
  EXPECT_EQ(s.results[1].outcome, status::skip);
  EXPECT_EQ(s.results[1].detail, "depends on test.fail which was fail");
  EXPECT_EQ(s.results[2].outcome, status::skip);
  EXPECT_EQ(s.results[2].detail, "depends on test.dep which was skip");
  EXPECT_EQ(s.results[3].outcome, status::pass);
  EXPECT_EQ(s.results[4].outcome, status::pass);
  EXPECT_EQ(s.results[5].outcome, status::skip);
  EXPECT_EQ(s.results[5].detail, "depends on test.nowhere which did not run");
  EXPECT_EQ(s.results[0].id, "test.fail");
  EXPECT_EQ(s.results[1].id, "test.dep");
}

TEST(ProbeRunner, GpuHangThenUnusableSkipsTheRemainingGpuProbes) {
  runner_options o = fast_options();
  int asked = 0;
  o.gpu_still_usable = [&] {
    ++asked;
    return false;
  };
  run_summary s = run_probes({&kGpuHang, &kGpuAfter, &kCpuAfter, &kCrumb}, o);
  ASSERT_EQ(s.results.size(), 4u);
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(s.results[0].outcome, status::hang);
  EXPECT_EQ(s.results[0].phase, "sync");
  EXPECT_EQ(s.results[0].data.value("gpu_usable_after", true), false);
  EXPECT_EQ(s.results[1].outcome, status::skip);
  EXPECT_EQ(s.results[1].detail,
            "not run: the GPU stopped answering after test.gpu_hang hung in phase sync; reset the "
            "GPU or reboot, then run again");
  EXPECT_EQ(s.results[2].outcome, status::pass);  // probes without the GPU still run
  EXPECT_EQ(s.results[3].outcome, status::skip);
}

TEST(ProbeRunner, GpuHangWithUsableGpuGoesOn) {
  runner_options o = fast_options();
  o.gpu_still_usable = [] { return true; };
  run_summary s = run_probes({&kGpuHang, &kGpuAfter}, o);
  EXPECT_EQ(s.results[0].outcome, status::hang);
  EXPECT_EQ(s.results[0].data.value("gpu_usable_after", false), true);
  EXPECT_EQ(s.results[1].outcome, status::pass);
}

TEST(ProbeRunner, GpuCrashAlsoAsksAndNonGpuHangDoesNot) {
  runner_options o = fast_options();
  int asked = 0;
  o.gpu_still_usable = [&] {
    ++asked;
    return false;
  };
  run_summary s = run_probes({&kCpuHang, &kGpuCrash, &kGpuAfter}, o);
  EXPECT_EQ(s.results[0].outcome, status::hang);
  EXPECT_EQ(s.results[1].outcome, status::crash);
  EXPECT_EQ(s.results[1].data.value("signal", ""), "SIGSEGV");
  EXPECT_EQ(asked, 1);  // only after the GPU probe's crash
  EXPECT_EQ(s.results[2].outcome, status::skip);
  EXPECT_NE(s.results[2].detail.find("test.gpu_crash crashed"), std::string::npos);
}

TEST(ProbeRunner, ExitWithoutResultIsErrorWithItsOutput) {
  run_summary s = run_probes({&kExit3}, fast_options());
  const probe_result& r = s.results[0];
  EXPECT_EQ(r.outcome, status::error);
  EXPECT_EQ(r.phase, "load");
  EXPECT_EQ(r.detail, "exited with code 3 in phase load without sending a result");
  EXPECT_EQ(r.data.value("exit_code", 0), 3);
  EXPECT_NE(r.data.value("output_tail", "").find("cannot open shared object"), std::string::npos);
}

TEST(ProbeRunner, InProcessExceptionIsError) {
  run_summary s = run_probes({&kThrowLocal}, fast_options());
  EXPECT_EQ(s.results[0].outcome, status::error);
  EXPECT_EQ(s.results[0].detail, "the probe threw: bad state");
}

TEST(ProbeRunner, BreadcrumbAroundGpuProbesOnly) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("gs-runner-crumb-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  breadcrumb_file crumbs(dir.string());
  runner_options o = fast_options();
  o.breadcrumb = &crumbs;
  o.probe_options["crumb_dir"] = dir.string();
  run_summary s = run_probes({&kCrumb, &kCrumbCpu}, o);
  // Inside the GPU probe the crumb named it, in the phase it had entered, with our pid.
  EXPECT_EQ(s.results[0].data.value("probe", ""), "test.crumb");
  EXPECT_EQ(s.results[0].data.value("phase", ""), "launch");
  EXPECT_EQ(s.results[0].data.value("pid", 0L), static_cast<long>(::getpid()));
  EXPECT_FALSE(s.results[1].data.contains("probe"));  // no crumb for a non-GPU probe
  EXPECT_FALSE(fs::exists(crumbs.path()));            // removed when the probe ended
  fs::remove_all(dir);
}

class scripted_log final : public kernel_log_source {
 public:
  std::deque<kernel_log_read> reads;
  kernel_log_read read_new() override {
    if (reads.empty()) return {};
    kernel_log_read r = reads.front();
    reads.pop_front();
    return r;
  }
};

TEST(ProbeRunner, KernelLogLinesDuringAProbeAreAttached) {
  scripted_log log;
  log.reads.push_back({true, "", {"[1.0] amdgpu: GPU reset begin! (before the probe)"}});
  log.reads.push_back({true, "",
                       {"[2.0] usb 1-1: new device", "[2.1] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout",
                        "[2.2] amdgpu: GPU reset begin!"}});
  runner_options o = fast_options();
  o.kernel_log = &log;
  run_summary s = run_probes({&kPass}, o);
  EXPECT_EQ(s.results[0].kernel_log,
            (std::vector<std::string>{"[2.1] amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout",
                                      "[2.2] amdgpu: GPU reset begin!"}));
  EXPECT_TRUE(s.notes.empty());
}

TEST(ProbeRunner, UnreadableKernelLogIsNotedOnce) {
  scripted_log log;
  for (int i = 0; i < 4; ++i) log.reads.push_back({false, "/dev/kmsg: EPERM", {}});
  runner_options o = fast_options();
  o.kernel_log = &log;
  run_summary s = run_probes({&kPass, &kCpuAfter}, o);
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("/dev/kmsg: EPERM"), std::string::npos);
}

TEST(ProbeRunner, EventsInOrder) {
  std::vector<std::string> seen;
  runner_options o = fast_options();
  o.on_event = [&](const runner_event& e) {
    const char* k[] = {"started", "entered", "tick", "finished"};
    if (e.kind == runner_event::tick) return;
    std::string s = std::string(k[e.kind]) + " " + e.spec->id;
    if (e.kind == runner_event::entered) s += " " + e.phase;
    if (e.kind == runner_event::finished) s += " " + std::string(to_string(e.result->outcome));
    seen.push_back(s + " " + std::to_string(e.index) + "/" + std::to_string(e.total));
  };
  run_probes({&kFail, &kDep, &kPass}, o);
  EXPECT_EQ(seen, (std::vector<std::string>{"started test.fail 0/3", "finished test.fail fail 0/3",
                                            "finished test.dep skip 1/3", "started test.pass 2/3",
                                            "entered test.pass verify 2/3",
                                            "finished test.pass pass 2/3"}));
}

TEST(ProbeRunner, CtrlCKillsTheChildAndSkipsTheRest) {
  install_interrupt_handler();
  run_summary s = run_probes({&kInterrupt, &kPass}, fast_options());
  clear_interrupt();
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  EXPECT_TRUE(s.interrupted);
  // The step we killed for the user is neither a pass nor a fail (verdicts, matrix, diff).
  EXPECT_EQ(s.results[0].outcome, status::skip);
  EXPECT_EQ(s.results[0].detail, "not finished: interrupted by the user (Ctrl-C) in phase sync");
  EXPECT_EQ(s.results[0].data.value("interrupted", false), true);
  EXPECT_EQ(s.results[0].data.value("interrupted_outcome", ""), "error");
  EXPECT_EQ(s.results[1].outcome, status::skip);
  EXPECT_EQ(s.results[1].detail, "not run: the run was interrupted");
}

TEST(ProbeRunner, AnInterruptKeepsAFinishedResult) {
  probe_result done;
  done.outcome = status::fail;
  done.detail = "max rel err 3e-2";
  mark_interrupted(done);
  EXPECT_EQ(done.outcome, status::fail) << "the step finished with its own judgement before Ctrl-C";
  probe_result killed;
  killed.outcome = status::hang;
  killed.phase = "launch";
  mark_interrupted(killed);
  EXPECT_EQ(killed.outcome, status::skip);
  EXPECT_EQ(killed.data.value("interrupted_outcome", ""), "hang");
}

TEST(SelftestProbes, HangIsAHangInLaunchAtZeroCpu) {
  runner_options o = fast_options();
  auto cpu = proc_cpu_time_source();
  o.cpu = cpu.get();
  probe_result r = run_probe(selftest_hang_probe, o);
  EXPECT_EQ(r.id, "selftest.hang");
  EXPECT_EQ(r.outcome, status::hang);
  EXPECT_EQ(r.phase, "launch");
  EXPECT_EQ(r.data.value("no_progress", false), true);  // pause(): 0 % CPU, like a GPU deadlock
  EXPECT_TRUE(r.data.contains("cpu_seconds"));
  EXPECT_DOUBLE_EQ(r.data.value("deadline_s", 0.0), 0.6);
  EXPECT_NE(r.detail.find("no end to phase launch"), std::string::npos);
  EXPECT_GE(r.duration_ms, 600);
  EXPECT_LT(r.duration_ms, 3000);
  pid_t pgid = r.data.value("pgid", 0);
  ASSERT_GT(pgid, 1);
  EXPECT_TRUE(testing::gone(-pgid));
}

TEST(SelftestProbes, CrashIsSigsegvInLaunch) {
  probe_result r = run_probe(selftest_crash_probe, fast_options());
  EXPECT_EQ(r.outcome, status::crash);
  EXPECT_EQ(r.phase, "launch");
  EXPECT_EQ(r.detail, "died of SIGSEGV in phase launch");
}

TEST(SelftestProbes, PassPasses) {
  probe_result r = run_probe(selftest_pass_probe, fast_options());
  EXPECT_EQ(r.outcome, status::pass);
  EXPECT_EQ(r.phase, "verify");
  EXPECT_FALSE(r.data.contains("no_progress"));
}

}  // namespace
}  // namespace gs
