// The HSA runtime (libhsa-runtime64.so.1) as a dlopen table: the most stable source of a GPU's
// gfx name (HSA_AGENT_INFO_NAME, plain C ABI with fixed enum values; detection.md 2.4, 3.3).
// HIP loads its own HSA, so the table is first looked up through the HIP library's handle
// (dlsym searches its dependencies): that is the HSA the HIP runtime will really use.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "vendor/dl_library.h"

namespace gs::vendor {

using hsa_status_t = int;
struct hsa_agent_t {
  uint64_t handle;
};
constexpr hsa_status_t HSA_STATUS_SUCCESS = 0;
constexpr hsa_status_t HSA_STATUS_INFO_BREAK = 0x1;
constexpr int HSA_AGENT_INFO_NAME = 0;             ///< char[64]
constexpr int HSA_AGENT_INFO_WAVEFRONT_SIZE = 6;   ///< uint32
constexpr int HSA_AGENT_INFO_DEVICE = 17;          ///< hsa_device_type_t
constexpr int HSA_DEVICE_TYPE_GPU = 1;
constexpr int HSA_AMD_AGENT_INFO_BDFID = 0xA006;   ///< uint32: bus << 8 | device << 3 | function

/// One GPU agent as HSA reports it.
struct hsa_gpu {
  std::string name;     ///< "gfx1201" (reflects HSA_OVERRIDE_GFX_VERSION)
  uint32_t wave = 0;
  uint32_t bdfid = 0;   ///< 0 when the library does not answer
};

struct hsa_api {
  dl_library lib;
  hsa_status_t (*hsa_init)() = nullptr;
  hsa_status_t (*hsa_shut_down)() = nullptr;
  hsa_status_t (*hsa_iterate_agents)(hsa_status_t (*)(hsa_agent_t, void*), void*) = nullptr;
  hsa_status_t (*hsa_agent_get_info)(hsa_agent_t, int, void*) = nullptr;
  hsa_status_t (*hsa_status_string)(hsa_status_t, const char**) = nullptr;  ///< OPTIONAL

  /// Resolve through `hip_handle` when it exports hsa_init, else load libhsa-runtime64.so.1.
  runtime_status load(void* hip_handle, const std::string& hip_path);
  /// hsa_init, list GPU agents in enumeration order (HIP's device order), hsa_shut_down.
  runtime_status gpus(std::vector<hsa_gpu>& out);
  std::string describe(hsa_status_t code) const;
};

}  // namespace gs::vendor
