// The CUDA driver API (libcuda.so.1) as a dlopen table. Field names are the exported symbols,
// so the _v2 that cuda.h silently maps to is visible at every call site (detection.md 7.3:
// cuda.h maps cuMemAlloc to cuMemAlloc_v2 and, in CUDA 13, cuCtxCreate to cuCtxCreate_v4 with a
// different signature; we use the primary context and never cuCtxCreate).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "vendor/dl_library.h"

namespace gs::vendor {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // 64-bit on every 64-bit target since CUDA 3.2
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUstream = void*;
using CUevent = void*;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;  ///< cuModuleGetFunction: no such kernel name
constexpr int CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13;          ///< kHz
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr unsigned CU_EVENT_DEFAULT = 0;
/// cuFuncSetAttribute: dynamic shared memory a launch may ask for (above 48 KiB needs this opt-in).
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
/// cuTensorMapEncodeTiled's enums (cuda.h, CUDA 12.0+: CUtensorMapDataType, ...Interleave,
/// ...Swizzle, ...L2promotion, ...FloatOOBfill).
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0;
constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6;
constexpr int CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9;
constexpr int CU_TENSOR_MAP_INTERLEAVE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_NONE = 0;  ///< 32B = 1, 64B = 2, 128B = 3
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3;
constexpr int CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0;  ///< out-of-bounds elements read as zeros

struct cuda_api {
  dl_library lib;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem_v2)(size_t*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule*, const void*) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**) = nullptr;
  CUresult (*cuMemAlloc_v2)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree_v2)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH_v2)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventDestroy_v2)(CUevent) = nullptr;
  // CUDA 13's cuda.h maps cuEventElapsedTime to _v2 (same signature); drivers before 12.8 only
  // export the plain name. One of the two is required; callers prefer _v2.
  CUresult (*cuEventElapsedTime_v2)(float*, CUevent, CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  /// CUDA 12.0+ drivers only (optional): the TMA descriptor of a tensor (CUtensorMap*, data type,
  /// rank, address, dims, strides of dims 1.., box, element strides, interleave, swizzle, L2
  /// promotion, out-of-bounds fill).
  CUresult (*cuTensorMapEncodeTiled)(void*, int, unsigned, void*, const uint64_t*, const uint64_t*, const unsigned*,
                                     const unsigned*, int, int, int, int) = nullptr;

  /// Load libcuda.so.1 (or $GPUSTACK_CUDA_LIBRARY) and resolve the table. cuInit is not called.
  runtime_status load();
  /// "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected" for a code.
  std::string describe(CUresult code) const;
  /// A failed call as a runtime_status (the GS_VENDOR_CHECK status builder).
  runtime_status status(int code, const char* statement, const std::string& where) const;
};

}  // namespace gs::vendor
