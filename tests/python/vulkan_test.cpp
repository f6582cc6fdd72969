// vulkan.devices: the skip without a loader; the enumeration against a test double of the
// loader that checks the structs we pass and writes properties at the Vulkan headers' offsets
// (RADV through Properties2, an NVIDIA GPU through 1.0 properties); the verdict against the
// detected GPUs; and, where this machine has a real libvulkan (Debian's loader with Mesa's
// llvmpipe here), one real enumeration.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>

#include "probes/vulkan_probe.h"
#include "support/sample_facts.h"

namespace gs {
namespace {

int created = 0, destroyed = 0;
uint32_t asked_api = 0;

int32_t fake_create(const void* info, const void*, void** inst) {
  uint32_t stype;
  std::memcpy(&stype, info, 4);
  if (stype != 1) return -3;  // VK_ERROR_INITIALIZATION_FAILED: not a VkInstanceCreateInfo
  const unsigned char* app;
  std::memcpy(&app, static_cast<const unsigned char*>(info) + 24, sizeof app);
  std::memcpy(&asked_api, app + 44, 4);
  ++created;
  *inst = &created;
  return 0;
}
void fake_destroy(void*, const void*) { ++destroyed; }
int fake_devices[2];
int32_t fake_enumerate(void*, uint32_t* n, void** devs) {
  if (!devs) {
    *n = 2;
    return 0;
  }
  for (uint32_t i = 0; i < *n && i < 2; ++i) devs[i] = &fake_devices[i];
  return 0;
}
void write_props(void* dev, unsigned char* p) {
  bool amd = dev == &fake_devices[0];
  uint32_t api = (1u << 22) | (3u << 12) | 289, vendor = amd ? 0x1002 : 0x10de, id = amd ? 0x7551 : 0x2335,
           type = 2;
  std::memcpy(p, &api, 4);
  std::memcpy(p + 8, &vendor, 4);
  std::memcpy(p + 12, &id, 4);
  std::memcpy(p + 16, &type, 4);
  std::strcpy(reinterpret_cast<char*>(p + 20), amd ? "AMD Radeon AI PRO R9700 (RADV GFX1201)" : "NVIDIA H200");
}
void fake_props(void* dev, void* out) { write_props(dev, static_cast<unsigned char*>(out)); }
void fake_props2(void* dev, void* out) {
  unsigned char* p = static_cast<unsigned char*>(out);
  uint32_t st;
  std::memcpy(&st, p, 4);
  if (st != 1000059001) return;
  write_props(dev, p + 16);
  unsigned char* drv;
  std::memcpy(&drv, p + 8, sizeof drv);
  std::memcpy(&st, drv, 4);
  if (!drv || st != 1000196000) return;
  bool amd = dev == &fake_devices[0];
  uint32_t driver_id = amd ? 3 : 4;
  std::memcpy(drv + 16, &driver_id, 4);
  std::strcpy(reinterpret_cast<char*>(drv + 20), amd ? "radv" : "NVIDIA");
  std::strcpy(reinterpret_cast<char*>(drv + 276), amd ? "Mesa 25.0.1" : "580.159.04");
}
void* fake_proc(void*, const char* name) {
  return std::strcmp(name, "vkGetPhysicalDeviceProperties2") == 0 ? reinterpret_cast<void*>(&fake_props2) : nullptr;
}
int32_t fake_version(uint32_t* v) {
  *v = (1u << 22) | (3u << 12) | 275;
  return 0;
}

vulkan_api fake_api(bool with_11) {
  vulkan_api a;
  a.create_instance = reinterpret_cast<void*>(&fake_create);
  a.destroy_instance = reinterpret_cast<void*>(&fake_destroy);
  a.enumerate_devices = reinterpret_cast<void*>(&fake_enumerate);
  a.get_properties = reinterpret_cast<void*>(&fake_props);
  if (with_11) {
    a.get_instance_proc_addr = reinterpret_cast<void*>(&fake_proc);
    a.enumerate_instance_version = reinterpret_cast<void*>(&fake_version);
  }
  a.loader_path = "fake";
  return a;
}

TEST(Vulkan, NoLoaderIsASkipWithTheReason) {
  vulkan_api api;
  std::string why;
  EXPECT_FALSE(load_vulkan_api("/nonexistent/libvulkan.so.1", api, &why));
  EXPECT_NE(why.find("no Vulkan loader"), std::string::npos) << why;
  probe_context ctx;
  ctx.options["vulkan.loader"] = "/nonexistent/libvulkan.so.1";
  probe_result r = vulkan_devices_probe.run(ctx);
  EXPECT_EQ(r.outcome, status::skip);
  EXPECT_NE(r.detail.find("no Vulkan loader"), std::string::npos) << r.detail;
}

TEST(Vulkan, ALibraryThatIsNotALoaderIsRefused) {
  vulkan_api api;
  std::string why;
  EXPECT_FALSE(load_vulkan_api("libz.so.1", api, &why));
  EXPECT_NE(why.find("lacks the Vulkan 1.0 entry points"), std::string::npos) << why;
}

TEST(Vulkan, ReadsDriverAndPropertiesThroughProperties2) {
  created = destroyed = 0;
  std::vector<vulkan_device> devs;
  std::string ver, why;
  ASSERT_TRUE(enumerate_vulkan(fake_api(true), devs, &ver, &why)) << why;
  EXPECT_EQ(created, 1);
  EXPECT_EQ(destroyed, 1);
  EXPECT_EQ(asked_api, (1u << 22) | (1u << 12)) << "a 1.3 loader is asked for 1.1";
  EXPECT_EQ(ver, "1.3.275");
  ASSERT_EQ(devs.size(), 2u);
  EXPECT_EQ(devs[0].name, "AMD Radeon AI PRO R9700 (RADV GFX1201)");
  EXPECT_EQ(devs[0].driver, "RADV");
  EXPECT_EQ(devs[0].driver_info, "Mesa 25.0.1");
  EXPECT_EQ(devs[0].api_version, "1.3.289");
  EXPECT_EQ(devs[0].type, "discrete");
  EXPECT_EQ(devs[1].driver, "NVIDIA");
  EXPECT_EQ(devs[1].vendor_id, 0x10deu);
}

TEST(Vulkan, A10LoaderGetsPlainPropertiesAndNoDriverName) {
  std::vector<vulkan_device> devs;
  std::string ver, why;
  ASSERT_TRUE(enumerate_vulkan(fake_api(false), devs, &ver, &why)) << why;
  EXPECT_EQ(asked_api, 1u << 22);
  EXPECT_EQ(ver, "1.0.0");
  ASSERT_EQ(devs.size(), 2u);
  EXPECT_EQ(devs[1].name, "NVIDIA H200");
  EXPECT_TRUE(devs[1].driver.empty());
}

TEST(Vulkan, VerdictAgainstTheDetectedGpus) {
  std::vector<vulkan_device> devs;
  std::string ver, why;
  ASSERT_TRUE(enumerate_vulkan(fake_api(true), devs, &ver, &why));
  machine_facts both = test::r9700();
  both.gpus.push_back(test::h200().gpus.at(0));
  EXPECT_EQ(vulkan_result(devs, ver, &both).outcome, status::pass);
  std::vector<vulkan_device> only_amd = {devs[0]};
  probe_result w = vulkan_result(only_amd, ver, &both);
  EXPECT_EQ(w.outcome, status::warn);
  EXPECT_NE(w.detail.find("Vulkan does not list NVIDIA H200"), std::string::npos) << w.detail;
  vulkan_device cpu;
  cpu.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
  cpu.type = "cpu";
  cpu.driver = "llvmpipe";
  machine_facts none;
  EXPECT_EQ(vulkan_result({cpu}, ver, &none).outcome, status::skip);
  EXPECT_EQ(vulkan_result({cpu}, ver, &both).outcome, status::warn);
  EXPECT_EQ(vulkan_result({}, ver, &none).outcome, status::skip);
}

TEST(Vulkan, DriverNamesAndVersionText) {
  EXPECT_EQ(vulkan_driver_name(3), "RADV");
  EXPECT_EQ(vulkan_driver_name(2), "AMDVLK");
  EXPECT_EQ(vulkan_driver_name(13), "llvmpipe");
  EXPECT_EQ(vulkan_driver_name(99), "driver 99");
  EXPECT_EQ(vulkan_version_text((1u << 22) | (4u << 12) | 309), "1.4.309");
}

TEST(Vulkan, TheRealLoaderWhenThisMachineHasOne) {
  void* h = ::dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) GTEST_SKIP() << "no libvulkan.so.1 here (apt-get install libvulkan1 mesa-vulkan-drivers to run this)";
  vulkan_api api;
  std::string why, ver;
  ASSERT_TRUE(load_vulkan_api("", api, &why)) << why;
  std::vector<vulkan_device> devs;
  if (!enumerate_vulkan(api, devs, &ver, &why)) {
    EXPECT_NE(why.find("vkCreateInstance"), std::string::npos) << why;  // a loader with no ICD at all
    return;
  }
  for (const vulkan_device& d : devs) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_NE(d.api_version, "0.0.0") << d.name;
    if (d.driver == "llvmpipe") {
      EXPECT_EQ(d.type, "cpu");
    }
  }
}

}  // namespace
}  // namespace gs
