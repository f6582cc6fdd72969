// The NF4 thresholds of kernels/quant4.cu as the CUDA compiler really encodes them. The kernel
// writes bitsandbytes' decimal literals; four of those sit so close to a float32 tie that a
// reference built from float32(midpoint) disagrees with the GPU on values lying exactly on a
// threshold (H200 run of session 1: 4 of 131 bytes). So the reference takes the literals too, and
// this test checks that NVRTC put exactly the reference's 15 float32 constants into the CUBIN
// (Volta and later encode a 32-bit immediate operand as 4 little-endian bytes of the 128-bit
// instruction, so each shows up as a byte run in the image).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "core/assets.h"
#include "kernels/ref/quant4_ref.h"
#include "runtime/kernel_source.h"
#include "runtime/nvrtc_compiler.h"

namespace gs {
namespace {

TEST(Nf4ThresholdConstants, NvrtcEncodesTheReferenceFloats) {
  nvrtc_compiler nvrtc;
  runtime_status st = nvrtc.open();
  if (!st.ok) GTEST_SKIP() << "NVRTC not available here: " << st.message;
  std::optional<std::string_view> src = find_asset("kernels/quant4.cu");
  ASSERT_TRUE(src.has_value());
  device_source ds;
  ASSERT_TRUE(prepare_device_source({"quant4.cu", std::string(*src), {}}, "cuda", 32, ds).ok);
  compiled_code out;
  st = nvrtc.compile(ds, "sm_90", out);
  ASSERT_TRUE(st.ok) << st.message;
  const std::string image(out.image.data(), out.image.size());
  for (float t : nf4_thresholds()) {
    char le[4];
    std::memcpy(le, &t, 4);  // x86 and the CUBIN are both little-endian
    EXPECT_NE(image.find(std::string(le, 4)), std::string::npos) << "threshold " << t << " not in the CUBIN";
  }
}

}  // namespace
}  // namespace gs
