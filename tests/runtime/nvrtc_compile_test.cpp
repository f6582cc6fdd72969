// Every kernel compiles with the real NVRTC (CUDA 13's libnvrtc.so.13, dlopen'ed like in
// production) for sm_80, sm_90 and sm_120, and each CUBIN's ELF header says so. A machine
// without NVRTC skips with the reason; one that has it must compile everything. Then, at the
// probes' defines and launches: sources calling gs_mma helpers hold mma.sync on sm_80/sm_90, and
// every kernel fits (ptxas's own report; tests/support/nvrtc_usage.h says why not cuobjdump).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "core/assets.h"
#include "kernels/ref/gemm_ref.h"
#include "probes/gemm_mma_probe.h"
#include "runtime/code_object.h"
#include "runtime/nvrtc_compiler.h"
#include "probe_launch.h"
#include "runtime_test_util.h"
#include "support/nvrtc_usage.h"

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

// What one block may use on each arch (CUDA C++ Programming Guide, "Technical Specifications per
// Compute Capability": 255 registers per thread, 64 K registers per block and SM, 48 KiB of static
// shared memory per block, opt-in dynamic up to 163 KiB on 8.0, 227 KiB on 9.0; registers are
// allocated per warp in units of 256).
struct cuda_block_limits {
  const char* arch;
  unsigned smem_optin;
};
constexpr cuda_block_limits kCudaLimits[] = {{"sm_80", 163 * 1024}, {"sm_90", 227 * 1024}};

std::vector<std::string> cuda_fit_problems(const test::nvrtc_kernel_usage& k, const cuda_block_limits& lim,
                                           unsigned dynamic_smem, bool matrix) {
  std::vector<std::string> out;
  const std::string who = k.name + " on " + lim.arch;
  if (k.smem_bytes > 48 * 1024) out.push_back(fmt::format("{}: {} B static shared over 48 KiB", who, k.smem_bytes));
  if (k.smem_bytes + dynamic_smem > lim.smem_optin)
    out.push_back(fmt::format("{}: {} B shared ({} dynamic) over the {} B a block may opt in to", who,
                              k.smem_bytes + dynamic_smem, dynamic_smem, lim.smem_optin));
  // Napkin math: 256 threads = 8 warps; at 255 registers a warp holds 8160, allocated as 8192,
  // 8 x 8192 = 65536: any register count fits 256 threads; 1024 threads need <= 64.
  const int block = k.max_threads > 0 ? k.max_threads : test::probe_max_block_threads;
  const int per_warp = (k.registers * 32 + 255) / 256 * 256;
  if (k.registers > 255 || per_warp * ((block + 31) / 32) > 65536)
    out.push_back(fmt::format("{}: {} registers x {} threads over the block's 65536", who, k.registers, block));
  if (matrix && (k.spill_store_bytes > 0 || k.stack_bytes > 0))
    out.push_back(fmt::format("{}: {} B stack frame, {} B spill stores in a matrix kernel", who, k.stack_bytes,
                              k.spill_store_bytes));
  return out;
}

// 6.7 s of CPU, one NVRTC compile per source and arch at a time (ptxas report included).
TEST_F(NvrtcCompile, MatrixKernelsUseTensorCoresAndEveryKernelFitsSm80Sm90) {
  vendor::nvrtc_api api;  // the runtime's NVRTC table, loaded again for nvrtcGetPTX (nvrtc_usage.h)
  ASSERT_TRUE(api.load().ok);
  const bool table = std::getenv("GPUSTACK_GFX_TABLE") != nullptr;
  int matrix_builds = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (const cuda_block_limits& lim : kCudaLimits) {
    for (compile_request req : test::all_kernel_sources()) {
      req.defines = test::probe_defines(req.name, true);
      const bool matrix = test::calls_matrix_helpers(req.source);
      const bool dynamic = req.source.find("extern __shared__") != std::string::npos;
      device_source src;
      ASSERT_TRUE(prepare_device_source(req, "cuda", 32, src).ok);
      test::nvrtc_usage_build b = test::nvrtc_build_with_usage(api, src, lim.arch);
      ASSERT_TRUE(b.ok) << b.message;
      if (matrix) {
        ++matrix_builds;
        EXPECT_NE(b.ptx.find("mma.sync.aligned"), std::string::npos)
            << req.name << " on " << lim.arch << " calls a gs_mma helper but its PTX has no mma.sync: the ALU lowering";
      }
      for (const test::nvrtc_kernel_usage& k : b.kernels) {
        unsigned dyn = 0;
        if (dynamic) {
          std::optional<unsigned> d = test::probe_dynamic_shared(k.name, true);
          if (!d) {
            ADD_FAILURE() << req.name << " declares extern __shared__ but probe_dynamic_shared "
                          << "(tests/runtime/probe_launch.h) does not know what " << k.name << " is launched with";
            continue;
          }
          dyn = *d;
        }
        for (const std::string& p : cuda_fit_problems(k, lim, dyn, matrix)) ADD_FAILURE() << p;
        if (!matrix && (k.spill_store_bytes > 0 || k.stack_bytes > 0))
          std::cout << fmt::format("note: {} {} on {}: {} B stack, {} B spill stores\n", req.name, k.name, lim.arch,
                                   k.stack_bytes, k.spill_store_bytes);
        if (table)
          std::cout << fmt::format("{:6} {:18} {:24} regs {:3} smem {:6}+{:6} stack {:4} spill {:4} mma.sync {}\n",
                                   lim.arch, req.name, k.name, k.registers, k.smem_bytes, dyn, k.stack_bytes,
                                   k.spill_store_bytes, k.mma_sync);
      }
    }
  }
  EXPECT_GE(matrix_builds, 2) << "gdn_chunk_v2.cu calls gs_mma16";
  std::cout << fmt::format("NVRTC with ptxas report: {:.1f} s\n",
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

// gemm_mma.cu's sm_90a path at the probe's defines, compiled as the runtime does for it
// (nvrtc_compiler with "sm_90a": the ELF says sm_90) and once more for ptxas's report: wgmma,
// TMA, mbarrier waits and setmaxnreg in the PTX; within sm_90's block limits at 384 threads and
// gemm_wgmma_tiling's dynamic shared memory; no spills, no stack; and no C7515 note (ptxas
// serializing the wgmmas, which costs most of the path's rate). The fp8 entry (gemm_mma_fp8,
// m64n256k32 e4m3) is held to the same figures. ~1.5 s: two NVRTC compiles.
TEST_F(NvrtcCompile, GemmMmaWgmmaPathForSm90a) {
  vendor::nvrtc_api api;
  ASSERT_TRUE(api.load().ok);
  const gemm_wgmma_tiling& t = gemm_wgmma_tile;
  compile_request req{"gemm_mma.cu", std::string(*find_asset("kernels/gemm_mma.cu")), gemm_mma_defines(true, t.stages)};
  device_source src;
  ASSERT_TRUE(prepare_device_source(req, "cuda", 32, src).ok);
  compiled_code out;
  runtime_status st = nvrtc.compile(src, "sm_90a", out);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(inspect_code_object(std::string_view(out.image.data(), out.image.size())).arch, "sm_90");

  test::nvrtc_usage_build b = test::nvrtc_build_with_usage(api, src, "sm_90a");
  ASSERT_TRUE(b.ok) << b.message;
  for (const char* want : {"wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
                           "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16",
                           "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 1",
                           "cp.async.bulk.tensor.2d", "mbarrier.try_wait.parity", "setmaxnreg.inc.sync.aligned.u32 232"})
    EXPECT_NE(b.ptx.find(want), std::string::npos) << want;
  EXPECT_EQ(b.ptx.find("mma.sync"), std::string::npos) << "the sm_90a entries are wgmma only";
  EXPECT_EQ(b.log.find("C7515"), std::string::npos) << b.log;
  ASSERT_EQ(b.kernels.size(), 3u) << "gemm_mma_bf16, gemm_mma_f16, gemm_mma_fp8";
  for (const test::nvrtc_kernel_usage& k : b.kernels) {
    EXPECT_EQ(k.max_threads, t.threads) << k.name;
    // setmaxnreg moves registers inside the block's own allocation: the producer's 128 threads
    // drop to 40, the consumers' 256 rise to 232, which only balances at 168 a thread (65,536 /
    // 384 rounded down to 8); with fewer, the consumers' setmaxnreg.inc would block for registers the
    // pool never gets (PTX ISA "setmaxnreg").
    EXPECT_EQ(k.registers * t.threads, 40 * 128 + 232 * 256) << k.name;
    for (const std::string& p : cuda_fit_problems(k, kCudaLimits[1], t.shared_bytes(t.stages), true)) ADD_FAILURE() << p;
    std::cout << fmt::format("{} sm_90a: {} registers, {} B stack, {} B spill stores, {} B static + {} B dynamic shared\n",
                             k.name, k.registers, k.stack_bytes, k.spill_store_bytes, k.smem_bytes,
                             t.shared_bytes(t.stages));
  }
}

// gemm_mma.cu's fp8 entry on sm_89 (Ada: mma.sync.m16n8k32 .e4m3 through the 16-bit path's
// ldmatrix fragments): built at the probe's defines, the e4m3 mma in its PTX, within sm_89's block
// limits (99 KiB of opt-in shared memory: CUDA C++ Programming Guide, "Compute Capability 8.9"),
// no spills or stack. sm_80 has no such entry (ptxas rejects .e4m3 there, so the sm_80 builds of
// MatrixKernelsUseTensorCores... would fail if it had). ~1 s: one NVRTC compile.
TEST_F(NvrtcCompile, GemmMmaFp8MmaSyncForSm89) {
  vendor::nvrtc_api api;
  ASSERT_TRUE(api.load().ok);
  compile_request req{"gemm_mma.cu", std::string(*find_asset("kernels/gemm_mma.cu")), test::probe_defines("gemm_mma.cu", true)};
  device_source src;
  ASSERT_TRUE(prepare_device_source(req, "cuda", 32, src).ok);
  test::nvrtc_usage_build b = test::nvrtc_build_with_usage(api, src, "sm_89");
  ASSERT_TRUE(b.ok) << b.message;
  EXPECT_NE(b.ptx.find("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"), std::string::npos);
  const cuda_block_limits ada{"sm_89", 99 * 1024};
  int fp8 = 0;
  for (const test::nvrtc_kernel_usage& k : b.kernels) {
    if (k.name != "gemm_mma_fp8") continue;
    ++fp8;
    for (const std::string& p : cuda_fit_problems(k, ada, *test::probe_dynamic_shared(k.name, true), true)) ADD_FAILURE() << p;
    std::cout << fmt::format("gemm_mma_fp8 sm_89: {} registers, {} B stack, {} B spill stores\n", k.registers, k.stack_bytes,
                             k.spill_store_bytes);
  }
  EXPECT_EQ(fp8, 1);
}

// The same check fails when it should: a kernel calling gs_mma16 built for sm_75 (below the
// sm_80 lowering) has no mma.sync, and a dynamically indexed local array shows as a stack frame.
TEST_F(NvrtcCompile, AluLoweringAndStackFrameAreCaught) {
  vendor::nvrtc_api api;  // the runtime's NVRTC table, loaded again for nvrtcGetPTX (nvrtc_usage.h)
  ASSERT_TRUE(api.load().ok);
  const compile_request req = test::matrix_kernel_with_stack_array();
  device_source src;
  ASSERT_TRUE(prepare_device_source(req, "cuda", 32, src).ok);
  for (const char* arch : {"sm_75", "sm_90"}) {
    test::nvrtc_usage_build b = test::nvrtc_build_with_usage(api, src, arch);
    ASSERT_TRUE(b.ok) << b.message;
    ASSERT_EQ(b.kernels.size(), 1u);
    const bool sm90 = std::string(arch) == "sm_90";
    EXPECT_EQ(b.ptx.find("mma.sync") != std::string::npos, sm90) << arch;
    if (!sm90) continue;  // sm_75's ALU loops let NVVM fold the array away; sm_90 keeps it
    EXPECT_GT(b.kernels[0].stack_bytes, 0u) << arch;
    EXPECT_EQ(cuda_fit_problems(b.kernels[0], kCudaLimits[1], 0, true).size(), 1u) << arch;
  }
}

TEST(NvrtcUsageParse, PtxasReportAndPtxEntries) {
  std::vector<test::nvrtc_kernel_usage> ks = test::parse_ptxas_report(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k1' for 'sm_90'\n"
      "ptxas info    : Function properties for k1\n"
      "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 50176 bytes smem, 400 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'k2' for 'sm_90'\n"
      "ptxas info    : Used 10 registers, used 0 barriers, 400 bytes cmem[0]\n");
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].name, "k1");
  EXPECT_EQ(ks[0].registers, 168);
  EXPECT_EQ(ks[0].smem_bytes, 50176u);
  EXPECT_EQ(ks[0].stack_bytes, 16u);
  EXPECT_EQ(ks[0].spill_store_bytes, 8u);
  EXPECT_EQ(ks[0].spill_load_bytes, 4u);
  EXPECT_EQ(ks[1].registers, 10);
  EXPECT_EQ(ks[1].smem_bytes, 0u);
  test::add_ptx_entry_facts(
      ".visible .entry k1(\n.param .u64 p\n)\n.maxntid 128, 1, 1\n{\nmma.sync.aligned.m16n8k16 x;\n"
      "mma.sync.aligned.m16n8k16 y;\n}\n.visible .entry k2(\n)\n{\nret;\n}\n",
      ks);
  EXPECT_EQ(ks[0].max_threads, 128);
  EXPECT_EQ(ks[0].mma_sync, 2);
  EXPECT_EQ(ks[1].max_threads, 0);
  EXPECT_EQ(ks[1].mma_sync, 0);
  // 168 registers x 256 threads fits; static shared over 48 KiB does not.
  std::vector<std::string> p = cuda_fit_problems(ks[0], kCudaLimits[1], 0, false);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("static shared"), std::string::npos) << p[0];
  ks[0].smem_bytes = 0;
  ks[0].max_threads = 1024;  // 32 warps x 5376 > 65536
  EXPECT_EQ(cuda_fit_problems(ks[0], kCudaLimits[1], 0, false).size(), 1u);
  ks[0].max_threads = 0;
  EXPECT_EQ(cuda_fit_problems(ks[0], kCudaLimits[1], 0, true).size(), 1u) << "spills fail a matrix kernel";
  EXPECT_EQ(cuda_fit_problems(ks[1], kCudaLimits[0], 170 * 1024, false).size(), 1u) << "dynamic over 163 KiB on sm_80";
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
