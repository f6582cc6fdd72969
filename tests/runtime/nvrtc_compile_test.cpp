// Every kernel compiles with the real NVRTC (CUDA 13's libnvrtc.so.13, dlopen'ed like in
// production) for sm_80, sm_90 and sm_120, and each CUBIN's ELF header says so. A machine
// without NVRTC skips with the reason; one that has it must compile everything.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "runtime/code_object.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime_test_util.h"

namespace gs {
namespace {

class NvrtcCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_status st = nvrtc.open();
    if (!st.ok) GTEST_SKIP() << "NVRTC not available here: " << st.message;
  }
  nvrtc_compiler nvrtc;
};

TEST_F(NvrtcCompile, EveryKernelForSm80Sm90Sm120) {
  auto kernels = test::all_kernel_sources();
  ASSERT_GE(kernels.size(), 2u);  // at least one embedded kernel besides axpy.cu
  for (const char* arch : {"sm_80", "sm_90", "sm_120"}) {
    for (const compile_request& req : kernels) {
      device_source src;
      ASSERT_TRUE(prepare_device_source(req, "cuda", 32, src).ok);
      compiled_code out;
      runtime_status st = nvrtc.compile(src, arch, out);
      ASSERT_TRUE(st.ok) << req.name << " " << arch << ": " << st.message;
      code_object_info info = inspect_code_object(std::string_view(out.image.data(), out.image.size()));
      EXPECT_TRUE(info.elf) << info.error;
      EXPECT_EQ(info.machine, 190) << "EM_CUDA";
      EXPECT_EQ(info.arch, arch) << req.name << " flags 0x" << std::hex << info.flags;
      EXPECT_FALSE(out.from_cache);
      EXPECT_EQ(out.cache_key.size(), 64u);
    }
  }
}

TEST_F(NvrtcCompile, VersionAndArchList) {
  EXPECT_TRUE(nvrtc.version().starts_with("nvrtc ")) << nvrtc.version();
  auto archs = nvrtc.supported_archs();
  ASSERT_FALSE(archs.empty());
  EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
}

TEST_F(NvrtcCompile, ArchNvrtcDoesNotListIsAClearError) {
  device_source src;
  ASSERT_TRUE(prepare_device_source(test::all_kernel_sources().back(), "cuda", 32, src).ok);
  compiled_code out;
  // sm_35 (Kepler) left NVRTC in CUDA 12; no NVRTC this code loads lists it.
  runtime_status st = nvrtc.compile(src, "sm_35", out);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.call, "nvrtcGetSupportedArchs");
  EXPECT_NE(st.message.find("sm_35"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("sm_90"), std::string::npos) << "the message lists what is supported: " << st.message;
  EXPECT_FALSE(nvrtc.compile(src, "compute_90", out).ok);
  EXPECT_FALSE(nvrtc.compile(src, "sm_", out).ok);
}

TEST_F(NvrtcCompile, CompileErrorCarriesLogOptionsAndArch) {
  compile_request bad{"broken.cu", "#include \"gs_device.h\"\nGS_KERNEL void broken(float* p) { p[0] = undefined_name; }\n", {}};
  device_source src;
  ASSERT_TRUE(prepare_device_source(bad, "cuda", 32, src).ok);
  compiled_code out;
  runtime_status st = nvrtc.compile(src, "sm_90", out);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.call, "nvrtcCompileProgram");
  EXPECT_NE(st.message.find("undefined_name"), std::string::npos) << st.message;  // the log
  EXPECT_NE(st.message.find("--gpu-architecture=sm_90"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("-DGS_CUDA=1"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("broken.cu"), std::string::npos) << st.message;
  EXPECT_FALSE(out.log.empty());
}

TEST_F(NvrtcCompile, SecondCompileComesFromTheCache) {
  char tmpl[] = "/tmp/gs-nvrtc-cache-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  jit_cache cache(dir);
  device_source src;
  ASSERT_TRUE(prepare_device_source(test::all_kernel_sources().back(), "cuda", 32, src).ok);
  compiled_code first, second;
  ASSERT_TRUE(nvrtc.compile(src, "sm_90", first, &cache).ok);
  EXPECT_FALSE(first.from_cache);
  ASSERT_TRUE(nvrtc.compile(src, "sm_90", second, &cache).ok);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(first.image, second.image);
  EXPECT_EQ(first.cache_key, second.cache_key);
  compiled_code other;
  ASSERT_TRUE(nvrtc.compile(src, "sm_80", other, &cache).ok);
  EXPECT_FALSE(other.from_cache) << "another arch is another key";
  std::filesystem::remove_all(dir);
}

TEST(NvrtcLoad, MissingLibraryIsAStatus) {
  setenv("GPUSTACK_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.13", 1);
  nvrtc_compiler c;
  runtime_status st = c.open();
  unsetenv("GPUSTACK_NVRTC_LIBRARY");
  EXPECT_FALSE(st.ok);
  EXPECT_FALSE(c.is_open());
  EXPECT_NE(st.message.find("libnvrtc"), std::string::npos) << st.message;
  compiled_code out;
  EXPECT_FALSE(c.compile(device_source{}, "sm_90", out).ok);
}

TEST(NvrtcLoad, ParseSm) {
  EXPECT_EQ(parse_sm("sm_90"), 90);
  EXPECT_EQ(parse_sm("sm_90a"), 90);
  EXPECT_EQ(parse_sm("sm_120"), 120);
  EXPECT_EQ(parse_sm("sm_"), 0);
  EXPECT_EQ(parse_sm("compute_90"), 0);
  EXPECT_EQ(parse_sm("sm_9x0"), 0);
  EXPECT_EQ(parse_sm("gfx90a"), 0);
}

}  // namespace
}  // namespace gs
