// libcuda.so.1 symbol table: REQUIRED are the calls the cuda backend makes; the elapsed-time pair
// is checked after resolution because either name will do.
#include "vendor/cuda_api.h"

namespace gs::vendor {

runtime_status cuda_api::load() {
  runtime_status st = lib.open(library_candidates("GPUSTACK_CUDA_LIBRARY", {"libcuda.so.1"}));
  if (!st.ok) {
    st.message = "libcuda.so.1 " + st.message + " (the NVIDIA driver's user-space library)";
    return st;
  }
  st = lib.resolve({
      dl_req("cuInit", cuInit),
      dl_req("cuDriverGetVersion", cuDriverGetVersion),
      dl_req("cuGetErrorName", cuGetErrorName),
      dl_req("cuGetErrorString", cuGetErrorString),
      dl_req("cuDeviceGetCount", cuDeviceGetCount),
      dl_req("cuDeviceGet", cuDeviceGet),
      dl_req("cuDeviceGetName", cuDeviceGetName),
      dl_req("cuDeviceGetAttribute", cuDeviceGetAttribute),
      dl_req("cuDeviceTotalMem_v2", cuDeviceTotalMem_v2),
      dl_req("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain),
      dl_req("cuDevicePrimaryCtxRelease_v2", cuDevicePrimaryCtxRelease_v2),
      dl_req("cuCtxSetCurrent", cuCtxSetCurrent),
      dl_req("cuCtxSynchronize", cuCtxSynchronize),
      dl_req("cuModuleLoadData", cuModuleLoadData),
      dl_req("cuModuleUnload", cuModuleUnload),
      dl_req("cuModuleGetFunction", cuModuleGetFunction),
      dl_req("cuLaunchKernel", cuLaunchKernel),
      dl_req("cuFuncSetAttribute", cuFuncSetAttribute),
      dl_req("cuMemAlloc_v2", cuMemAlloc_v2),
      dl_req("cuMemFree_v2", cuMemFree_v2),
      dl_req("cuMemcpyHtoD_v2", cuMemcpyHtoD_v2),
      dl_req("cuMemcpyDtoH_v2", cuMemcpyDtoH_v2),
      dl_req("cuEventCreate", cuEventCreate),
      dl_req("cuEventRecord", cuEventRecord),
      dl_req("cuEventSynchronize", cuEventSynchronize),
      dl_req("cuEventDestroy_v2", cuEventDestroy_v2),
      dl_opt("cuEventElapsedTime_v2", cuEventElapsedTime_v2),
      dl_opt("cuEventElapsedTime", cuEventElapsedTime),
      dl_opt("cuTensorMapEncodeTiled", cuTensorMapEncodeTiled),
  });
  if (!st.ok) return st;
  if (!cuEventElapsedTime_v2 && !cuEventElapsedTime)
    return runtime_status::failure("dlsym", 0, lib.path() + " lacks cuEventElapsedTime and cuEventElapsedTime_v2");
  return st;
}

std::string cuda_api::describe(CUresult code) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName) cuGetErrorName(code, &name);
  if (cuGetErrorString) cuGetErrorString(code, &text);
  std::string out = name ? name : "CUresult " + std::to_string(code);
  if (text) out += std::string(": ") + text;
  return out;
}

runtime_status cuda_api::status(int code, const char* statement, const std::string& where) const {
  return runtime_status::failure(call_name(statement), code, describe(code) + " [" + statement + " in " + where + "]");
}

}  // namespace gs::vendor
