// kernel_source: the prelude comes from the embedded assets, the vendor and wave-size defines
// are added exactly once, and malformed requests are refused rather than guessed at.
#include "runtime/kernel_source.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/assets.h"

#include "support/files.h"

namespace gs {
namespace {

compile_request req(std::vector<std::string> defines = {}) {
  compile_request r;
  r.name = "k.cu";
  r.source = "#include \"gs_device.h\"\nGS_KERNEL void k() {}\n";
  r.defines = std::move(defines);
  return r;
}


TEST(KernelSource, PreludeIsTheEmbeddedAssetAndComesFirst) {
  auto headers = device_headers();
  ASSERT_FALSE(headers.empty());
  EXPECT_EQ(headers.front().first, "gs_device.h");
  EXPECT_EQ(headers.front().second, std::string(*find_asset("kernels/gs_device.h")));
  for (const auto& [name, text] : headers) {
    EXPECT_EQ(name.find('/'), std::string::npos) << name;  // kernels/ref/*.h are CPU-side, not device headers
    EXPECT_TRUE(name.ends_with(".h")) << name;
  }
}

TEST(KernelSource, CudaGetsGsCudaAndTheDeviceWave) {
  device_source s;
  ASSERT_TRUE(prepare_device_source(req({"EXTRA=7"}), "cuda", 32, s).ok);
  EXPECT_EQ(s.defines.front(), "GS_CUDA=1");
  EXPECT_TRUE(gs::test::contains(s.defines, "GS_WARP_SIZE=32"));
  EXPECT_TRUE(gs::test::contains(s.defines, "EXTRA=7"));
  EXPECT_FALSE(gs::test::contains(s.defines, "GS_HIP=1"));
  EXPECT_EQ(s.wave_size, 32);
  EXPECT_EQ(s.source, req().source);
}

TEST(KernelSource, HipTakesTheWaveFromTheDeviceOrTheRequest) {
  device_source s;
  ASSERT_TRUE(prepare_device_source(req(), "hip", 64, s).ok);
  EXPECT_TRUE(gs::test::contains(s.defines, "GS_HIP=1"));
  EXPECT_TRUE(gs::test::contains(s.defines, "GS_WARP_SIZE=64"));
  EXPECT_EQ(s.wave_size, 64);
  // A request that already says GS_WARP_SIZE (probes pass the device's) is not doubled.
  ASSERT_TRUE(prepare_device_source(req({"GS_WARP_SIZE=32", "GS_HIP=1"}), "hip", 32, s).ok);
  EXPECT_EQ(std::count_if(s.defines.begin(), s.defines.end(), [](const std::string& d) { return d.starts_with("GS_WARP_SIZE"); }), 1);
  EXPECT_EQ(std::count(s.defines.begin(), s.defines.end(), "GS_HIP=1"), 1);
  // wave64 on RDNA is a legal request; the compiler turns it into -mwavefrontsize64.
  ASSERT_TRUE(prepare_device_source(req({"GS_WARP_SIZE=64"}), "hip", 32, s).ok);
  EXPECT_EQ(s.wave_size, 64);
}

TEST(KernelSource, RefusesWhatCannotBeHonoured) {
  device_source s;
  EXPECT_FALSE(prepare_device_source(req({"GS_WARP_SIZE=64"}), "cuda", 32, s).ok);  // NVIDIA warps are 32
  EXPECT_FALSE(prepare_device_source(req({"GS_WARP_SIZE=48"}), "hip", 32, s).ok);
  EXPECT_FALSE(prepare_device_source(req({"GS_WARP_SIZE="}), "hip", 32, s).ok);
  EXPECT_FALSE(prepare_device_source(req(), "hip", 16, s).ok);
  EXPECT_FALSE(prepare_device_source(req({"GS_HIP=1"}), "cuda", 32, s).ok);
  EXPECT_FALSE(prepare_device_source(req({"GS_CUDA=1"}), "hip", 32, s).ok);
  EXPECT_FALSE(prepare_device_source(req(), "metal", 32, s).ok);
  for (const char* bad : {"", "=1", "9X=1", "A B=1", "X=1\n#include </etc/passwd>", "X=1\r"}) {
    runtime_status st = prepare_device_source(req({bad}), "cuda", 32, s);
    EXPECT_FALSE(st.ok) << "'" << bad << "'";
    EXPECT_NE(st.message.find("malformed define"), std::string::npos) << st.message;
  }
  compile_request empty = req();
  empty.source.clear();
  EXPECT_FALSE(prepare_device_source(empty, "cuda", 32, s).ok);
}

TEST(KernelSource, KernelRequestReadsTheEmbeddedAsset) {
  compile_request r;
  runtime_status st = kernel_request("kernels/no_such_kernel.cu", r);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("kernels/no_such_kernel.cu"), std::string::npos);
  for (const asset& a : assets_under("kernels/")) {
    std::string_view p = a.path;
    if (!p.ends_with(".cu")) continue;
    ASSERT_TRUE(kernel_request(p, r, {"A=1"}).ok) << p;
    EXPECT_EQ(r.source, a.text);
    EXPECT_EQ("kernels/" + r.name, p.substr(0, 8 + r.name.size()));
    EXPECT_EQ(r.defines, std::vector<std::string>{"A=1"});
  }
}

TEST(KernelSource, DefineOptions) {
  EXPECT_EQ(define_options({"A=1", "B"}), (std::vector<std::string>{"-DA=1", "-DB"}));
  EXPECT_TRUE(define_options({}).empty());
}

}  // namespace
}  // namespace gs
