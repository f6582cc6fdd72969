// The HIP runtime (libamdhip64.so.{7,6,5}) as a dlopen table, limited to the entry points whose
// C ABI has not changed from ROCm 5.0 to 7.x (detection.md 3.2). The device-properties struct
// DID change (R0000 -> R0600 in ROCm 6.0, gcnArchName moving from byte 396 to 1160), so it is
// only read by offset through the versioned symbols, into an oversized zeroed buffer.
#pragma once
#include <cstddef>
#include <string>

#include "vendor/dl_library.h"

namespace gs::vendor {

using hipError_t = int;
using hipModule_t = void*;
using hipFunction_t = void*;
using hipStream_t = void*;
using hipEvent_t = void*;
using hipDeviceptr_t = void*;

constexpr hipError_t hipSuccess = 0;
constexpr hipError_t hipErrorNoDevice = 100;
constexpr hipError_t hipErrorInvalidDeviceFunction = 98;
constexpr hipError_t hipErrorNoBinaryForGpu = 209;
constexpr hipError_t hipErrorNotFound = 500;

/// hipDeviceAttribute_t values, unchanged from ROCm 5.0.2 to 7.x (detection.md 3.2).
enum hip_attribute : int {
  hipDeviceAttributeClockRate = 5,
  hipDeviceAttributeComputeCapabilityMajor = 23,  ///< gfx major on AMD (12 for gfx1201)
  hipDeviceAttributeComputeCapabilityMinor = 61,
  hipDeviceAttributeMultiprocessorCount = 63,     ///< CUs
  hipDeviceAttributePciBusId = 67,
  hipDeviceAttributePciDeviceId = 68,
  hipDeviceAttributePciDomainID = 69,
  hipDeviceAttributeTotalGlobalMem = 84,          ///< int: saturates above 2 GiB, prefer hipDeviceTotalMem
  hipDeviceAttributeWarpSize = 87,
};

/// Byte offsets of gcnArchName (char[256]) in the two hipDeviceProp_t layouts (x86-64).
constexpr size_t kPropsR0600ArchOffset = 1160;  ///< sizeof 1472, HIP >= 6.0
constexpr size_t kPropsR0000ArchOffset = 396;   ///< sizeof 792, HIP 5.x and the unversioned symbol
/// Buffer handed to hipGetDeviceProperties*: larger than either struct, so a library with a
/// layout newer than we know writes into zeroed slack instead of our stack.
constexpr size_t kPropsBufferBytes = 8192;

struct hip_api {
  dl_library lib;
  hipError_t (*hipGetDeviceCount)(int*) = nullptr;
  const char* (*hipGetErrorString)(hipError_t) = nullptr;
  hipError_t (*hipRuntimeGetVersion)(int*) = nullptr;
  hipError_t (*hipSetDevice)(int) = nullptr;
  hipError_t (*hipDeviceGetName)(char*, int, int) = nullptr;
  hipError_t (*hipDeviceGetAttribute)(int*, int, int) = nullptr;
  hipError_t (*hipModuleLoadData)(hipModule_t*, const void*) = nullptr;
  hipError_t (*hipModuleUnload)(hipModule_t) = nullptr;
  hipError_t (*hipModuleGetFunction)(hipFunction_t*, hipModule_t, const char*) = nullptr;
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void**, void**) = nullptr;
  hipError_t (*hipMalloc)(void**, size_t) = nullptr;
  hipError_t (*hipFree)(void*) = nullptr;
  hipError_t (*hipMemcpyHtoD)(hipDeviceptr_t, void*, size_t) = nullptr;
  hipError_t (*hipMemcpyDtoH)(void*, hipDeviceptr_t, size_t) = nullptr;
  hipError_t (*hipDeviceSynchronize)() = nullptr;
  hipError_t (*hipEventCreate)(hipEvent_t*) = nullptr;
  hipError_t (*hipEventRecord)(hipEvent_t, hipStream_t) = nullptr;
  hipError_t (*hipEventSynchronize)(hipEvent_t) = nullptr;
  hipError_t (*hipEventElapsedTime)(float*, hipEvent_t, hipEvent_t) = nullptr;
  hipError_t (*hipEventDestroy)(hipEvent_t) = nullptr;
  // OPTIONAL
  const char* (*hipGetErrorName)(hipError_t) = nullptr;
  hipError_t (*hipDriverGetVersion)(int*) = nullptr;   ///< returns HIP_VERSION, not a KMD version
  hipError_t (*hipDeviceTotalMem)(size_t*, int) = nullptr;
  hipError_t (*hipGetDevicePropertiesR0600)(void*, int) = nullptr;  ///< HIP >= 6.0
  hipError_t (*hipGetDevicePropertiesR0000)(void*, int) = nullptr;  ///< HIP >= 4.2 (hip_4.2 node)
  hipError_t (*hipGetDeviceProperties)(void*, int) = nullptr;       ///< R0000 layout, always

  /// Load `path` when given, else $GPUSTACK_HIP_LIBRARY, else libamdhip64.so.{7,6,5} via the
  /// loader, $ROCM_PATH/lib, /opt/rocm/lib. Nothing is called.
  runtime_status load(const std::string& path = {});
  std::string describe(hipError_t code) const;
  runtime_status status(int code, const char* statement, const std::string& where) const;
  /// gcnArchName through R0600 (offset 1160), else R0000 / unversioned (offset 396); "" when no
  /// symbol answers. `which` says which symbol did.
  std::string props_arch_name(int ordinal, std::string* which = nullptr) const;
};

/// HIP_VERSION decoded: 60443484 -> "6.4.43484" (major*10^7 + minor*10^5 + patch).
std::string hip_version_string(int v);

/// Directories where ROCm libraries live besides the loader path.
std::vector<std::string> rocm_lib_dirs();

}  // namespace gs::vendor
