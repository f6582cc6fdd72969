// The hip backend against Debian's real ROCm 5.2 libamdhip64 in its no-device state: a clean
// "no device" status with the reason, no crash. Run in a forked child in case HIP aborts.
#include <gtest/gtest.h>

#include "runtime/runtime_hip.h"
#include "runtime_test_util.h"

namespace gs {
namespace {

TEST(HipDebian, NoDeviceIsACleanStatus) {
  test::child_result r = test::run_in_child([] {
    hip_options o;
    o.hip_library = "libamdhip64.so.5";
    o.cache_dir = "";
    runtime_status why;
    std::unique_ptr<runtime> rt = open_hip_runtime(0, why, o);
    if (rt) return std::string("opened ") + rt->props().name;  // a machine with a real AMD GPU
    return why.call + "|" + std::to_string(why.code) + "|" + why.message;
  });
  ASSERT_TRUE(r.exited) << "the hip backend must not crash: signal " << r.signal << (r.timed_out ? " (timeout)" : "");
  if (r.output.starts_with("opened ")) GTEST_SKIP() << "this machine has an AMD GPU: " << r.output;
  if (r.output.starts_with("dlopen|")) GTEST_SKIP() << "Debian's libamdhip64.so.5 is not installed: " << r.output;
  EXPECT_TRUE(r.output.starts_with("hipGetDeviceCount|100|")) << r.output;
  EXPECT_NE(r.output.find("no device"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("hipErrorNoDevice"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("libamdhip64.so.5"), std::string::npos) << "names the library: " << r.output;
}

TEST(HipDebian, OpenRuntimeHipAndAutoAgreeWithTheLibrary) {
  test::child_result r = test::run_in_child([] {
    runtime_status why;
    std::string out;
    std::unique_ptr<runtime> rt = open_runtime("hip:0", why);
    out += rt ? "hip:opened " + rt->props().arch : "hip:" + why.call + ":" + std::to_string(why.code);
    out += "\n";
    rt = open_runtime("auto", why);
    out += rt ? "auto:" + rt->props().backend + ":" + why.message : "auto:null:" + why.message;
    return out;
  });
  ASSERT_TRUE(r.exited) << "signal " << r.signal << (r.timed_out ? " (timeout)" : "");
  if (r.output.starts_with("hip:opened")) GTEST_SKIP() << r.output;
  if (r.output.starts_with("hip:dlopen")) GTEST_SKIP() << "no HIP library: " << r.output;
  EXPECT_TRUE(r.output.starts_with("hip:hipGetDeviceCount:100\n")) << r.output;
  // With no GPU at all, auto falls back to the cpu backend and says why.
  if (r.output.find("auto:cuda") == std::string::npos) {
    EXPECT_NE(r.output.find("auto:cpu:no GPU"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("hipGetDeviceCount"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace gs
