// NVRTC symbol table and its search path.
#include "vendor/nvrtc_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

namespace gs::vendor {

namespace {

void add_site_packages(const char* prefix_env, std::vector<std::string>& out) {
  const char* prefix = std::getenv(prefix_env);
  if (!prefix || !*prefix) return;
  std::error_code ec;
  std::filesystem::path lib = std::filesystem::path(prefix) / "lib";
  for (const auto& e : std::filesystem::directory_iterator(lib, ec)) {
    std::string name = e.path().filename().string();
    if (!name.starts_with("python3")) continue;
    std::filesystem::path nv = e.path() / "site-packages" / "nvidia";
    out.push_back((nv / "cuda_nvrtc" / "lib").string());  // nvidia-cuda-nvrtc-cu12 wheels
    out.push_back((nv / "cu13" / "lib").string());        // CUDA 13 wheels' merged layout (unverified)
  }
}

}  // namespace

std::vector<std::string> nvrtc_search_dirs() {
  std::vector<std::string> dirs;
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* v = std::getenv(env);
    if (v && *v) dirs.push_back(std::string(v) + "/lib64");
  }
  dirs.push_back("/usr/local/cuda/lib64");
  add_site_packages("VIRTUAL_ENV", dirs);
  add_site_packages("CONDA_PREFIX", dirs);
  return dirs;
}

runtime_status nvrtc_api::load(const std::vector<std::string>& extra_dirs) {
  std::vector<std::string> dirs = extra_dirs;
  for (std::string& d : nvrtc_search_dirs()) dirs.push_back(std::move(d));
  runtime_status st = lib.open(
      library_candidates("GPUSTACK_NVRTC_LIBRARY", {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"}, dirs),
      /*keep_loaded=*/true);
  if (!st.ok) {
    st.message = "libnvrtc " + st.message;
    return st;
  }
  st = lib.resolve({
      dl_req("nvrtcVersion", nvrtcVersion),
      dl_req("nvrtcGetErrorString", nvrtcGetErrorString),
      dl_req("nvrtcCreateProgram", nvrtcCreateProgram),
      dl_req("nvrtcCompileProgram", nvrtcCompileProgram),
      dl_req("nvrtcGetProgramLogSize", nvrtcGetProgramLogSize),
      dl_req("nvrtcGetProgramLog", nvrtcGetProgramLog),
      dl_req("nvrtcDestroyProgram", nvrtcDestroyProgram),
      dl_opt("nvrtcGetCUBINSize", nvrtcGetCUBINSize),
      dl_opt("nvrtcGetCUBIN", nvrtcGetCUBIN),
      dl_opt("nvrtcGetNumSupportedArchs", nvrtcGetNumSupportedArchs),
      dl_opt("nvrtcGetSupportedArchs", nvrtcGetSupportedArchs),
  });
  if (!st.ok) return st;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return runtime_status::failure("nvrtcVersion", 0, lib.path() + ": nvrtcVersion failed");
  if (!nvrtcGetCUBIN || !nvrtcGetCUBINSize)
    return runtime_status::failure("dlsym", 0, lib.path() + " (NVRTC " + version() +
                                                   ") has no nvrtcGetCUBIN: NVRTC 11.1 or newer is needed");

  // NVRTC loads its builtins by soname at compile time, from its own directory or the loader
  // path. Check both the way it will: next to it first, then by bare name.
  std::string name = "libnvrtc-builtins.so." + version();
  std::string dir = library_dir(lib.path());
  std::string tried;
  for (const std::string& c : {dir.empty() ? name : dir + "/" + name, name}) {
    void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      builtins = c;
      dlclose(h);
      break;
    }
    const char* e = dlerror();
    tried += tried.empty() ? "" : "; ";
    tried += e ? e : c;
  }
  if (builtins.empty())
    return runtime_status::failure("dlopen", 0, name + " is not loadable next to " + lib.path() +
                                                    " (NVRTC needs it to compile anything): " + tried);
  return runtime_status::success();
}

std::vector<int> nvrtc_api::supported_archs() const {
  std::vector<int> out;
  int n = 0;
  if (!nvrtcGetNumSupportedArchs || !nvrtcGetSupportedArchs) return out;
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > 1024) return out;
  out.resize(static_cast<size_t>(n));
  if (nvrtcGetSupportedArchs(out.data()) != NVRTC_SUCCESS) out.clear();
  return out;
}

runtime_status nvrtc_api::status(int code, const char* statement, const std::string& where) const {
  const char* text = nvrtcGetErrorString ? nvrtcGetErrorString(code) : nullptr;
  return runtime_status::failure(call_name(statement), code,
                                 std::string(text ? text : "nvrtcResult " + std::to_string(code)) + " [" +
                                     statement + " in " + where + "]");
}

}  // namespace gs::vendor
