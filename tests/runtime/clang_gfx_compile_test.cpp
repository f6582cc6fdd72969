// Every embedded kernel, prepared as the runtime prepares it, built with Debian's clang-19 for
// gfx1201 (RDNA4, the primary card), gfx1100 (RDNA3), gfx942 (MI300) and gfx90a (MI200), then
// read back (issue 17): what a card would tell us and CI has none of.
//  1. A source that calls a matrix helper of kernels/gs_mma.h (decided from its text, so a new
//     matrix kernel is covered unasked) has v_wmma_* on gfx11/gfx12 and v_mfma_* on gfx9 in its
//     code, i.e. no scalar lowering.
//  2. Each kernel fits each arch at the probe's launch: LDS (static from the metadata note, plus
//     the dynamic size the probe asks for) within a workgroup's 64 KiB, VGPRs within a wave's,
//     a block of the kernel's largest size (its __launch_bounds__, else clang's 1024) within the
//     SIMDs' register files; scratch fails a matrix kernel and is noted for the others.
// Limits and sources: tests/support/amdgpu_limits.cpp. The builds: tests/support/clang_gfx.h.
// Cost: 4 archs x 10 sources = 40 builds, 19 s of CPU, two at a time: about 10 s on two idle
// cores (28-58 s measured beside other builds); set GPUSTACK_GFX_TABLE=1 to print the figures.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <thread>

#include "probe_launch.h"
#include "runtime_test_util.h"
#include "support/amdgpu_limits.h"
#include "support/clang_gfx.h"
#include "support/files.h"

namespace gs {
namespace {

using test::amdgpu_allocated_vgprs;
using test::amdgpu_arch_limits;
using test::amdgpu_fit_problems;
using test::amdgpu_kernel_resources;
using test::amdgpu_limits_for;

struct gfx_target {
  const char* arch;
  int wave;                   ///< what the runtime compiles it for: wave32 on RDNA, wave64 on CDNA
  const char* matrix_prefix;  ///< the matrix instructions the arch must show: WMMA or MFMA
};
constexpr gfx_target kGfxTargets[] = {
    {"gfx1201", 32, "v_wmma_"}, {"gfx1100", 32, "v_wmma_"}, {"gfx942", 64, "v_mfma_"}, {"gfx90a", 64, "v_mfma_"}};

struct gfx_job {
  compile_request req;
  const gfx_target* target = nullptr;
  bool matrix = false;       ///< the source calls a gs_mma helper
  bool dynamic_lds = false;  ///< the source declares extern __shared__
  test::clang_gfx_build build;
};

/// Build every job two at a time (CI has two cores): each build is one clang, one llvm-mc and two
/// readers, single-threaded.
void build_all(std::vector<gfx_job>& jobs, const std::string& root) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < jobs.size();) {
      gfx_job& j = jobs[i];
      device_source src;
      runtime_status st = prepare_device_source(j.req, "hip", j.target->wave, src);
      if (!st.ok) {
        j.build.log = st.message;
        continue;
      }
      j.build = test::build_for_gfx(src, j.target->arch, root + "/" + std::to_string(i));
    }
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
}

/// Every kernel source x every target, built once per test process and shared by the tests below.
struct gfx_builds {
  std::string missing;  ///< tools not on PATH: the tests skip
  std::vector<gfx_job> jobs;
  double seconds = 0;
  test::temp_dir dir;
};

void make_gfx_builds(gfx_builds* b) {
  b->missing = test::missing_clang_gfx_tools();
  if (!b->missing.empty()) return;
  for (const compile_request& k : test::all_kernel_sources())
    for (const gfx_target& t : kGfxTargets) {
      gfx_job j;
      j.req = k;
      j.req.defines = test::probe_defines(k.name, false);
      j.target = &t;
      j.matrix = test::calls_matrix_helpers(k.source);
      j.dynamic_lds = k.source.find("extern __shared__") != std::string::npos;
      b->jobs.push_back(std::move(j));
    }
  auto t0 = std::chrono::steady_clock::now();
  build_all(b->jobs, b->dir.path);
  b->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const gfx_builds& all_gfx_builds() {
  static gfx_builds builds;  // its temp_dir goes at exit
  static const bool made = (make_gfx_builds(&builds), true);
  (void)made;
  return builds;
}

int count_prefix(const std::vector<std::string>& ops, const char* prefix) {
  return int(std::count_if(ops.begin(), ops.end(), [&](const std::string& op) { return op.starts_with(prefix); }));
}

/// Why a matrix source's build does not show the arch's matrix unit (none of its code holds one
/// of the arch's matrix instructions: gs_mma.h took the scalar lowering); empty when it does.
std::vector<std::string> matrix_problems(const gfx_job& j) {
  std::vector<std::string> out;
  int total = 0;
  for (const auto& [symbol, ops] : j.build.mnemonics) total += count_prefix(ops, j.target->matrix_prefix);
  if (total == 0)
    out.push_back(fmt::format("{} on {}: calls a gs_mma helper but has no {}* instruction: the scalar lowering",
                              j.req.name, j.target->arch, j.target->matrix_prefix));
  return out;
}

class ClangGfx : public ::testing::Test {
 protected:
  void SetUp() override {
    const gfx_builds& b = all_gfx_builds();
    if (!b.missing.empty()) GTEST_SKIP() << "LLVM 19 tools not installed here: " << b.missing;
  }
};

TEST_F(ClangGfx, EveryKernelBuildsForGfx1201Gfx1100Gfx942Gfx90a) {
  const gfx_builds& b = all_gfx_builds();
  ASSERT_GE(b.jobs.size(), 4u * 3);
  const bool table = std::getenv("GPUSTACK_GFX_TABLE") != nullptr;
  for (const gfx_job& j : b.jobs) {
    ASSERT_TRUE(j.build.ok) << j.req.name << " for " << j.target->arch << ":\n"
                            << j.build.command << "\n"
                            << j.build.log;
    for (const auto& [symbol, n] : j.build.calls)
      ADD_FAILURE() << j.req.name << " on " << j.target->arch << ": " << symbol << " makes " << n
                    << " call(s) to a function the build cannot see (a math function clang_gfx_math_prelude lacks?): "
                       "its register and scratch figures would be the backend's worst-case guesses";
    for (const amdgpu_kernel_resources& k : j.build.kernels) {
      EXPECT_GT(k.vgprs, 0) << k.name;
      EXPECT_GT(k.max_block, 0) << k.name;
      if (table)
        std::cout << fmt::format(
            "{:8} {:18} {:24} LDS {:6}+{:6} VGPR {:3} AGPR {:3} SGPR {:3} scratch {:4} spills {:3} "
            "block {:4} {} {}\n",
            j.target->arch, j.req.name, k.name, k.lds_bytes, test::probe_dynamic_shared(k.name, false).value_or(0),
            k.vgprs, k.agprs, k.sgprs, k.scratch_bytes, k.vgpr_spills, k.max_block, j.target->matrix_prefix,
            j.build.mnemonics.count(k.name) ? count_prefix(j.build.mnemonics.at(k.name), j.target->matrix_prefix) : 0);
    }
  }
  std::cout << fmt::format("clang-19: {} builds in {:.1f} s\n", b.jobs.size(), b.seconds);
}

TEST_F(ClangGfx, MatrixKernelsUseTheMatrixUnitOnEveryArch) {
  int matrix_sources = 0;
  for (const gfx_job& j : all_gfx_builds().jobs) {
    if (!j.matrix || !j.build.ok) continue;
    ++matrix_sources;
    for (const std::string& p : matrix_problems(j)) ADD_FAILURE() << p;
  }
  EXPECT_GE(matrix_sources, 4) << "gdn_chunk_v2.cu calls gs_mma16: at least one matrix source per arch";
}

TEST_F(ClangGfx, EveryKernelFitsEveryArchAtTheProbesLaunch) {
  for (const gfx_job& j : all_gfx_builds().jobs) {
    if (!j.build.ok) continue;
    const amdgpu_arch_limits* lim = amdgpu_limits_for(j.target->arch);
    ASSERT_NE(lim, nullptr) << j.target->arch;
    for (amdgpu_kernel_resources k : j.build.kernels) {
      if (j.dynamic_lds) {
        std::optional<unsigned> dyn = test::probe_dynamic_shared(k.name, false);
        if (!dyn) {
          ADD_FAILURE() << j.req.name << " declares extern __shared__ but probe_dynamic_shared "
                        << "(tests/runtime/probe_launch.h) does not know what " << k.name
                        << " is launched with: add its size there";
          continue;
        }
        k.dynamic_lds_bytes = *dyn;
      }
      for (const std::string& p : amdgpu_fit_problems(k, *lim, j.matrix)) ADD_FAILURE() << p;
      if (!j.matrix && k.scratch_bytes > 0)
        std::cout << fmt::format("note: {} {} on {}: {} B scratch per lane, {} VGPRs spilled\n", j.req.name, k.name,
                                 j.target->arch, k.scratch_bytes, k.vgpr_spills);
    }
  }
}

// gemm_mma.cu's fp8 entry (gemm_mma_fp8) from the builds above, no extra build: on gfx942 it holds
// MI300's fp8 MFMA, on gfx1201 RDNA4's fp8 WMMA, and gfx90a / gfx1100 (no fp8 matrix instruction)
// have no such entry (gs_mma.h GS_MMA_FP8 off: the probe skips there).
TEST_F(ClangGfx, Fp8EntryUsesTheFp8MatrixInstructionOnGfx942AndGfx1201) {
  int seen = 0;
  for (const gfx_job& j : all_gfx_builds().jobs) {
    if (j.req.name != "gemm_mma.cu" || !j.build.ok) continue;
    ++seen;
    const std::string arch = j.target->arch;
    const auto it = j.build.mnemonics.find("gemm_mma_fp8");
    const char* want = arch == "gfx942" ? "v_mfma_f32_16x16x32_fp8_fp8" : arch == "gfx1201" ? "v_wmma_f32_16x16x16_fp8_fp8" : nullptr;
    if (!want) {
      EXPECT_EQ(it, j.build.mnemonics.end()) << arch << " has no fp8 matrix instruction, so no fp8 entry";
      continue;
    }
    ASSERT_NE(it, j.build.mnemonics.end()) << arch << ": gemm_mma.cu has no gemm_mma_fp8";
    EXPECT_GT(std::count(it->second.begin(), it->second.end(), std::string(want)), 0) << arch << " lacks " << want;
    EXPECT_EQ(count_prefix(it->second, "v_cvt_f32_fp8"), 0) << arch << ": fp8 widened on the ALUs, not fed to the unit";
  }
  EXPECT_EQ(seen, 4);
}

// The checks fail when they should, on real builds: a matrix source built for gfx1030 (RDNA2, no
// WMMA) takes gs_mma.h's scalar lowering; a matrix kernel with a stack array indexed at run time
// has scratch. About 1 s.
TEST_F(ClangGfx, ScalarLoweringAndScratchAreCaught) {
  test::temp_dir dir;
  const compile_request mma_kernel = test::matrix_kernel_with_stack_array();
  ASSERT_TRUE(test::calls_matrix_helpers(mma_kernel.source));
  const gfx_target rdna2{"gfx1030", 32, "v_wmma_"};
  for (const gfx_target* t : {&rdna2, &kGfxTargets[0]}) {
    gfx_job j;
    j.req = mma_kernel;
    j.target = t;
    j.matrix = true;
    device_source src;
    ASSERT_TRUE(prepare_device_source(j.req, "hip", 32, src).ok);
    j.build = test::build_for_gfx(src, t->arch, dir.path + "/" + t->arch);
    ASSERT_TRUE(j.build.ok) << j.build.command << "\n" << j.build.log;
    ASSERT_EQ(j.build.kernels.size(), 1u);
    const bool scalar = std::string(t->arch) == "gfx1030";
    EXPECT_EQ(matrix_problems(j).empty(), !scalar) << t->arch;
    const amdgpu_kernel_resources& k = j.build.kernels[0];
    EXPECT_GT(k.scratch_bytes, 0u) << t->arch;
    // gfx1201's limits for both: the kernel is far inside every other one, so scratch is the one.
    std::vector<std::string> p = amdgpu_fit_problems(k, *amdgpu_limits_for("gfx1201"), true);
    ASSERT_EQ(p.size(), 1u) << t->arch;
    EXPECT_NE(p[0].find("scratch"), std::string::npos) << p[0];
  }
}

// The check itself, on hand-made records (no clang): each limit fails when crossed by one.
amdgpu_kernel_resources fitting_wave32_kernel() {
  amdgpu_kernel_resources k;
  k.name = "k";
  k.lds_bytes = 32 * 1024;
  k.vgprs = 128;
  k.max_block = 1024;
  k.wave = 32;
  return k;
}

TEST(AmdgpuLimits, EachLimitFailsWhenCrossed) {
  const amdgpu_arch_limits& rdna4 = *amdgpu_limits_for("gfx1201");
  amdgpu_kernel_resources k = fitting_wave32_kernel();
  EXPECT_TRUE(amdgpu_fit_problems(k, rdna4, true).empty());
  k.dynamic_lds_bytes = 32 * 1024;  // exactly 64 KiB with the static part: fits
  EXPECT_TRUE(amdgpu_fit_problems(k, rdna4, true).empty());
  k.dynamic_lds_bytes += 4;
  ASSERT_EQ(amdgpu_fit_problems(k, rdna4, true).size(), 1u);
  EXPECT_NE(amdgpu_fit_problems(k, rdna4, true)[0].find("LDS 65540 B"), std::string::npos);

  k = fitting_wave32_kernel();
  k.vgprs = 192;  // 8 waves per SIMD x 192 = 1536: the whole file, fits
  EXPECT_TRUE(amdgpu_fit_problems(k, rdna4, true).empty());
  k.vgprs = 193;  // rounds to 216 (granule 24): 8 x 216 = 1728 > 1536
  ASSERT_EQ(amdgpu_fit_problems(k, rdna4, true).size(), 1u);
  EXPECT_NE(amdgpu_fit_problems(k, rdna4, true)[0].find("8 waves per SIMD x 216 VGPRs"), std::string::npos);
  k.max_block = 128;  // the probe's 4 waves: one per SIMD
  EXPECT_TRUE(amdgpu_fit_problems(k, rdna4, true).empty());
  k.vgprs = 257;
  EXPECT_EQ(amdgpu_fit_problems(k, rdna4, true).size(), 1u) << "over a wave's 256";

  k = fitting_wave32_kernel();
  k.scratch_bytes = 32;
  EXPECT_TRUE(amdgpu_fit_problems(k, rdna4, false).empty()) << "noted, not failed, outside matrix kernels";
  ASSERT_EQ(amdgpu_fit_problems(k, rdna4, true).size(), 1u);
  EXPECT_NE(amdgpu_fit_problems(k, rdna4, true)[0].find("stack object"), std::string::npos);
  k.vgpr_spills = 5;
  EXPECT_NE(amdgpu_fit_problems(k, rdna4, true)[0].find("5 VGPRs spilled"), std::string::npos);

  k = fitting_wave32_kernel();
  k.wave = 64;
  EXPECT_EQ(amdgpu_fit_problems(k, rdna4, true).size(), 1u) << "wave64 code for a wave32 target";
}

TEST(AmdgpuLimits, Gfx90aCountsAgprsInTheSameFile) {
  const amdgpu_arch_limits& cdna2 = *amdgpu_limits_for("gfx90a");
  amdgpu_kernel_resources k;
  k.name = "mfma";
  k.wave = 64;
  k.max_block = 256;  // 4 waves, one per SIMD
  k.vgprs = 254;      // accum_offset 256
  k.agprs = 256;
  EXPECT_EQ(amdgpu_allocated_vgprs(k, cdna2), 512);
  EXPECT_TRUE(amdgpu_fit_problems(k, cdna2, true).empty());
  k.agprs = 257;
  EXPECT_FALSE(amdgpu_fit_problems(k, cdna2, true).empty());
  k.agprs = 0;
  k.vgprs = 129;  // 1024 threads = 16 waves, 4 per SIMD: 4 x 136 > 512
  k.max_block = 1024;
  EXPECT_EQ(amdgpu_fit_problems(k, cdna2, true).size(), 1u);
  EXPECT_EQ(amdgpu_limits_for("gfx1030"), nullptr);
}

TEST(ClangGfxParse, MetadataNoteKernelsAndNotTheirArgs) {
  const std::string notes = R"(Displaying notes found in: .note
  Owner                Data size 	Description
  AMDGPU               0x00000a42	NT_AMDGPU_METADATA (AMDGPU Metadata)
    AMDGPU Metadata:
        ---
amdhsa.kernels:
  - .agpr_count:     4
    .args:
      - .address_space:  global
        .name:           p
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 4096
    .max_flat_workgroup_size: 256
    .name:           first
    .private_segment_fixed_size: 16
    .sgpr_count:     20
    .vgpr_count:     40
    .wavefront_size: 64
  - .args:           []
    .group_segment_fixed_size: 0
    .name:           second
    .vgpr_count:     8
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...
)";
  std::vector<amdgpu_kernel_resources> ks = test::parse_amdgpu_notes(notes);
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].name, "first");
  EXPECT_EQ(ks[0].agprs, 4);
  EXPECT_EQ(ks[0].lds_bytes, 4096u);
  EXPECT_EQ(ks[0].max_block, 256);
  EXPECT_EQ(ks[0].scratch_bytes, 16u);
  EXPECT_EQ(ks[0].sgprs, 20);
  EXPECT_EQ(ks[0].vgprs, 40);
  EXPECT_EQ(ks[0].wave, 64);
  EXPECT_EQ(ks[1].name, "second");
  EXPECT_EQ(ks[1].vgprs, 8);

  test::add_spill_remarks(
      "x.cu:3:1: remark: Function Name: first [-Rpass-analysis=kernel-resource-usage]\n"
      "x.cu:3:1: remark:     VGPRs Spill: 12 [-Rpass-analysis=kernel-resource-usage]\n"
      "x.cu:3:1: remark:     SGPRs Spill: 3 [-Rpass-analysis=kernel-resource-usage]\n",
      ks);
  EXPECT_EQ(ks[0].vgpr_spills, 12);
  EXPECT_EQ(ks[0].sgpr_spills, 3);
  EXPECT_EQ(ks[1].vgpr_spills, 0);
}

TEST(ClangGfxParse, ObjdumpMnemonicsPerSymbol) {
  auto m = test::parse_objdump_mnemonics(
      "\nx.o:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n\n0000000000000000 <k1>:\n"
      "\ts_load_b128 s[8:11], s[2:3], 0x28 // 000000000008: F4004201\n"
      "\tv_wmma_f32_16x16x16_bf16 v[56:63], v[128:131], v[114:117], v[56:63]// 000000000CCC: CC414038\n"
      "\n0000000000000100 <k2>:\n\ts_endpgm // 000000000100: BFB00000\n");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m["k1"], (std::vector<std::string>{"s_load_b128", "v_wmma_f32_16x16x16_bf16"}));
  EXPECT_EQ(m["k2"], (std::vector<std::string>{"s_endpgm"}));
}

TEST(ClangGfxParse, MatrixHelperCallsFromTheSourceText) {
  EXPECT_TRUE(test::calls_matrix_helpers("x; gs_mma16(acc, a, b);"));
  EXPECT_TRUE(test::calls_matrix_helpers("gs_mma16_kmajor (acc, a, 16, b, 16);"));
  EXPECT_TRUE(test::calls_matrix_helpers("gs_mma32_f16(acc, a, b);")) << "a later helper counts too";
  EXPECT_TRUE(test::calls_matrix_helpers("gs_mma16<gs_in_f16>(acc, a, b);")) << "template arguments (gemm_mma.cu)";
  EXPECT_FALSE(test::calls_matrix_helpers("// gs_mma16(acc, a, b) in prose\n/* gs_mma16(x) */ int y;"));
  EXPECT_FALSE(test::calls_matrix_helpers("#include \"gs_mma.h\"\nGS_MMA_KIND; my_gs_mma16(x);"));
  EXPECT_FALSE(test::calls_matrix_helpers("gs_acc16 acc; gs_acc_zero(acc);"));
}

}  // namespace
}  // namespace gs
