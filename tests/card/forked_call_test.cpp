// run_forked (sys/forked_call.h): the answer of a function run in a child, a deadline that a
// hung call cannot outlast, and a crash or failure that becomes an error, never the caller's.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>

#include "card/card_record.h"
#include "support/probe_harness.h"
#include "sys/forked_call.h"

namespace gs {
namespace {

TEST(ForkedCall, ReturnsTheChildsText) {
  forked_result r = run_forked([] { return std::string(100000, 'x') + "end"; }, 5);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text.size(), 100003u);  // more than a pipe buffer
  EXPECT_EQ(r.text.substr(100000), "end");
}

TEST(ForkedCall, AHangEndsAtTheDeadline) {
  auto t0 = std::chrono::steady_clock::now();
  forked_result r = run_forked([] {
    for (;;) ::pause();
    return std::string();
  }, 0.3);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.unkillable);
  EXPECT_LT(s, 2.0);
  EXPECT_NE(r.error.find("no answer within"), std::string::npos) << r.error;
}

TEST(ForkedCall, ACrashIsAnError) {
  // SIGABRT, not SIGSEGV: ASan (CI's second configuration) catches a segfault in the child and
  // exits 1 instead of dying by the signal.
  forked_result r = run_forked([] {
    std::abort();
    return std::string("never");
  }, 5);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("crashed"), std::string::npos) << r.error;
}

/// One NVIDIA GPU at the NVML double's address.
machine_facts one_nvidia_gpu() {
  machine_facts f;
  gpu_info g;
  g.vendor = "nvidia";
  g.pci_address = "0000:00:06.0";
  f.gpus.push_back(g);
  return f;
}

TEST(CardState, LiveReadsRunInAChildAndComeBack) {
  // detect_card_state on the live machine with the NVML double: the reads happen in a forked
  // child and return as a card record, issues included.
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", GPUSTACK_NVML_DOUBLE);
  test::scoped_env power("GS_NVML_DOUBLE_POWER", "noperm");
  machine_facts f = one_nvidia_gpu();
  detect_card_state(sysroot::live(), f);
  EXPECT_EQ(f.gpus[0].card.source, "nvml");
  EXPECT_EQ(f.gpus[0].card.clock_sm_max_mhz, 1980);
  EXPECT_EQ(f.gpus[0].card.processes.size(), 1u);  // identifiers travel; the report drops them
  ASSERT_EQ(f.issues.size(), 1u);
  EXPECT_EQ(f.issues[0].source, "NVML");
  EXPECT_NE(f.issues[0].message.find("nvmlDeviceGetPowerUsage: Insufficient Permissions"), std::string::npos);
}

TEST(CardState, AFailedChildIsOneIssue) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  machine_facts f = one_nvidia_gpu();
  detect_card_state(sysroot::live(), f);
  ASSERT_EQ(f.issues.size(), 1u);  // the load failure, carried back by the record
  EXPECT_EQ(f.issues[0].source, "NVML");
  EXPECT_TRUE(f.gpus[0].card.source.empty());
}

}  // namespace
}  // namespace gs
