// The hip backend against a test double of HIP/HSA that plays a gfx1201 (R9700): the dlopen
// table, the hipDeviceProp_t offsets (R0600 at 1160, R0000 at 396), the HSA walk, memory,
// launch, events and the comgr compile path all run for real.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>

#include "runtime/code_object.h"
#include "runtime/runtime_hip.h"
#include "runtime_test_util.h"
#include "support/probe_harness.h"

namespace gs {
namespace {

hip_options double_options(const char* library = GPUSTACK_HIP_DOUBLE) {
  hip_options o;
  o.hip_library = library;
  o.use_kfd = false;  // the double is the whole machine; this host's KFD (if any) is not
  o.cache_dir = "";
  o.compiler.kind = hip_compiler_kind::comgr;
  return o;
}

bool has_note(const runtime& rt, const std::string& text) {
  for (const std::string& n : hip_runtime_notes(rt))
    if (n.find(text) != std::string::npos) return true;
  return false;
}

// A minimal AMD code object: ELF64 header (EM_AMDGPU, gfx1201), the kernel names, and a
// section header table position that makes the file end after them.
std::vector<char> fake_code_object(const std::vector<std::string>& kernels) {
  std::vector<char> img(64, 0);
  std::memcpy(img.data(), "\x7f" "ELF", 4);
  img[4] = 2;
  img[5] = 1;
  img[7] = 64;
  img[8] = 3;
  img[18] = static_cast<char>(224);
  img[48] = 0x4e;
  for (const std::string& k : kernels) img.insert(img.end(), k.c_str(), k.c_str() + k.size() + 1);
  uint64_t shoff = img.size();
  std::memcpy(img.data() + 40, &shoff, sizeof shoff);
  return img;
}

TEST(HipDouble, PropsSayGfx1201Wave32FromHsa) {
  runtime_status why;
  auto rt = open_hip_runtime(0, why, double_options());
  ASSERT_TRUE(rt) << why.call << ": " << why.message;
  const device_props& p = rt->props();
  EXPECT_EQ(p.backend, "hip");
  EXPECT_EQ(p.name, "AMD Radeon AI PRO R9700");
  EXPECT_EQ(p.arch, "gfx1201");
  EXPECT_EQ(p.wave_size, 32);
  EXPECT_EQ(p.compute_units, 64);
  EXPECT_EQ(p.total_memory, 32ull << 30) << "hipDeviceTotalMem, not the saturated int attribute";
  EXPECT_EQ(p.clock_khz, 2350000);
  EXPECT_EQ(p.driver_version, "6.4.43484");
  EXPECT_TRUE(has_note(*rt, "arch from hsa"));
}

TEST(HipDouble, WithoutHsaTheArchComesFromR0600AtOffset1160) {
  test::scoped_env g("GS_HIP_DOUBLE_HSA", "fail");
  runtime_status why;
  auto rt = open_hip_runtime(0, why, double_options());
  ASSERT_TRUE(rt) << why.message;
  // The double writes gfx906 at byte 396 of its R0600 struct and answers gfx1100 through
  // R0000: only the R0600 symbol read at 1160 gives gfx1201.
  EXPECT_EQ(rt->props().arch, "gfx1201");
  EXPECT_TRUE(has_note(*rt, "arch from hipGetDevicePropertiesR0600"));
  EXPECT_TRUE(has_note(*rt, "HSA unavailable"));
}

TEST(HipDouble, Hip5LibraryWithoutR0600UsesR0000AtOffset396) {
  test::scoped_env g("GS_HIP_DOUBLE_HSA", "fail");
  runtime_status why;
  auto rt = open_hip_runtime(0, why, double_options(GPUSTACK_HIP_DOUBLE_R0000));
  ASSERT_TRUE(rt) << why.message;
  EXPECT_EQ(rt->props().arch, "gfx1201");
  EXPECT_TRUE(has_note(*rt, "arch from hipGetDevicePropertiesR0000"));
}

TEST(HipDouble, NoDeviceAndBadOrdinalAreStatuses) {
  {
    test::scoped_env g("GS_HIP_DOUBLE_DEVICES", "0");
    runtime_status why;
    EXPECT_FALSE(open_hip_runtime(0, why, double_options()));
    EXPECT_EQ(why.call, "hipGetDeviceCount");
    EXPECT_EQ(why.code, 100);
    EXPECT_NE(why.message.find("no device"), std::string::npos) << why.message;
  }
  runtime_status why;
  EXPECT_FALSE(open_hip_runtime(3, why, double_options()));
  EXPECT_NE(why.message.find("does not exist"), std::string::npos) << why.message;
  EXPECT_FALSE(open_hip_runtime(0, why, double_options("/nonexistent/libamdhip64.so.7")));
  EXPECT_EQ(why.call, "dlopen");
}

TEST(HipDouble, CompileForGfx1201ViaComgr) {
  runtime_status why;
  auto rt = open_hip_runtime(0, why, double_options());
  ASSERT_TRUE(rt) << why.message;
  if (rt->props().compiler.empty()) GTEST_SKIP() << "no amd_comgr on this machine";
  EXPECT_TRUE(rt->props().compiler.starts_with("comgr ")) << rt->props().compiler;
  compile_request req = test::all_kernel_sources().back();  // axpy.cu
  compiled_code code;
  runtime_status st = rt->compile(req, code);
  // Debian's comgr 2.4 predates gfx1201: the JIT must say so, naming the arch and the
  // compiler version. A comgr that knows gfx1201 must produce a gfx1201 code object.
  bool knows = false;
  {
    hip_compiler c;
    hip_compiler_options o;
    o.kind = hip_compiler_kind::comgr;
    if (c.open(o).ok)
      for (const std::string& isa : c.known_isas()) knows = knows || isa == "amdgcn-amd-amdhsa--gfx1201";
  }
  if (!knows) {
    ASSERT_FALSE(st.ok);
    EXPECT_NE(st.message.find("gfx1201"), std::string::npos) << st.message;
    EXPECT_NE(st.message.find(rt->props().compiler), std::string::npos) << st.message;
    EXPECT_EQ(st.call, "amd_comgr_get_isa_name");
  } else {
    ASSERT_TRUE(st.ok) << st.message;
    EXPECT_EQ(inspect_code_object(std::string_view(code.image.data(), code.image.size())).arch, "gfx1201");
  }
}

TEST(HipDouble, MemoryLaunchEventsAndABadKernelName) {
  runtime_status why;
  auto rt = open_hip_runtime(0, why, double_options());
  ASSERT_TRUE(rt) << why.message;
  void* lib = dlopen(GPUSTACK_HIP_DOUBLE, RTLD_NOW | RTLD_NOLOAD);  // the instance the backend loaded
  ASSERT_NE(lib, nullptr);
  auto launch_count = reinterpret_cast<int (*)()>(dlsym(lib, "gs_hip_double_launch_count"));
  auto last_launch = reinterpret_cast<int (*)(char*, unsigned*, unsigned*, int*)>(dlsym(lib, "gs_hip_double_last_launch"));
  auto live = reinterpret_cast<int (*)()>(dlsym(lib, "gs_hip_double_live_allocations"));
  ASSERT_TRUE(launch_count && last_launch && live);

  std::vector<float> host(256), back(256, 0.0f);
  for (size_t i = 0; i < host.size(); ++i) host[i] = float(i) * 0.5f;
  buffer b;
  const int before = live();
  ASSERT_TRUE(rt->alloc(host.size() * sizeof(float), b).ok);
  EXPECT_EQ(live(), before + 1);
  ASSERT_TRUE(rt->copy_to_device(b, host.data(), host.size() * sizeof(float)).ok);
  ASSERT_TRUE(rt->copy_to_host(back.data(), b, back.size() * sizeof(float)).ok);
  EXPECT_EQ(host, back);
  EXPECT_FALSE(rt->copy_to_device(b, host.data(), host.size() * sizeof(float) + 4).ok) << "larger than the buffer";

  compiled_code code;
  std::vector<char> img = fake_code_object({"axpy", "warp_total"});
  code.image = img;
  module_handle mod;
  ASSERT_TRUE(rt->load(code, mod).ok);
  kernel_handle k;
  ASSERT_TRUE(rt->get_kernel(mod, "axpy", k).ok);
  kernel_handle missing;
  runtime_status st = rt->get_kernel(mod, "no_such_kernel", missing);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.call, "hipModuleGetFunction");
  EXPECT_EQ(st.code, 500);
  EXPECT_NE(st.message.find("hipErrorNotFound"), std::string::npos) << st.message;

  float a = 2.0f;
  unsigned n = 256;
  void* args[] = {&a, &b.ptr, &b.ptr, &n, nullptr};
  launch_dims d;
  d.grid[0] = 8;
  d.block[0] = 32;
  const int launched = launch_count();
  double ms = -1;
  st = rt->time_ms([&] { return rt->launch(k, d, args); }, ms);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_GE(ms, 0.0);
  EXPECT_TRUE(rt->synchronize().ok);
  ASSERT_EQ(launch_count(), launched + 1);
  char name[64] = {};
  unsigned grid[3], block[3];
  int nargs = 0;
  ASSERT_EQ(last_launch(name, grid, block, &nargs), 1);
  EXPECT_STREQ(name, "axpy");
  EXPECT_EQ(grid[0], 8u);
  EXPECT_EQ(block[0], 32u);
  EXPECT_EQ(nargs, 4);

  d.block[0] = 2048;  // over the 1024-thread limit: the library's error comes back as a status
  st = rt->launch(k, d, args);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.call, "hipModuleLaunchKernel");

  ASSERT_TRUE(rt->free(b).ok);
  EXPECT_EQ(b.ptr, nullptr);
  EXPECT_EQ(live(), before);
  EXPECT_TRUE(rt->free(b).ok) << "freeing an empty buffer is a no-op";

  compiled_code not_elf;
  not_elf.image = {'n', 'o', 'p', 'e'};
  st = rt->load(not_elf, mod);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.call, "hipModuleLoadData");
  dlclose(lib);
}

}  // namespace
}  // namespace gs
