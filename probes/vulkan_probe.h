// Probe vulkan.devices (issue 6, step 12): the Vulkan loader (libvulkan.so.1, dlopen'ed) and the
// physical devices it enumerates, with the driver behind each (RADV, AMDVLK, NVIDIA, llvmpipe)
// and its API version. llama.cpp's Vulkan backend is the common user; a card that ROCm cannot
// run often still works there, so "which driver answers" is worth a line in the report.
// No Vulkan headers: the few structs are declared by hand, by offset (vulkan_probe.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "probes/probe.h"

namespace gs {

extern const probe_spec vulkan_devices_probe;

/// The loader entry points the probe calls; a test replaces them.
struct vulkan_api {
  using fn = void (*)();
  void* create_instance = nullptr;         ///< vkCreateInstance
  void* destroy_instance = nullptr;        ///< vkDestroyInstance
  void* enumerate_devices = nullptr;       ///< vkEnumeratePhysicalDevices
  void* get_properties = nullptr;          ///< vkGetPhysicalDeviceProperties
  void* get_instance_proc_addr = nullptr;  ///< vkGetInstanceProcAddr (for Properties2, Vulkan 1.1)
  void* enumerate_instance_version = nullptr;  ///< vkEnumerateInstanceVersion (1.1 loaders), may be null
  std::string loader_path;                 ///< what was dlopen'ed
};

struct vulkan_device {
  std::string name;
  uint32_t vendor_id = 0, device_id = 0;
  std::string type;        ///< "discrete", "integrated", "virtual", "cpu", "other"
  std::string api_version; ///< "1.3.289"
  uint32_t driver_id = 0;  ///< VkDriverId, 0 when Properties2 was not available
  std::string driver;      ///< "RADV", "NVIDIA", "llvmpipe", ... from driver_id
  std::string driver_name, driver_info;  ///< as the driver reports them ("radv", "Mesa 25.0.1")
};

/// dlopen the loader (`path` "" = libvulkan.so.1) and fill the table; false with why.
bool load_vulkan_api(const std::string& path, vulkan_api& api, std::string* why);
/// Create an instance, list the devices, destroy it. false with why when the instance fails.
bool enumerate_vulkan(const vulkan_api& api, std::vector<vulkan_device>& out, std::string* instance_version,
                      std::string* why);
/// The probe's verdict from what was enumerated, against the GPUs detection found.
probe_result vulkan_result(const std::vector<vulkan_device>& devs, const std::string& instance_version,
                           const machine_facts* facts);
/// "RADV" for VK_DRIVER_ID_MESA_RADV (3) etc.; "driver N" for unknown ids.
std::string vulkan_driver_name(uint32_t driver_id);
/// "1.3.289" from a packed VK_API_VERSION.
std::string vulkan_version_text(uint32_t v);

}  // namespace gs
