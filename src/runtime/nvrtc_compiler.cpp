// NVRTC compile: supported-arch check, in-memory headers, CUBIN, ELF arch check, cache.
#include "runtime/nvrtc_compiler.h"

#include <algorithm>
#include <cctype>

#include <fmt/ranges.h>

#include "runtime/code_object.h"

namespace gs {

int parse_sm(const std::string& arch) {
  if (!arch.starts_with("sm_") || arch.size() < 5) return 0;
  int v = 0;
  size_t i = 3;
  for (; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])); ++i) v = v * 10 + (arch[i] - '0');
  if (i == 3 || v > 1000) return 0;
  if (i < arch.size() && !(i + 1 == arch.size() && (arch[i] == 'a' || arch[i] == 'f'))) return 0;
  return v;
}

runtime_status nvrtc_compiler::open(const std::vector<std::string>& extra_dirs) {
  runtime_status st = api_.load(extra_dirs);
  open_ = st.ok;
  return st;
}

namespace {

std::string arch_list(const std::vector<int>& archs) {
  std::string out;
  for (int a : archs) out += (out.empty() ? "sm_" : ", sm_") + std::to_string(a);
  return out;
}

}  // namespace

runtime_status nvrtc_compiler::compile(const device_source& src, const std::string& arch, compiled_code& out,
                                       const jit_cache* cache) {
  using namespace vendor;
  if (!open_) return runtime_status::failure("nvrtc", 0, "NVRTC is not loaded");
  const int sm = parse_sm(arch);
  if (sm == 0) return runtime_status::failure("nvrtcCompileProgram", 0, "malformed CUDA arch '" + arch + "'");
  std::vector<int> archs = supported_archs();
  if (!archs.empty() && std::find(archs.begin(), archs.end(), sm) == archs.end()) {
    // Older than the oldest listed: the toolkit dropped it; otherwise it is too new for this NVRTC.
    const bool dropped = sm < *std::min_element(archs.begin(), archs.end());
    return runtime_status::failure(
        "nvrtcGetSupportedArchs", 0,
        "NVRTC " + api_.version() + " (" + api_.lib.path() + ") cannot compile for " + arch + "; it supports " +
            arch_list(archs) + (dropped ? ". This CUDA release dropped the arch; an older toolkit's NVRTC is needed."
                                        : ". A newer CUDA toolkit's NVRTC is needed for this GPU."));
  }

  std::vector<std::string> options = {"--gpu-architecture=" + arch};
  for (std::string& d : define_options(src.defines)) options.push_back(std::move(d));

  out = compiled_code{};
  out.cache_key = jit_cache_key({"cuda", arch, version(), options}, src);
  if (cache) {
    if (auto hit = cache->get(out.cache_key)) {
      code_object_info info = inspect_code_object(std::string_view(hit->data(), hit->size()));
      if (info.machine == kEmCuda && info.arch == "sm_" + std::to_string(sm)) {
        out.image = std::move(*hit);
        out.from_cache = true;
        return runtime_status::success();
      }
    }
  }

  rtc_arrays c(src, options);

  nvrtcProgram prog = nullptr;
  nvrtcResult rc = api_.nvrtcCreateProgram(&prog, src.source.c_str(), src.name.c_str(), c.header_count(),
                                           c.header_text.data(), c.header_names.data());
  if (rc != NVRTC_SUCCESS) return api_.status(rc, "nvrtcCreateProgram(...)", src.name);

  rc = api_.nvrtcCompileProgram(prog, c.option_count(), c.options.data());
  size_t log_size = 0;
  std::string log;
  if (api_.nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    log.resize(log_size);
    api_.nvrtcGetProgramLog(prog, log.data());
    log.resize(log_size - 1);  // drop the NUL
  }
  out.log = log;
  if (rc != NVRTC_SUCCESS) {
    api_.nvrtcDestroyProgram(&prog);
    const char* what = api_.nvrtcGetErrorString(rc);
    return runtime_status::failure("nvrtcCompileProgram", rc,
                                   std::string(what ? what : "compile failed") + ": NVRTC " + api_.version() +
                                       " could not compile " + src.name + " for " + arch + "\noptions: " +
                                       fmt::to_string(fmt::join(options, " ")) + "\nlog:\n" + log);
  }
  size_t size = 0;
  rc = api_.nvrtcGetCUBINSize(prog, &size);
  if (rc == NVRTC_SUCCESS && size > 0) {
    out.image.resize(size);
    rc = api_.nvrtcGetCUBIN(prog, out.image.data());
  }
  api_.nvrtcDestroyProgram(&prog);
  if (rc != NVRTC_SUCCESS || size == 0)
    return runtime_status::failure("nvrtcGetCUBIN", rc, "NVRTC produced no CUBIN for " + src.name + " (" + arch + ")");

  code_object_info info = inspect_code_object(std::string_view(out.image.data(), out.image.size()));
  if (info.machine != kEmCuda || info.arch != "sm_" + std::to_string(sm))
    return runtime_status::failure("nvrtcGetCUBIN", 0,
                                   "NVRTC's CUBIN for " + src.name + " is not an " + arch + " ELF (e_machine " +
                                       std::to_string(info.machine) + ", arch '" + info.arch + "')");
  if (cache) cache->put(out.cache_key, out.image);  // best effort: a read-only cache only costs time
  return runtime_status::success();
}

}  // namespace gs
