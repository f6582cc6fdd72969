// libamdhip64 symbol table and the two-layout read of gcnArchName.
#include "vendor/hip_api.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace gs::vendor {

std::vector<std::string> rocm_lib_dirs() {
  std::vector<std::string> dirs;
  for (const char* env : {"ROCM_PATH", "HIP_PATH"}) {
    const char* v = std::getenv(env);
    if (v && *v) dirs.push_back(std::string(v) + "/lib");
  }
  dirs.push_back("/opt/rocm/lib");
  return dirs;
}

runtime_status hip_api::load(const std::string& path) {
  runtime_status st = lib.open(path.empty() ? library_candidates("GPUSTACK_HIP_LIBRARY",
                                                                 {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"},
                                                                 rocm_lib_dirs())
                                            : std::vector<std::string>{path});
  if (!st.ok) {
    st.message = "libamdhip64 " + st.message + " (the HIP runtime)";
    return st;
  }
  return lib.resolve({
      dl_req("hipGetDeviceCount", hipGetDeviceCount),
      dl_req("hipGetErrorString", hipGetErrorString),
      dl_req("hipRuntimeGetVersion", hipRuntimeGetVersion),
      dl_req("hipSetDevice", hipSetDevice),
      dl_req("hipDeviceGetName", hipDeviceGetName),
      dl_req("hipDeviceGetAttribute", hipDeviceGetAttribute),
      dl_req("hipModuleLoadData", hipModuleLoadData),
      dl_req("hipModuleUnload", hipModuleUnload),
      dl_req("hipModuleGetFunction", hipModuleGetFunction),
      dl_req("hipModuleLaunchKernel", hipModuleLaunchKernel),
      dl_req("hipMalloc", hipMalloc),
      dl_req("hipFree", hipFree),
      dl_req("hipMemcpyHtoD", hipMemcpyHtoD),
      dl_req("hipMemcpyDtoH", hipMemcpyDtoH),
      dl_req("hipDeviceSynchronize", hipDeviceSynchronize),
      dl_req("hipEventCreate", hipEventCreate),
      dl_req("hipEventRecord", hipEventRecord),
      dl_req("hipEventSynchronize", hipEventSynchronize),
      dl_req("hipEventElapsedTime", hipEventElapsedTime),
      dl_req("hipEventDestroy", hipEventDestroy),
      dl_opt("hipGetErrorName", hipGetErrorName),
      dl_opt("hipDriverGetVersion", hipDriverGetVersion),
      dl_opt("hipDeviceTotalMem", hipDeviceTotalMem),
      dl_opt("hipGetDevicePropertiesR0600", hipGetDevicePropertiesR0600),
      dl_opt("hipGetDevicePropertiesR0000", hipGetDevicePropertiesR0000),
      dl_opt("hipGetDeviceProperties", hipGetDeviceProperties),
  });
}

std::string hip_api::describe(hipError_t code) const {
  const char* name = hipGetErrorName ? hipGetErrorName(code) : nullptr;
  const char* text = hipGetErrorString ? hipGetErrorString(code) : nullptr;
  std::string out = name ? name : "hipError_t " + std::to_string(code);
  if (text && (!name || std::strcmp(name, text) != 0)) out += std::string(": ") + text;
  return out;
}

runtime_status hip_api::status(int code, const char* statement, const std::string& where) const {
  return runtime_status::failure(call_name(statement), code, describe(code) + " [" + statement + " in " + where + "]");
}

namespace {

std::string arch_at(const std::vector<char>& buf, size_t offset) {
  const char* p = buf.data() + offset;
  size_t n = strnlen(p, 256);
  return std::string(p, n);
}

}  // namespace

std::string hip_api::props_arch_name(int ordinal, std::string* which) const {
  std::vector<char> buf(kPropsBufferBytes, 0);
  struct attempt {
    hipError_t (*fn)(void*, int);
    size_t offset;
    const char* name;
  };
  const attempt order[] = {{hipGetDevicePropertiesR0600, kPropsR0600ArchOffset, "hipGetDevicePropertiesR0600"},
                           {hipGetDevicePropertiesR0000, kPropsR0000ArchOffset, "hipGetDevicePropertiesR0000"},
                           {hipGetDeviceProperties, kPropsR0000ArchOffset, "hipGetDeviceProperties"}};
  for (const attempt& a : order) {
    if (!a.fn) continue;
    std::fill(buf.begin(), buf.end(), 0);
    if (a.fn(buf.data(), ordinal) != hipSuccess) continue;
    std::string arch = arch_at(buf, a.offset);
    if (!arch.starts_with("gfx")) continue;  // wrong layout or an empty field: try the next
    if (which) *which = a.name;
    return arch;
  }
  return {};
}

std::string hip_version_string(int v) {
  if (v <= 0) return {};
  return std::to_string(v / 10000000) + "." + std::to_string((v / 100000) % 100) + "." + std::to_string(v % 100000);
}

}  // namespace gs::vendor
