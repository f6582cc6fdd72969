// The cuda backend on a real NVIDIA GPU (skipped where none opens): compile axpy.cu with NVRTC
// for the device's own arch, launch, check every element, time with events, the error path of a
// bad kernel name, and a cache hit on the second compile. scripts/h200-runtime-smoke.sh runs it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "runtime/runtime_cuda.h"
#include "runtime_test_util.h"

namespace gs {
namespace {

class CudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gs-cuda-cache-XXXXXX";
    cache_dir = mkdtemp(tmpl);
    cuda_options o;
    o.cache_dir = cache_dir;
    runtime_status why;
    rt = open_cuda_runtime(0, why, o);
    if (!rt) GTEST_SKIP() << "no CUDA device: " << why.call << ": " << why.message;
  }
  void TearDown() override {
    rt.reset();
    std::filesystem::remove_all(cache_dir);
  }
  std::string cache_dir;
  std::unique_ptr<runtime> rt;
};

TEST_F(CudaDevice, PropsCompileLaunchVerifyTime) {
  const device_props& p = rt->props();
  EXPECT_EQ(p.backend, "cuda");
  EXPECT_TRUE(p.arch.starts_with("sm_")) << p.arch;
  EXPECT_EQ(p.wave_size, 32);
  EXPECT_GT(p.compute_units, 0);
  EXPECT_GT(p.total_memory, 0u);
  EXPECT_TRUE(p.compiler.starts_with("nvrtc ")) << "NVRTC must load next to the driver: " << p.compiler;
  std::printf("[device] %s %s SMs=%d mem=%.1f GiB clock=%d kHz driver=%s (%s) compiler=%s\n", p.name.c_str(),
              p.arch.c_str(), p.compute_units, double(p.total_memory) / (1u << 30), p.clock_khz,
              p.driver_version.c_str(), p.driver_build.c_str(), p.compiler.c_str());

  compile_request req = test::all_kernel_sources().back();
  ASSERT_EQ(req.name, "axpy.cu");
  compiled_code code;
  runtime_status st = rt->compile(req, code);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_FALSE(code.from_cache);
  compiled_code again;
  ASSERT_TRUE(rt->compile(req, again).ok);
  EXPECT_TRUE(again.from_cache);

  module_handle mod;
  ASSERT_TRUE(rt->load(code, mod).ok);
  kernel_handle axpy, total, bad;
  ASSERT_TRUE(rt->get_kernel(mod, "axpy", axpy).ok);
  ASSERT_TRUE(rt->get_kernel(mod, "warp_total", total).ok);
  st = rt->get_kernel(mod, "no_such_kernel", bad);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.call, "cuModuleGetFunction");
  EXPECT_EQ(st.code, 500) << st.message;  // CUDA_ERROR_NOT_FOUND
  std::printf("[bad kernel] %s\n", st.message.c_str());

  // 16 Mi floats: 64 MiB per vector, 3 x 64 MiB moved per axpy launch (read x, read+write y).
  const unsigned n = 16u << 20;
  std::vector<float> x(n), y(n), out(n);
  for (unsigned i = 0; i < n; ++i) {
    x[i] = float(i % 1000) * 0.25f;
    y[i] = 1.0f - float(i % 7);
  }
  buffer bx, by;
  ASSERT_TRUE(rt->alloc(n * sizeof(float), bx).ok);
  ASSERT_TRUE(rt->alloc(n * sizeof(float), by).ok);
  ASSERT_TRUE(rt->copy_to_device(bx, x.data(), n * sizeof(float)).ok);
  ASSERT_TRUE(rt->copy_to_device(by, y.data(), n * sizeof(float)).ok);
  float a = 3.0f;
  void* args[] = {&a, &bx.ptr, &by.ptr, const_cast<unsigned*>(&n)};
  launch_dims d;
  d.block[0] = 256;
  d.grid[0] = (n + 255) / 256;
  ASSERT_TRUE(rt->launch(axpy, d, args).ok);
  ASSERT_TRUE(rt->synchronize().ok);
  ASSERT_TRUE(rt->copy_to_host(out.data(), by, n * sizeof(float)).ok);
  size_t wrong = 0;
  for (unsigned i = 0; i < n; ++i)
    if (out[i] != a * x[i] + y[i]) ++wrong;  // one FMA or mul+add: both exact for these values
  EXPECT_EQ(wrong, 0u);

  double ms = 0;
  const int reps = 20;
  st = rt->time_ms([&] {
    for (int r = 0; r < reps; ++r)
      if (runtime_status s = rt->launch(axpy, d, args); !s.ok) return s;
    return runtime_status::success();
  }, ms);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_GT(ms, 0.0);
  const double gbs = 3.0 * n * sizeof(float) * reps / (ms * 1e-3) / 1e9;
  std::printf("[timing] %d axpy launches of %u floats: %.3f ms, %.0f GB/s\n", reps, n, ms, gbs);

  // warp_total: every warp of 32 sums its lanes with __shfl_xor_sync; x[i] = 1 gives 32.
  std::vector<float> ones(1024, 1.0f), sums(1024 / 32, 0.0f);
  buffer bo, bs;
  ASSERT_TRUE(rt->alloc(ones.size() * sizeof(float), bo).ok);
  ASSERT_TRUE(rt->alloc(sums.size() * sizeof(float), bs).ok);
  ASSERT_TRUE(rt->copy_to_device(bo, ones.data(), ones.size() * sizeof(float)).ok);
  unsigned m = 1024;
  void* targs[] = {&bo.ptr, &bs.ptr, &m};
  launch_dims td;
  td.block[0] = 256;
  td.grid[0] = 4;
  ASSERT_TRUE(rt->launch(total, td, targs).ok);
  ASSERT_TRUE(rt->copy_to_host(sums.data(), bs, sums.size() * sizeof(float)).ok);
  for (float s : sums) EXPECT_EQ(s, 32.0f);

  for (buffer* b : {&bx, &by, &bo, &bs}) EXPECT_TRUE(rt->free(*b).ok);
}

TEST_F(CudaDevice, EveryEmbeddedKernelCompilesForThisDevice) {
  for (const compile_request& req : test::all_kernel_sources()) {
    compiled_code code;
    runtime_status st = rt->compile(req, code);
    ASSERT_TRUE(st.ok) << req.name << ": " << st.message;
    module_handle mod;
    st = rt->load(code, mod);
    EXPECT_TRUE(st.ok) << req.name << ": " << st.message;
  }
}

}  // namespace
}  // namespace gs
