// Every kernel compiles with Debian's real amd_comgr (libamd_comgr.so.2, ROCm 5.2, with
// rocm-device-libs) for gfx90a (wave64) and gfx1030 (wave32), through both HIP header sources
// (hiprtc's builtins library and gpustack's shim); each code object's EF_AMDGPU_MACH is checked.
// Also: Debian's hiprtc (inside libamdhip64.so.5), the comgr enum tables, and the errors.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "runtime/code_object.h"
#include "runtime/hip_compiler.h"
#include "runtime_test_util.h"

namespace gs {
namespace {

struct arch_case {
  const char* arch;
  int wave;
  unsigned mach;
};
constexpr arch_case kCases[] = {{"gfx90a", 64, 0x3f}, {"gfx1030", 32, 0x36}};

void compile_everything(hip_compiler& c) {
  auto kernels = test::all_kernel_sources();
  ASSERT_GE(kernels.size(), 2u);
  for (const arch_case& a : kCases) {
    for (const compile_request& req : kernels) {
      device_source src;
      ASSERT_TRUE(prepare_device_source(req, "hip", a.wave, src).ok);
      compiled_code out;
      runtime_status st = c.compile(src, a.arch, out);
      ASSERT_TRUE(st.ok) << req.name << " for " << a.arch << " with " << c.version() << " (" << c.header_origin()
                         << "): " << st.message;
      code_object_info info = inspect_code_object(std::string_view(out.image.data(), out.image.size()));
      EXPECT_EQ(info.machine, 224) << "EM_AMDGPU";
      EXPECT_EQ(info.flags & 0xffu, a.mach) << req.name << " " << a.arch;
      EXPECT_EQ(info.arch, a.arch);
      EXPECT_EQ(info.os_abi, 64) << "ELFOSABI_AMDGPU_HSA";
    }
  }
}

class ComgrCompile : public ::testing::Test {
 protected:
  runtime_status open(hip_header_source headers) {
    hip_compiler_options o;
    o.kind = hip_compiler_kind::comgr;
    o.headers = headers;
    return comgr.open(o);
  }
  hip_compiler comgr;
};

TEST_F(ComgrCompile, EveryKernelWithHipRtcBuiltinsHeader) {
  runtime_status st = open(hip_header_source::builtins);
  if (!st.ok) GTEST_SKIP() << "amd_comgr or libhiprtc-builtins not available here: " << st.message;
  EXPECT_EQ(comgr.kind(), hip_compiler_kind::comgr);
  EXPECT_TRUE(comgr.version().starts_with("comgr 2.") || comgr.version().starts_with("comgr 3.")) << comgr.version();
  EXPECT_NE(comgr.header_origin().find("libhiprtc-builtins"), std::string::npos) << comgr.header_origin();
  compile_everything(comgr);
}

TEST_F(ComgrCompile, EveryKernelWithTheGpustackShim) {
  runtime_status st = open(hip_header_source::shim);
  if (!st.ok) GTEST_SKIP() << "amd_comgr not available here: " << st.message;
  EXPECT_EQ(comgr.header_origin(), "gpustack shim");
  compile_everything(comgr);
}

TEST_F(ComgrCompile, ArchComgrDoesNotKnowIsAClearError) {
  runtime_status st = open(hip_header_source::automatic);
  if (!st.ok) GTEST_SKIP() << st.message;
  auto isas = comgr.known_isas();
  ASSERT_FALSE(isas.empty());
  EXPECT_NE(std::find(isas.begin(), isas.end(), "amdgcn-amd-amdhsa--gfx90a"), isas.end());
  device_source src;
  ASSERT_TRUE(prepare_device_source(test::all_kernel_sources().back(), "hip", 32, src).ok);
  compiled_code out;
  st = comgr.compile(src, "gfx9999", out);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("gfx9999"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find(comgr.version()), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("gfx90a"), std::string::npos) << "lists what it knows: " << st.message;
}

TEST_F(ComgrCompile, WaveSizeTheArchCannotRunIsRefused) {
  if (!open(hip_header_source::automatic).ok) GTEST_SKIP();
  device_source src;
  ASSERT_TRUE(prepare_device_source(test::all_kernel_sources().back(), "hip", 32, src).ok);
  compiled_code out;
  runtime_status st = comgr.compile(src, "gfx90a", out);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("wave64"), std::string::npos) << st.message;
  // wave64 on RDNA is legal: -mwavefrontsize64 plus the wave64 device library.
  ASSERT_TRUE(prepare_device_source(test::all_kernel_sources().back(), "hip", 64, src).ok);
  st = comgr.compile(src, "gfx1030", out);
  EXPECT_TRUE(st.ok) << st.message;
}

TEST_F(ComgrCompile, CompileErrorCarriesLogOptionsAndArch) {
  if (!open(hip_header_source::automatic).ok) GTEST_SKIP();
  compile_request bad{"broken.cu", "#include \"gs_device.h\"\nGS_KERNEL void broken(float* p) { p[0] = undefined_name; }\n", {}};
  device_source src;
  ASSERT_TRUE(prepare_device_source(bad, "hip", 32, src).ok);
  compiled_code out;
  runtime_status st = comgr.compile(src, "gfx1030", out);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("undefined_name"), std::string::npos) << st.message;
  EXPECT_NE(st.message.find("gfx1030"), std::string::npos);
  EXPECT_NE(st.message.find("-DGS_HIP=1"), std::string::npos);
  EXPECT_NE(st.message.find(comgr.version()), std::string::npos);
}

TEST(ComgrEnums, NumberingPerMajor) {
  vendor::comgr_enums two = vendor::comgr_enums_for(2), three = vendor::comgr_enums_for(3);
  EXPECT_EQ(two.language_hip, 4);
  EXPECT_EQ(three.language_hip, 3);
  EXPECT_EQ(two.compile_source_with_device_libs_to_bc, 0xF);
  EXPECT_EQ(three.compile_source_with_device_libs_to_bc, 0xC);
  EXPECT_EQ(two.add_device_libraries, 0x3);
  EXPECT_EQ(three.add_device_libraries, -1);
  EXPECT_EQ(two.link_bc_to_bc, 0x4);
  EXPECT_EQ(three.link_bc_to_bc, 0x3);
  EXPECT_EQ(two.codegen_bc_to_relocatable, 0x6);
  EXPECT_EQ(three.codegen_bc_to_relocatable, 0x4);
  EXPECT_EQ(two.link_relocatable_to_executable, 0x9);
  EXPECT_EQ(three.link_relocatable_to_executable, 0x7);
  EXPECT_EQ(vendor::comgr_enums_for(1).major, 0);
  EXPECT_EQ(vendor::comgr_enums_for(4).major, 0);
}

TEST(ComgrEnums, GfxNames) {
  EXPECT_EQ(gfx_major("gfx90a"), 9);
  EXPECT_EQ(gfx_major("gfx1201"), 12);
  EXPECT_EQ(gfx_major("gfx1030"), 10);
  EXPECT_EQ(gfx_major("gfx942:sramecc+:xnack-"), 9);
  EXPECT_EQ(gfx_major("sm_90"), 0);
  EXPECT_EQ(gfx_major("gfx"), 0);
  EXPECT_EQ(gfx_base("gfx90a:xnack+"), "gfx90a");
}

// hiprtc as ROCm 5.2 ships it: inside libamdhip64.so.5. Loading HIP may start runtime threads,
// so it runs in a child; the child reports "ok <mach>" per arch or the failure.
TEST(DebianHiprtc, CompilesForGfx90aAndGfx1030) {
  test::child_result r = test::run_in_child([] {
    void* h = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!h) return std::string("absent");
    hip_compiler c;
    hip_compiler_options o;
    o.kind = hip_compiler_kind::hiprtc;
    runtime_status st = c.open(o, h, "libamdhip64.so.5", "5.2");
    if (!st.ok) return "open failed: " + st.message;
    std::string out = c.version() + "\n";
    for (const arch_case& a : kCases) {
      device_source src;
      if (!prepare_device_source(test::all_kernel_sources().back(), "hip", a.wave, src).ok) return std::string("prep");
      compiled_code code;
      st = c.compile(src, a.arch, code);
      if (!st.ok) return out + a.arch + " failed: " + st.message;
      out += std::string(a.arch) + " " +
             std::to_string(inspect_code_object(std::string_view(code.image.data(), code.image.size())).flags & 0xff) + "\n";
    }
    return out;
  });
  ASSERT_TRUE(r.exited) << "signal " << r.signal << (r.timed_out ? " (timed out)" : "") << ": " << r.output;
  if (r.output == "absent") GTEST_SKIP() << "libamdhip64.so.5 not installed";
  EXPECT_NE(r.output.find("hiprtc"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("gfx90a 63\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("gfx1030 54\n"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace gs
