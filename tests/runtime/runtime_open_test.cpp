// open_runtime / parse_device: every device string either opens a backend or says why, and a
// missing libcuda is a status naming it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "runtime/runtime.h"
#include "runtime/runtime_cuda.h"

namespace gs {
namespace {

TEST(RuntimeOpen, ParseDevice) {
  struct c {
    const char* in;
    bool valid;
    const char* backend;
    int ordinal;
  };
  const c cases[] = {{"cpu", true, "cpu", 0},   {"auto", true, "auto", 0},  {"cuda:0", true, "cuda", 0},
                     {"cuda:3", true, "cuda", 3}, {"hip:1", true, "hip", 1},  {"cuda", true, "cuda", 0},
                     {"hip", true, "hip", 0},    {"2", true, "gpu", 2},      {"", false, "", 0},
                     {"cuda:", false, "", 0},    {"cuda:x", false, "", 0},   {"cuda:-1", false, "", 0},
                     {"cpu:0", false, "", 0},    {"auto:1", false, "", 0},   {"metal:0", false, "", 0},
                     {"99999999", false, "", 0}, {"hip:1:2", false, "", 0},  {"CUDA:0", false, "", 0}};
  for (const c& x : cases) {
    device_spec s = parse_device(x.in);
    EXPECT_EQ(s.valid, x.valid) << "'" << x.in << "'";
    if (!x.valid) continue;
    EXPECT_EQ(s.backend, x.backend) << x.in;
    EXPECT_EQ(s.ordinal, x.ordinal) << x.in;
  }
}

TEST(RuntimeOpen, MalformedDeviceIsAStatus) {
  runtime_status why;
  EXPECT_FALSE(open_runtime("gpu please", why));
  EXPECT_FALSE(why.ok);
  EXPECT_EQ(why.call, "open_runtime");
  EXPECT_NE(why.message.find("gpu please"), std::string::npos);
}

TEST(RuntimeOpen, CpuAlwaysOpens) {
  runtime_status why;
  auto rt = open_runtime("cpu", why);
  ASSERT_TRUE(rt) << why.message;
  EXPECT_TRUE(why.ok);
  EXPECT_EQ(rt->props().backend, "cpu");
}

TEST(RuntimeOpen, MissingLibcudaIsAStatusNamingIt) {
  setenv("GPUSTACK_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  runtime_status why;
  auto rt = open_runtime("cuda:0", why);
  unsetenv("GPUSTACK_CUDA_LIBRARY");
  EXPECT_FALSE(rt);
  EXPECT_EQ(why.call, "dlopen");
  EXPECT_NE(why.message.find("libcuda.so.1"), std::string::npos) << why.message;
}

TEST(RuntimeOpen, LibraryWithoutTheDriverApiIsAStatusListingSymbols) {
  setenv("GPUSTACK_CUDA_LIBRARY", "libz.so.1", 1);  // loads, but is not libcuda
  runtime_status why;
  auto rt = open_cuda_runtime(0, why);
  unsetenv("GPUSTACK_CUDA_LIBRARY");
  EXPECT_FALSE(rt);
  EXPECT_EQ(why.call, "dlsym");
  EXPECT_NE(why.message.find("cuInit"), std::string::npos) << why.message;
  EXPECT_NE(why.message.find("cuMemAlloc_v2"), std::string::npos) << why.message;
}

}  // namespace
}  // namespace gs
