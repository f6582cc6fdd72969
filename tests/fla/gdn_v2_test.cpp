// kernels/gdn_chunk_v2.cu: its CPU reference against the fp64 recurrence, and the kernel itself
// compiled for every matrix unit it lowers to, at every pipeline depth:
//   NVRTC sm_80 / sm_90          mma.sync + cp.async (the PTX is checked for both)
//   Debian's comgr gfx90a/gfx1030  MFMA on gfx90a; gfx1030 has no matrix unit (the ALU path)
//   clang-19 gfx1100 / gfx1201   WMMA (Debian's comgr, ROCm 5.2 on LLVM 14, knows no gfx11 or
//                                gfx12 target; clang-19 does, and its ISA is checked for v_wmma)
// Tolerance: the same 2e-5 as v1's CPU path (tests/fla/gdn_ref_test.cpp): every fp32 x fp32
// product is split into bf16 hi + lo (hi*hi + hi*lo + lo*hi, ~2^-17 relative per product, a
// bit above fp32's 2^-24 but far below the bound), so the argument there holds; a wrong decay
// is >= 1e-2 (checked).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/assets.h"
#include "kernels/gdn_v2_layout.h"
#include "kernels/ref/gdn_v2_ref.h"
#include "runtime/hip_compiler.h"
#include "runtime/kernel_source.h"
#include "runtime/nvrtc_compiler.h"
#include "support/files.h"
#include "support/shell.h"

namespace gs {
namespace {

constexpr double kV2RelTol = 2e-5, kV2AbsTol = 2e-5;

gdn_error v2_error(const gdn_inputs& in) {
  std::vector<double> o_ref, ht_ref;
  gdn_recurrent_ref(in, 0, o_ref, ht_ref, 0, in.shape.B, 0, in.shape.HV);
  std::vector<float> o, ht;
  gdn_v2_cpu(in, 0, o, ht);
  return gdn_compare(in.shape, o.data(), ht.data(), o_ref, ht_ref, 0, in.shape.B, 0, in.shape.HV);
}

TEST(GdnV2Cpu, MatchesRecurrentFp64) {
  struct shape_case {
    gdn_shape s;
    bool h0;
  };
  // Grouped heads with a partial last chunk and tile (200 = 3 x 64 + 8); one chunk plus 13
  // rows without an initial state; K = 128 over two chunks plus 2 rows.
  for (const shape_case& c : {shape_case{{2, 200, 4, 16, 32, 32}, true}, shape_case{{1, 77, 2, 2, 64, 16}, false},
                              shape_case{{1, 130, 1, 2, 128, 32}, true}}) {
    gdn_inputs in = gdn_random_inputs(c.s, 4321u, c.h0);
    gdn_error e = v2_error(in);
    EXPECT_EQ(e.non_finite, 0u);
    EXPECT_EQ(e.compared, c.s.v_elems() + c.s.state_elems());
    EXPECT_LE(e.rel, kV2RelTol) << "T " << c.s.T << " K " << c.s.K;
    EXPECT_LE(e.max_abs, kV2AbsTol) << "T " << c.s.T << " K " << c.s.K;
  }
}

TEST(GdnV2Cpu, AWrongDecayIsFarOutsideTheTolerance) {
  gdn_shape s{1, 130, 1, 2, 32, 16};
  gdn_inputs in = gdn_random_inputs(s, 7u, true);
  std::vector<double> o_ref, ht_ref;
  gdn_recurrent_ref(in, 0, o_ref, ht_ref, 0, s.B, 0, s.HV);
  for (float& g : in.g) g *= 2.0f;  // the kernel sees another decay than the reference did
  std::vector<float> o, ht;
  gdn_v2_cpu(in, 0, o, ht);
  EXPECT_GE(gdn_compare(s, o.data(), ht.data(), o_ref, ht_ref, 0, s.B, 0, s.HV).rel, 1e-2);
}

TEST(GdnV2Cpu, SaysWhichShapesItCannotTake) {
  EXPECT_EQ(gdn_v2_unsupported({2, 4096, 16, 32, 128, 128}), "");
  EXPECT_NE(gdn_v2_unsupported({1, 64, 1, 1, 48, 32}).find("multiple of 32"), std::string::npos);
  EXPECT_NE(gdn_v2_unsupported({1, 64, 1, 1, 256, 32}).find("at most 128"), std::string::npos);
  EXPECT_NE(gdn_v2_unsupported({1, 64, 1, 1, 128, 24}).find("multiple of 16"), std::string::npos);
}

TEST(GdnV2Layout, SharedMemoryFitsAmdAndCudaWithOptInAtDepthsOneToFour) {
  // 64 KiB is the LDS a workgroup gets on gfx9..gfx12; above 48 KiB CUDA needs the opt-in the
  // runtime does. At K = 128: prep 41.5 KiB at depth 4, state 9.2 KiB a slot plus 21 KiB; on CUDA
  // the slot also carries the tile's U and P rows (+9 KiB a slot).
  for (int d = 1; d <= 4; ++d) {
    EXPECT_LE(gdn2_prep_smem_bytes(d), 64u * 1024) << d;
    EXPECT_LE(gdn2_state_smem_bytes(d, 128, false), 64u * 1024) << d;
    EXPECT_LE(gdn2_state_smem_bytes(d, 128, true), 99u * 1024) << d;  // sm_86/sm_89 opt-in limit
  }
  // Four slots of 9424 bytes; hi/lo copies of S [16][136], rhs' and v_new [16][72], W [16][24]; two
  // 16 x 16 fp32 partials.
  EXPECT_EQ(gdn2_state_smem_bytes(4, 128, false), 4u * 9424 + 2u * 16 * 2 * (136 + 2 * 72 + 24) + 2u * 16 * 16 * 4);
  EXPECT_EQ(gdn2_state_slot_bytes(128, true) - gdn2_state_slot_bytes(128, false), 4u * 16 * 72 * 2);
  EXPECT_GT(gdn2_state_smem_bytes(7, 128, false), 64u * 1024);  // deeper rings fall back to v1 on AMD
}

compile_request v2_request(int stages) {
  compile_request req;
  EXPECT_TRUE(kernel_request("kernels/gdn_chunk_v2.cu", req, {"GS_STAGES=" + std::to_string(stages), "GS_DK=128"}).ok);
  return req;
}

TEST(GdnV2Compile, EveryDepthForSm80AndSm90WithNvrtcUsesMmaAndCpAsync) {
  nvrtc_compiler nvrtc;
  runtime_status st = nvrtc.open();
  if (!st.ok) GTEST_SKIP() << "NVRTC not available here: " << st.message;
  for (const char* arch : {"sm_80", "sm_90"})
    for (int stages = 1; stages <= 4; ++stages) {
      device_source src;
      ASSERT_TRUE(prepare_device_source(v2_request(stages), "cuda", 32, src).ok);
      compiled_code out;
      st = nvrtc.compile(src, arch, out);
      ASSERT_TRUE(st.ok) << arch << " GS_STAGES=" << stages << ": " << st.message;
    }
  // The instructions themselves, in the PTX nvcc makes of the same source (NVRTC gives a cubin).
  if (!test::run("command -v nvcc >/dev/null")) GTEST_SKIP() << "nvcc not on PATH: the PTX check needs it";
  const std::string dir = ::testing::TempDir() + "/gdn_v2_ptx";
  std::filesystem::create_directories(dir);
  for (auto& [name, text] : device_headers()) test::write_file(dir + "/" + name, text);
  test::write_file(dir + "/gdn_chunk_v2.cu", std::string(*find_asset("kernels/gdn_chunk_v2.cu")));
  std::string log;
  ASSERT_TRUE(test::run("cd " + dir + " && nvcc -arch=sm_90 -ptx -DGS_CUDA=1 -DGS_WARP_SIZE=32 -DGS_STAGES=3 gdn_chunk_v2.cu -o v2.ptx", &log)) << log;
  std::string ptx;
  ASSERT_TRUE(test::run("cat " + dir + "/v2.ptx", &ptx));
  EXPECT_NE(ptx.find("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), std::string::npos);
  EXPECT_NE(ptx.find("cp.async.cg.shared.global"), std::string::npos);
  EXPECT_NE(ptx.find("cp.async.wait_group 2"), std::string::npos);  // depth 3: two tiles stay in flight
}

TEST(GdnV2Compile, EveryDepthForGfx90aAndGfx1030WithComgr) {
  hip_compiler comgr;
  hip_compiler_options o;
  o.kind = hip_compiler_kind::comgr;
  runtime_status st = comgr.open(o);
  if (!st.ok) GTEST_SKIP() << "amd_comgr not available here: " << st.message;
  for (auto [arch, wave] : {std::pair{"gfx90a", 64}, std::pair{"gfx1030", 32}})
    for (int stages = 1; stages <= 4; ++stages) {
      device_source src;
      ASSERT_TRUE(prepare_device_source(v2_request(stages), "hip", wave, src).ok);
      compiled_code out;
      st = comgr.compile(src, arch, out);
      ASSERT_TRUE(st.ok) << arch << " GS_STAGES=" << stages << ": " << st.message;
    }
}

TEST(GdnV2Compile, MatrixInstructionsForCdnaRdna3AndRdna4WithClang19) {
  if (!test::run("command -v clang-19 >/dev/null")) GTEST_SKIP() << "clang-19 not installed (scripts/install-deps.sh --test installs it)";
  const std::string dir = ::testing::TempDir() + "/gdn_v2_isa";
  std::filesystem::create_directories(dir);
  for (auto& [name, text] : device_headers()) test::write_file(dir + "/" + name, text);
  test::write_file(dir + "/shim.h", hip_rtc_shim());
  test::write_file(dir + "/gdn_chunk_v2.cu", std::string(*find_asset("kernels/gdn_chunk_v2.cu")));
  struct target {
    const char* arch;
    int wave;
    const char* instruction;  ///< "" = none expected
  };
  for (target t : {target{"gfx90a", 64, "v_mfma_f32_16x16x16bf16_1k"}, target{"gfx1100", 32, "v_wmma_f32_16x16x16_bf16"},
                   target{"gfx1201", 32, "v_wmma_f32_16x16x16_bf16"}, target{"gfx1030", 32, ""}}) {
    std::string log, isa;
    const std::string out = dir + "/" + t.arch + ".s";
    ASSERT_TRUE(test::run("cd " + dir + " && clang-19 -x hip --offload-arch=" + t.arch +
                        " -nogpulib -nogpuinc --cuda-device-only -O3 -S -include shim.h -DGS_HIP=1 -DGS_WARP_SIZE=" +
                        std::to_string(t.wave) + " -DGS_STAGES=4 -DGS_DK=128 gdn_chunk_v2.cu -o " + out,
                    &log))
        << t.arch << ": " << log;
    ASSERT_TRUE(test::run("cat " + out, &isa));
    if (*t.instruction) EXPECT_NE(isa.find(t.instruction), std::string::npos) << t.arch;
    else EXPECT_EQ(isa.find("v_wmma"), std::string::npos) << t.arch;
    EXPECT_EQ(isa.find("v_mfma") != std::string::npos, std::string(t.arch) == "gfx90a") << t.arch;
  }
}

}  // namespace
}  // namespace gs
