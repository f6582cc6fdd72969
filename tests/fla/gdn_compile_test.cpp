// kernels/gdn_chunk.cu compiles at every pipeline depth 1..4 with the real NVRTC for sm_90 and
// the real amd_comgr for gfx90a (wave64) and gfx1030 (wave32), at Qwen3.5's K = 128: the native
// backend of `gpustack probe fla` can build for the cards it claims. Skips (with the reason)
// where a compiler is missing; fails if one is there and any depth does not compile.
#include <gtest/gtest.h>

#include "core/assets.h"
#include "runtime/code_object.h"
#include "runtime/hip_compiler.h"
#include "runtime/kernel_source.h"
#include "runtime/nvrtc_compiler.h"

namespace gs {
namespace {

compile_request gdn_request(int stages) {
  compile_request req;
  EXPECT_TRUE(kernel_request("kernels/gdn_chunk.cu", req,
                             {"GS_STAGES=" + std::to_string(stages), "GS_DK=128", "GS_BV=8", "GS_ROWS=8"})
                  .ok);
  return req;
}

TEST(GdnCompile, EveryDepthForSm90WithNvrtc) {
  nvrtc_compiler nvrtc;
  runtime_status st = nvrtc.open();
  if (!st.ok) GTEST_SKIP() << "NVRTC not available here: " << st.message;
  for (int stages = 1; stages <= 4; ++stages) {
    device_source src;
    ASSERT_TRUE(prepare_device_source(gdn_request(stages), "cuda", 32, src).ok);
    compiled_code out;
    st = nvrtc.compile(src, "sm_90", out);
    ASSERT_TRUE(st.ok) << "GS_STAGES=" << stages << ": " << st.message;
    code_object_info info = inspect_code_object(std::string_view(out.image.data(), out.image.size()));
    EXPECT_EQ(info.arch, "sm_90");
  }
}

TEST(GdnCompile, EveryDepthForGfx90aAndGfx1030WithComgr) {
  hip_compiler comgr;
  hip_compiler_options o;
  o.kind = hip_compiler_kind::comgr;
  runtime_status st = comgr.open(o);
  if (!st.ok) GTEST_SKIP() << "amd_comgr not available here: " << st.message;
  struct target {
    const char* arch;
    int wave;
  };
  for (target t : {target{"gfx90a", 64}, target{"gfx1030", 32}})
    for (int stages = 1; stages <= 4; ++stages) {
      device_source src;
      ASSERT_TRUE(prepare_device_source(gdn_request(stages), "hip", t.wave, src).ok);
      compiled_code out;
      st = comgr.compile(src, t.arch, out);
      ASSERT_TRUE(st.ok) << t.arch << " GS_STAGES=" << stages << ": " << st.message;
      EXPECT_EQ(inspect_code_object(std::string_view(out.image.data(), out.image.size())).arch, t.arch);
    }
}

TEST(GdnCompile, DepthOutsideOneToEightIsACompileError) {
  nvrtc_compiler nvrtc;
  if (!nvrtc.open().ok) GTEST_SKIP() << "NVRTC not available here";
  device_source src;
  ASSERT_TRUE(prepare_device_source(gdn_request(9), "cuda", 32, src).ok);
  compiled_code out;
  runtime_status st = nvrtc.compile(src, "sm_90", out);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("GS_STAGES must be 1..8"), std::string::npos) << st.message;
}

}  // namespace
}  // namespace gs
