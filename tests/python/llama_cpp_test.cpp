// llama_cpp.build: parsing what llama.cpp builds print (CUDA, ROCm, Vulkan, system_info), the
// verdict against the detected GPUs, the PATH search through a sysroot, the device-code scan of
// its ggml libraries, the skip when there is none, and the whole probe against a stand-in
// llama-server (a shell script printing a ROCm build's lines) beside a libggml-hip.so that holds
// an offload bundle for gfx1100 only.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "probes/device_code_scan.h"
#include "probes/llama_cpp_probe.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

const char* kCudaH200 =
    "ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no\n"
    "ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no\n"
    "ggml_cuda_init: found 1 CUDA devices:\n"
    "  Device 0: NVIDIA H200, compute capability 9.0, VMM: yes\n"
    "load_backend: loaded CUDA backend from /opt/llama/lib/libggml-cuda.so\n"
    "load_backend: loaded CPU backend from /opt/llama/lib/libggml-cpu-sapphirerapids.so\n"
    "version: 6123 (1d1e6a90)\n"
    "built with cc (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0 for x86_64-linux-gnu\n";
const char* kRocmList =
    "ggml_cuda_init: found 1 ROCm devices:\n"
    "  Device 0: AMD Radeon AI PRO R9700, gfx1201 (0x1201), VMM: no, Wave Size: 32\n"
    "Available devices:\n"
    "  ROCm0: AMD Radeon AI PRO R9700 (32624 MiB, 32210 MiB free)\n";
const char* kVulkan =
    "ggml_vulkan: Found 1 Vulkan devices:\n"
    "ggml_vulkan: 0 = AMD Radeon RX 9070 XT (RADV GFX1201) (radv) | uma: 0 | fp16: 1 | bf16: 0 | warp size: 64 | "
    "shared memory: 65536 | int dot: 1 | matrix cores: KHR_coopmat\n"
    "version: 5890 (bbfc849e)\n";
const char* kSystemInfo =
    "system_info: n_threads = 8 (n_threads_batch = 8) / 16 | CUDA : ARCHS = 890,900 | FORCE_MMQ = 1 | USE_GRAPHS = 1 "
    "| PEER_MAX_BATCH_SIZE = 128 | FA_ALL_QUANTS = 1 | CPU : SSE3 = 1 | AVX2 = 1 |\n";

gpu_info gpu(const char* vendor, const char* name, const char* arch) {
  gpu_info g;
  g.vendor = vendor;
  g.name = name;
  g.arch = arch;
  return g;
}
machine_facts with(std::vector<gpu_info> gs) {
  machine_facts f;
  f.gpus = std::move(gs);
  return f;
}

TEST(LlamaCpp, ParsesACudaBuildsVersionAndDevices) {
  llama_build_info info;
  parse_llama_output(kCudaH200, info);
  EXPECT_EQ(info.version, "6123 (1d1e6a90)");
  EXPECT_EQ(info.compiler, "cc (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0 for x86_64-linux-gnu");
  EXPECT_EQ(info.backends, (std::set<std::string>{"CUDA"}));
  ASSERT_EQ(info.devices.size(), 1u);
  EXPECT_EQ(info.devices[0].backend, "CUDA");
  EXPECT_EQ(info.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(info.devices[0].detail, "compute capability 9.0, VMM: yes");
}

TEST(LlamaCpp, ParsesRocmDevicesOnceFromInitAndListDevices) {
  llama_build_info info;
  parse_llama_output(kRocmList, info);
  EXPECT_EQ(info.backends, (std::set<std::string>{"ROCm"}));
  ASSERT_EQ(info.devices.size(), 1u) << "the init line and --list-devices name the same device";
  EXPECT_EQ(info.devices[0].name, "AMD Radeon AI PRO R9700");
  EXPECT_EQ(info.devices[0].detail, "gfx1201 (0x1201), VMM: no, Wave Size: 32");
  EXPECT_TRUE(info.archs.empty()) << "the device's arch is not a code target of the build";
}

TEST(LlamaCpp, ParsesVulkanDevicesAndSystemInfoFeatures) {
  llama_build_info info;
  parse_llama_output(kVulkan, info);
  EXPECT_TRUE(info.backends.count("Vulkan"));
  ASSERT_EQ(info.devices.size(), 1u);
  EXPECT_EQ(info.devices[0].name, "AMD Radeon RX 9070 XT (RADV GFX1201)");
  llama_build_info s;
  parse_llama_output(kSystemInfo, s);
  EXPECT_EQ(s.archs, (std::set<std::string>{"sm_89", "sm_90"}));
  EXPECT_EQ(s.features["FA_ALL_QUANTS"], "1");
  EXPECT_EQ(s.features["USE_GRAPHS"], "1");
  EXPECT_FALSE(s.features.count("system_info: n_threads"));
}

TEST(LlamaCpp, GarbageOutputParsesToNothingWithoutThrowing) {
  llama_build_info info;
  std::string junk = "Available devices:\n  : \n  0: x\n@@@ = | = |\nggml_vulkan: = |\nDevice : \n";
  for (int i = 0; i < 300; ++i) junk += static_cast<char>((i * 37) & 0xff);
  EXPECT_NO_THROW(parse_llama_output(junk, info));
  EXPECT_TRUE(info.devices.empty());
}

TEST(LlamaCpp, VerdictAgainstTheDetectedGpus) {
  llama_build_info cuda;
  parse_llama_output(kCudaH200, cuda);
  probe_result ok = llama_cpp_result("/usr/bin/llama-server", cuda, nullptr);
  EXPECT_EQ(ok.outcome, status::pass) << ok.detail;
  EXPECT_EQ(llama_cpp_result("/b", cuda, &(const machine_facts&)with({gpu("nvidia", "NVIDIA H200", "sm_90")})).outcome,
            status::pass);
  // A CUDA build on an AMD machine has no backend for its GPU.
  machine_facts amd = with({gpu("amd", "AMD Radeon AI PRO R9700", "gfx1201")});
  probe_result wrong = llama_cpp_result("/b", cuda, &amd);
  EXPECT_EQ(wrong.outcome, status::warn);
  EXPECT_NE(wrong.detail.find("no GPU backend for AMD Radeon AI PRO R9700 (gfx1201): built with CUDA"), std::string::npos)
      << wrong.detail;
  // A CPU-only build on a GPU machine.
  llama_build_info cpu;
  cpu.version = "6000 (abc)";
  probe_result c = llama_cpp_result("/b", cpu, &amd);
  EXPECT_EQ(c.outcome, status::warn);
  EXPECT_NE(c.detail.find("built with CPU only"), std::string::npos) << c.detail;
  // A ROCm build whose code is for gfx1100 only, on a gfx1201.
  llama_build_info rocm;
  rocm.backends = {"ROCm"};
  rocm.devices = {{"ROCm", "AMD Radeon AI PRO R9700", ""}};
  rocm.archs = {"gfx1100"};
  probe_result r = llama_cpp_result("/b", rocm, &amd);
  EXPECT_EQ(r.outcome, status::warn);
  EXPECT_NE(r.detail.find("not gfx1201"), std::string::npos) << r.detail;
  rocm.archs.insert("gfx1201");
  EXPECT_EQ(llama_cpp_result("/b", rocm, &amd).outcome, status::pass);
  // Vulkan alone is a GPU path for either vendor.
  llama_build_info vk;
  parse_llama_output(kVulkan, vk);
  EXPECT_EQ(llama_cpp_result("/b", vk, &amd).outcome, status::pass);
}

class LlamaTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("gs-llama-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "opt/llama/bin");
    fs::create_directories(root_ / "opt/llama/lib");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const fs::path& p, const std::string& text, bool exec) {
    std::ofstream(p, std::ios::binary) << text;
    if (exec) ::chmod(p.c_str(), 0755);
  }
  fs::path root_;
};

/// A clang offload bundle header: host entries at offset 0, as clang writes them, device
/// entries at 100.
std::string host_and_device_bundle(const std::vector<std::string>& ids) {
  std::string b = "__CLANG_OFFLOAD_BUNDLE__";
  auto u64 = [&b](uint64_t v) { b.append(reinterpret_cast<const char*>(&v), 8); };
  u64(ids.size());
  for (const std::string& id : ids) {
    u64(4096);
    u64(id.rfind("host", 0) == 0 ? 0 : 100);
    u64(id.size());
    b += id;
  }
  return b;
}

TEST_F(LlamaTree, FindsTheBinaryOnPathAndItsBackendLibraries) {
  write(root_ / "opt/llama/bin/llama-cli", "#!/bin/sh\n", true);
  write(root_ / "opt/llama/bin/llama-server", "not executable", false);
  write(root_ / "opt/llama/lib/libggml-hip.so", "x", false);
  write(root_ / "opt/llama/lib/libggml-vulkan.so.0", "x", false);
  sysroot sys = sysroot::captured(root_.string());
  sys.set_environment({{"PATH", "/usr/bin::/opt/llama/bin"}});
  std::vector<std::string> bins = find_llama_binaries(sys);
  ASSERT_EQ(bins, std::vector<std::string>{"/opt/llama/bin/llama-cli"});
  std::map<std::string, std::string> libs = find_ggml_backend_libs(sys, bins[0]);
  EXPECT_EQ(libs["ROCm"], "/opt/llama/lib/libggml-hip.so");
  EXPECT_EQ(libs["Vulkan"], "/opt/llama/lib/libggml-vulkan.so.0");
  sys.set_environment({{"PATH", "/usr/bin"}});
  EXPECT_TRUE(find_llama_binaries(sys).empty());
}

TEST_F(LlamaTree, SkipsWithTheReasonWhenThereIsNoLlamaCpp) {
  probe_context ctx;
  ctx.options["llama_cpp.bin"] = (root_ / "nope/llama-server").string();
  probe_result r = llama_cpp_probe.run(ctx);
  EXPECT_EQ(r.outcome, status::skip);
  EXPECT_NE(r.detail.find("is not executable"), std::string::npos) << r.detail;
}

TEST_F(LlamaTree, RunsAStandInServerAndScansItsHipLibrary) {
  std::string script = std::string("#!/bin/sh\ncase \"$1\" in\n--version) cat >&2 <<'EOF'\n") +
                       "ggml_cuda_init: found 1 ROCm devices:\n"
                       "  Device 0: AMD Radeon AI PRO R9700, gfx1201 (0x1201), VMM: no, Wave Size: 32\n"
                       "version: 6123 (1d1e6a90)\nbuilt with cc (GCC) 14.2.1 for x86_64-pc-linux-gnu\nEOF\n;;\n"
                       "--list-devices) printf 'Available devices:\\n  ROCm0: AMD Radeon AI PRO R9700 (32624 MiB, 32210 MiB free)\\n';;\n"
                       "*) exit 2;;\nesac\n";
  write(root_ / "opt/llama/bin/llama-server", script, true);
  std::string lib(5000, '\0');
  lib += host_and_device_bundle({"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx1100"});
  lib += std::string(300, 'z');
  write(root_ / "opt/llama/lib/libggml-hip.so", lib, false);
  machine_facts amd = with({gpu("amd", "AMD Radeon AI PRO R9700", "gfx1201")});
  probe_context ctx;
  ctx.facts = &amd;
  ctx.options["llama_cpp.bin"] = (root_ / "opt/llama/bin/llama-server").string();
  probe_result r = llama_cpp_probe.run(ctx);
  EXPECT_EQ(r.outcome, status::warn) << r.detail << r.data.dump(1);
  EXPECT_EQ(r.data["version"], "6123 (1d1e6a90)");
  EXPECT_EQ(r.data["devices"].size(), 1u);
  std::string lib_path = (root_ / "opt/llama/lib/libggml-hip.so").string();
  EXPECT_EQ(r.data["device_code"][lib_path]["amd"], nlohmann::json::array({"gfx1100"})) << r.data.dump(1);
  // The runtime lists the R9700, but the library only carries gfx1100 code: the first kernel
  // would fail with hipErrorNoBinaryForGpu.
  EXPECT_NE(r.detail.find("its ROCm code is for [\"gfx1100\"], not gfx1201"), std::string::npos) << r.detail;
}

TEST_F(LlamaTree, AServerThatFailsToStartIsAFailWithItsOutput) {
  write(root_ / "opt/llama/bin/llama-server",
        "#!/bin/sh\necho './llama-server: error while loading shared libraries: libhipblas.so.2: cannot open shared "
        "object file: No such file or directory' >&2\nexit 127\n",
        true);
  probe_context ctx;
  ctx.options["llama_cpp.bin"] = (root_ / "opt/llama/bin/llama-server").string();
  probe_result r = llama_cpp_probe.run(ctx);
  EXPECT_EQ(r.outcome, status::fail) << r.detail;
  EXPECT_NE(r.detail.find("--version exited with code 127"), std::string::npos) << r.detail;
  EXPECT_NE(r.data["output_tail"].get<std::string>().find("libhipblas.so.2"), std::string::npos);
}

}  // namespace
}  // namespace gs
