// The cpu backend: compile maps a kernels/*.cu name to its CPU implementations, launches keep a
// GPU's grid semantics (a short grid leaves elements unwritten) and the checks a driver makes
// (bad shape, pointer outside any allocation, unknown kernel) fail as a driver would.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "core/assets.h"
#include "kernels/ref/gemm_ref.h"
#include "kernels/ref/reduce_sum_ref.h"
#include "runtime/runtime_cpu.h"

namespace {

using gs::buffer;
using gs::kernel_handle;
using gs::launch_dims;
using gs::module_handle;

// Compile + load + get_kernel, asserting each step.
kernel_handle load_kernel(gs::runtime& rt, const std::string& file, const std::string& name,
                          std::vector<std::string> defines = {}) {
  gs::compile_request req{file, std::string(*gs::find_asset("kernels/" + file)), std::move(defines)};
  gs::compiled_code code;
  EXPECT_TRUE(rt.compile(req, code).ok);
  module_handle mod;
  EXPECT_TRUE(rt.load(code, mod).ok);
  kernel_handle k;
  gs::runtime_status st = rt.get_kernel(mod, name, k);
  EXPECT_TRUE(st.ok) << st.message;
  return k;
}

launch_dims dims1(unsigned grid, unsigned block) {
  launch_dims d;
  d.grid[0] = grid, d.block[0] = block;
  return d;
}

TEST(RuntimeCpu, PropsDescribeTheCpuBackend) {
  auto rt = gs::open_cpu_runtime();
  EXPECT_EQ(rt->props().backend, "cpu");
  EXPECT_EQ(rt->props().arch, "cpu");
  EXPECT_EQ(rt->props().wave_size, 32);
  EXPECT_GT(rt->props().total_memory, 0u);
  EXPECT_EQ(gs::open_cpu_runtime(64)->props().wave_size, 64);
  EXPECT_EQ(gs::open_cpu_runtime(48)->props().wave_size, 32);  // only 32 or 64 exist
}

TEST(RuntimeCpu, CompileRejectsUnknownSourcesAndLoadRejectsForeignImages) {
  auto rt = gs::open_cpu_runtime();
  gs::compiled_code code;
  gs::runtime_status st = rt->compile({"nope.cu", "extern \"C\" void nope() {}", {}}, code);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("nope.cu"), std::string::npos);
  EXPECT_FALSE(rt->compile({"vector_add.cu", "", {}}, code).ok);

  gs::compiled_code cubin;
  cubin.image = {'\x7f', 'E', 'L', 'F'};
  module_handle mod;
  EXPECT_FALSE(rt->load(cubin, mod).ok);
}

TEST(RuntimeCpu, GetKernelNeedsAKernelOfThatFile) {
  auto rt = gs::open_cpu_runtime();
  gs::compiled_code code;
  ASSERT_TRUE(rt->compile({"vector_add.cu", std::string(*gs::find_asset("kernels/vector_add.cu")), {}}, code).ok);
  EXPECT_FALSE(code.cache_key.empty());
  module_handle mod;
  ASSERT_TRUE(rt->load(code, mod).ok);
  kernel_handle k;
  EXPECT_TRUE(rt->get_kernel(mod, "vector_add_v1", k).ok);
  EXPECT_FALSE(rt->get_kernel(mod, "gemm_f32_v1", k).ok);  // exists, but in gemm.cu
  EXPECT_FALSE(rt->get_kernel(module_handle{}, "vector_add_v1", k).ok);
}

TEST(RuntimeCpu, CopiesAndFreesAreCheckedAgainstAllocations) {
  auto rt = gs::open_cpu_runtime();
  buffer b;
  ASSERT_TRUE(rt->alloc(1000, b).ok);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.ptr) % 256, 0u);
  std::vector<char> host(1000, 'x'), back(1000);
  EXPECT_TRUE(rt->copy_to_device(b, host.data(), 1000).ok);
  EXPECT_TRUE(rt->copy_to_host(back.data(), b, 1000).ok);
  EXPECT_EQ(host, back);
  buffer inner{static_cast<char*>(b.ptr) + 500, 500};
  EXPECT_TRUE(rt->copy_to_device(inner, host.data(), 500).ok);
  EXPECT_FALSE(rt->copy_to_device(inner, host.data(), 501).ok);  // one byte past the end
  EXPECT_FALSE(rt->copy_to_host(back.data(), buffer{host.data(), 10}, 10).ok);  // not device memory
  buffer copy = b;
  EXPECT_TRUE(rt->free(b).ok);
  EXPECT_FALSE(rt->free(copy).ok);  // double free
}

TEST(RuntimeCpu, LaunchRejectsImpossibleShapes) {
  auto rt = gs::open_cpu_runtime();
  kernel_handle k = load_kernel(*rt, "vector_add.cu", "vector_add_v1");
  float* none = nullptr;
  unsigned n = 0;
  void* args[] = {&none, &none, &none, &n};
  EXPECT_FALSE(rt->launch(k, dims1(1, 2048), args).ok);
  EXPECT_FALSE(rt->launch(k, dims1(0, 256), args).ok);
  EXPECT_TRUE(rt->launch(k, dims1(1, 256), args).ok);  // n = 0 touches nothing
  EXPECT_FALSE(rt->launch(kernel_handle{}, dims1(1, 256), args).ok);
}

TEST(RuntimeCpu, ShortGridLeavesTheTailUnwrittenAsOnAGpu) {
  auto rt = gs::open_cpu_runtime();
  kernel_handle k = load_kernel(*rt, "vector_add.cu", "vector_add_v1");
  const unsigned n = 1000;
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, -1.0f);
  buffer da, db, dc;
  ASSERT_TRUE(rt->alloc(n * 4, da).ok && rt->alloc(n * 4, db).ok && rt->alloc(n * 4, dc).ok);
  rt->copy_to_device(da, a.data(), n * 4), rt->copy_to_device(db, b.data(), n * 4), rt->copy_to_device(dc, c.data(), n * 4);
  unsigned n_arg = n;
  void* args[] = {&da.ptr, &db.ptr, &dc.ptr, &n_arg};
  ASSERT_TRUE(rt->launch(k, dims1(3, 256), args).ok);  // 768 threads for 1000 elements
  ASSERT_TRUE(rt->copy_to_host(c.data(), dc, n * 4).ok);
  EXPECT_EQ(c[767], 3.0f);
  EXPECT_EQ(c[768], -1.0f);
}

TEST(RuntimeCpu, PointerArgumentsOutsideAllocationsFailLikeAnIllegalAddress) {
  auto rt = gs::open_cpu_runtime();
  kernel_handle k = load_kernel(*rt, "vector_add.cu", "vector_add_v1");
  buffer small;
  ASSERT_TRUE(rt->alloc(16, small).ok);
  std::vector<float> host(64);
  float* h = host.data();
  unsigned n = 64;
  void* args[] = {&small.ptr, &small.ptr, &h, &n};
  gs::runtime_status st = rt->launch(k, dims1(1, 64), args);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.code, 700);
}

// The wave size comes from the module's GS_WARP_SIZE (else the backend's), so one CPU box
// replays both a wave32 and a wave64 device, and refuses a block the butterfly cannot serve.
TEST(RuntimeCpu, ReduceEmulatesWave32AndWave64) {
  const unsigned n = 5000, grid = 3, block = 128;
  std::vector<float> x(n);
  for (unsigned i = 0; i < n; ++i) x[i] = 1.0f / float(1 + i % 97);  // not exact: order shows
  for (int wave : {32, 64}) {
    for (bool via_define : {false, true}) {
      auto rt = gs::open_cpu_runtime(via_define ? 32 : wave);
      std::vector<std::string> defines;
      if (via_define) defines.push_back("GS_WARP_SIZE=" + std::to_string(wave));
      kernel_handle k = load_kernel(*rt, "reduce_sum.cu", "reduce_sum_v1", defines);
      buffer dx, dp;
      ASSERT_TRUE(rt->alloc(n * 4, dx).ok && rt->alloc(grid * 4, dp).ok);
      rt->copy_to_device(dx, x.data(), n * 4);
      unsigned n_arg = n;
      void* args[] = {&dx.ptr, &dp.ptr, &n_arg};
      ASSERT_TRUE(rt->launch(k, dims1(grid, block), args).ok);
      std::vector<float> got(grid), want(grid);
      rt->copy_to_host(got.data(), dp, grid * 4);
      ASSERT_TRUE(gs::reduce_sum_blocks_ref(x.data(), n, want.data(), grid, block, unsigned(wave)));
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), grid * 4)) << "wave " << wave;
      // Half a wave64 per block: what the kernel cannot do is an error, not a wrong sum.
      gs::runtime_status st = rt->launch(k, dims1(grid, 32), args);
      EXPECT_EQ(st.ok, wave == 32) << st.message;
    }
  }
}

TEST(RuntimeCpu, TiledGemmNeedsItsBlockShapeAndFollowsTileDefines) {
  auto rt = gs::open_cpu_runtime();
  const int M = 40, N = 40, K = 8;
  std::vector<float> A(M * K, 1.0f), B(K * N, 1.0f), C(M * N, -1.0f);
  buffer da, db, dc;
  ASSERT_TRUE(rt->alloc(A.size() * 4, da).ok && rt->alloc(B.size() * 4, db).ok && rt->alloc(C.size() * 4, dc).ok);
  rt->copy_to_device(da, A.data(), A.size() * 4), rt->copy_to_device(db, B.data(), B.size() * 4);
  int m = M, n = N, k = K;
  void* args[] = {&da.ptr, &db.ptr, &dc.ptr, &m, &n, &k};

  // Tiles of 16 x 16 with a 4 x 4 register tile: block (4, 4), one block covers 16 x 16 of C.
  kernel_handle kt = load_kernel(*rt, "gemm.cu", "gemm_f32_v2",
                                 {"GS_GEMM_BM=16", "GS_GEMM_BN=16", "GS_GEMM_TM=4", "GS_GEMM_TN=4"});
  launch_dims wrong;
  wrong.block[0] = wrong.block[1] = 16;
  EXPECT_FALSE(rt->launch(kt, wrong, args).ok);
  launch_dims d;
  d.block[0] = d.block[1] = 4;
  d.grid[0] = d.grid[1] = 2;  // covers 32 x 32 of the 40 x 40
  rt->copy_to_device(dc, C.data(), C.size() * 4);
  ASSERT_TRUE(rt->launch(kt, d, args).ok);
  rt->copy_to_host(C.data(), dc, C.size() * 4);
  EXPECT_EQ(C[31 * N + 31], float(K));
  EXPECT_EQ(C[31 * N + 32], -1.0f);
  EXPECT_EQ(C[32 * N + 0], -1.0f);
}

TEST(RuntimeCpu, TimeMeasuresTheCallable) {
  auto rt = gs::open_cpu_runtime();
  double ms = -1;
  int calls = 0;
  EXPECT_TRUE(rt->time_ms([&] { ++calls; return gs::runtime_status::success(); }, ms).ok);
  EXPECT_EQ(calls, 1);
  EXPECT_GE(ms, 0.0);
  EXPECT_FALSE(rt->time_ms([] { return gs::runtime_status::failure("x", 1, "y"); }, ms).ok);
}

}  // namespace
