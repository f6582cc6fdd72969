// vulkan.devices (vulkan_probe.h). The structs we pass are declared by hand with the offsets of
// the Vulkan 1.1 headers (x86-64 and aarch64 alike): VkPhysicalDeviceProperties is 824 bytes
// and the driver writes all of it, so it is read out of a zeroed 4 KiB buffer rather than a
// struct we could get wrong. Runs isolated: a broken ICD crashes the process that loads it.
#include "probes/vulkan_probe.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstring>
#include <set>

namespace gs {
namespace {

using VkResult = int32_t;
using VkInstance = void*;
using VkPhysicalDevice = void*;

// sType values from vulkan_core.h
constexpr uint32_t kAppInfo = 0, kInstanceInfo = 1;
constexpr uint32_t kProperties2 = 1000059001, kDriverProperties = 1000196000;

struct app_info {
  uint32_t sType = kAppInfo;
  const void* pNext = nullptr;
  const char* pApplicationName = "gpustack";
  uint32_t applicationVersion = 1;
  const char* pEngineName = "gpustack";
  uint32_t engineVersion = 1;
  uint32_t apiVersion = 0;
};
struct instance_info {
  uint32_t sType = kInstanceInfo;
  const void* pNext = nullptr;
  uint32_t flags = 0;
  const app_info* pApplicationInfo = nullptr;
  uint32_t enabledLayerCount = 0;
  const char* const* ppEnabledLayerNames = nullptr;
  uint32_t enabledExtensionCount = 0;
  const char* const* ppEnabledExtensionNames = nullptr;
};
static_assert(sizeof(instance_info) == 64, "VkInstanceCreateInfo is 64 bytes on LP64");

// Offsets inside VkPhysicalDeviceProperties: apiVersion 0, driverVersion 4, vendorID 8,
// deviceID 12, deviceType 16, deviceName[256] 20. Inside VkPhysicalDeviceDriverProperties:
// sType 0, pNext 8, driverID 16, driverName[256] 20, driverInfo[256] 276.
constexpr size_t kBuf = 4096;
constexpr size_t kProps2Body = 16;  // VkPhysicalDeviceProperties2: sType, pNext, then properties

using create_instance_fn = VkResult (*)(const instance_info*, const void*, VkInstance*);
using destroy_instance_fn = void (*)(VkInstance, const void*);
using enumerate_devices_fn = VkResult (*)(VkInstance, uint32_t*, VkPhysicalDevice*);
using get_properties_fn = void (*)(VkPhysicalDevice, void*);
using get_proc_fn = void* (*)(VkInstance, const char*);
using instance_version_fn = VkResult (*)(uint32_t*);

uint32_t u32_at(const unsigned char* p, size_t off) {
  uint32_t v;
  std::memcpy(&v, p + off, 4);
  return v;
}
std::string str_at(const unsigned char* p, size_t off, size_t cap) {
  const char* s = reinterpret_cast<const char*>(p + off);
  return std::string(s, strnlen(s, cap));
}

const char* device_type(uint32_t t) {
  switch (t) {
    case 1: return "integrated";
    case 2: return "discrete";
    case 3: return "virtual";
    case 4: return "cpu";
    default: return "other";
  }
}

constexpr uint32_t vk_api_version(uint32_t major, uint32_t minor) { return (major << 22) | (minor << 12); }

}  // namespace

std::string vulkan_version_text(uint32_t v) {
  return fmt::format("{}.{}.{}", (v >> 22) & 0x7f, (v >> 12) & 0x3ff, v & 0xfff);
}

std::string vulkan_driver_name(uint32_t id) {
  switch (id) {
    case 1: return "AMD proprietary";
    case 2: return "AMDVLK";
    case 3: return "RADV";
    case 4: return "NVIDIA";
    case 5: return "Intel proprietary";
    case 6: return "ANV";
    case 10: return "SwiftShader";
    case 13: return "llvmpipe";
    case 22: return "Venus";
    case 24: return "NVK";
    default: return "driver " + std::to_string(id);
  }
}

bool load_vulkan_api(const std::string& path, vulkan_api& api, std::string* why) {
  std::string lib = path.empty() ? "libvulkan.so.1" : path;
  void* h = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    *why = "no Vulkan loader: " + std::string(e ? e : lib + " not found");
    return false;
  }
  api.loader_path = lib;
  api.create_instance = ::dlsym(h, "vkCreateInstance");
  api.destroy_instance = ::dlsym(h, "vkDestroyInstance");
  api.enumerate_devices = ::dlsym(h, "vkEnumeratePhysicalDevices");
  api.get_properties = ::dlsym(h, "vkGetPhysicalDeviceProperties");
  api.get_instance_proc_addr = ::dlsym(h, "vkGetInstanceProcAddr");
  api.enumerate_instance_version = ::dlsym(h, "vkEnumerateInstanceVersion");
  if (!api.create_instance || !api.destroy_instance || !api.enumerate_devices || !api.get_properties) {
    *why = lib + " lacks the Vulkan 1.0 entry points (not a Vulkan loader?)";
    return false;
  }
  return true;  // never dlclose: an ICD may leave threads or atexit handlers behind
}

bool enumerate_vulkan(const vulkan_api& api, std::vector<vulkan_device>& out, std::string* instance_version,
                      std::string* why) {
  uint32_t loader_version = vk_api_version(1, 0);
  if (api.enumerate_instance_version) {
    uint32_t v = 0;
    if (reinterpret_cast<instance_version_fn>(api.enumerate_instance_version)(&v) == 0) loader_version = v;
  }
  *instance_version = vulkan_version_text(loader_version);
  app_info app;
  // Ask for 1.1 when the loader has it: Properties2 (driver id and name) is core there.
  app.apiVersion = loader_version >= vk_api_version(1, 1) ? vk_api_version(1, 1) : vk_api_version(1, 0);
  instance_info info;
  info.pApplicationInfo = &app;
  VkInstance inst = nullptr;
  VkResult rc = reinterpret_cast<create_instance_fn>(api.create_instance)(&info, nullptr, &inst);
  if (rc != 0 || !inst) {
    // -9 VK_ERROR_INCOMPATIBLE_DRIVER: the loader found no ICD for any device.
    *why = rc == -9 ? "vkCreateInstance: no compatible Vulkan driver (VK_ERROR_INCOMPATIBLE_DRIVER)"
                    : fmt::format("vkCreateInstance failed with VkResult {}", rc);
    return false;
  }
  uint32_t n = 0;
  auto enumerate = reinterpret_cast<enumerate_devices_fn>(api.enumerate_devices);
  rc = enumerate(inst, &n, nullptr);
  std::vector<VkPhysicalDevice> devs(std::min<uint32_t>(n, 64));
  n = static_cast<uint32_t>(devs.size());
  if (rc == 0 && n > 0) rc = enumerate(inst, &n, devs.data());
  get_properties_fn props2 = nullptr;
  if (app.apiVersion >= vk_api_version(1, 1) && api.get_instance_proc_addr)
    props2 = reinterpret_cast<get_properties_fn>(
        reinterpret_cast<get_proc_fn>(api.get_instance_proc_addr)(inst, "vkGetPhysicalDeviceProperties2"));
  for (uint32_t i = 0; rc >= 0 && i < n; ++i) {
    alignas(16) unsigned char p[kBuf] = {};
    alignas(16) unsigned char drv[kBuf] = {};
    vulkan_device d;
    const unsigned char* base = p;
    if (props2) {
      uint32_t st = kProperties2, dst = kDriverProperties;
      std::memcpy(p, &st, 4);
      void* next = drv;
      std::memcpy(p + 8, &next, sizeof next);
      std::memcpy(drv, &dst, 4);
      props2(devs[i], p);
      base = p + kProps2Body;
      d.driver_id = u32_at(drv, 16);
      d.driver_name = str_at(drv, 20, 256);
      d.driver_info = str_at(drv, 276, 256);
      d.driver = d.driver_id ? vulkan_driver_name(d.driver_id) : "";
    } else {
      reinterpret_cast<get_properties_fn>(api.get_properties)(devs[i], p);
    }
    d.api_version = vulkan_version_text(u32_at(base, 0));
    d.vendor_id = u32_at(base, 8);
    d.device_id = u32_at(base, 12);
    d.type = device_type(u32_at(base, 16));
    d.name = str_at(base, 20, 256);
    out.push_back(std::move(d));
  }
  reinterpret_cast<destroy_instance_fn>(api.destroy_instance)(inst, nullptr);
  if (rc < 0) {
    *why = fmt::format("vkEnumeratePhysicalDevices failed with VkResult {}", rc);
    return false;
  }
  return true;
}

probe_result vulkan_result(const std::vector<vulkan_device>& devs, const std::string& instance_version,
                           const machine_facts* facts) {
  probe_result r;
  r.id = "vulkan.devices";
  r.phase = "verify";
  r.data["instance_version"] = instance_version;
  nlohmann::json list = nlohmann::json::array();
  std::set<uint32_t> gpu_vendors_seen;
  std::string names;
  for (const vulkan_device& d : devs) {
    list.push_back({{"name", d.name}, {"type", d.type}, {"vendor_id", fmt::format("{:04x}", d.vendor_id)},
                    {"device_id", fmt::format("{:04x}", d.device_id)}, {"api_version", d.api_version},
                    {"driver", d.driver}, {"driver_name", d.driver_name}, {"driver_info", d.driver_info}});
    if (d.type != "cpu") gpu_vendors_seen.insert(d.vendor_id);
    names += (names.empty() ? "" : ", ") + d.name + (d.driver.empty() ? "" : " (" + d.driver + ")");
  }
  r.data["devices"] = list;
  std::vector<std::string> unseen;
  if (facts)
    for (const gpu_info& g : facts->gpus) {
      uint32_t want = g.vendor == "amd" ? 0x1002 : g.vendor == "nvidia" ? 0x10de : 0;
      if (want && !gpu_vendors_seen.count(want)) unseen.push_back(g.name.empty() ? g.vendor : g.name);
    }
  bool any_gpu = facts && !facts->gpus.empty();
  if (devs.empty() || (gpu_vendors_seen.empty() && !any_gpu)) {
    r.outcome = status::skip;
    r.detail = devs.empty() ? "the Vulkan loader works but lists no device"
                            : "Vulkan lists only CPU devices (" + names + ") and gpustack found no GPU";
    return r;
  }
  if (!unseen.empty()) {
    r.outcome = status::warn;
    std::string u;
    for (const std::string& s : unseen) u += (u.empty() ? "" : ", ") + s;
    r.detail = "Vulkan does not list " + u + " (it lists: " + names +
               "); its ICD is missing or cannot open the device";
    return r;
  }
  r.outcome = status::pass;
  r.detail = "Vulkan " + instance_version + " loader lists " + names;
  return r;
}

namespace {

probe_result run_vulkan(const probe_context& ctx) {
  ctx.phase("load");
  vulkan_api api;
  std::string why;
  auto it = ctx.options.find("vulkan.loader");
  if (!load_vulkan_api(it == ctx.options.end() ? "" : it->second, api, &why))
    return make_result("vulkan.devices", status::skip, why);
  ctx.phase("launch");
  std::vector<vulkan_device> devs;
  std::string inst_version;
  if (!enumerate_vulkan(api, devs, &inst_version, &why)) {
    probe_result r;
    r.id = "vulkan.devices";
    bool any_gpu = ctx.facts && !ctx.facts->gpus.empty();
    r.outcome = any_gpu ? status::warn : status::skip;
    r.detail = why;
    r.data["loader"] = api.loader_path;
    return r;
  }
  ctx.phase("verify");
  probe_result r = vulkan_result(devs, inst_version, ctx.facts);
  r.data["loader"] = api.loader_path;
  return r;
}

}  // namespace

const probe_spec vulkan_devices_probe = {
    "vulkan.devices", "the Vulkan loader and its physical devices: name, driver (RADV, NVIDIA ...), API version",
    {}, true, true, run_vulkan};

}  // namespace gs
