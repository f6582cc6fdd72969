// hiprtc / amd_comgr compile paths. The comgr pipeline is the one hiprtc itself runs:
//   2.x: SOURCE_TO_BC -> ADD_DEVICE_LIBRARIES -> LINK_BC_TO_BC -> CODEGEN_BC_TO_RELOCATABLE
//        -> LINK_RELOCATABLE_TO_EXECUTABLE  (Debian's comgr 2.4 drops the device libraries
//        when asked for COMPILE_SOURCE_WITH_DEVICE_LIBS_TO_BC: the link then fails on
//        __ockl_get_local_id, so 2.x uses the explicit step, as hiprtc 5.2 does)
//   3.x: COMPILE_SOURCE_WITH_DEVICE_LIBS_TO_BC -> LINK_BC_TO_BC -> CODEGEN -> LINK
// Every step's status is checked: comgr happily runs later steps on an empty set.
#include "runtime/hip_compiler.h"

#include <dlfcn.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

#include <fmt/ranges.h>

#include "core/sha256.h"
#include "runtime/code_object.h"
#include "vendor/hip_api.h"

namespace gs {

using namespace vendor;

std::string gfx_base(const std::string& arch) { return arch.substr(0, arch.find(':')); }

int gfx_major(const std::string& arch) {
  std::string b = gfx_base(arch);
  if (!b.starts_with("gfx") || b.size() < 6) return 0;
  std::string digits = b.substr(3, b.size() - 5);
  int v = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return 0;
    v = v * 10 + (c - '0');
  }
  return v;
}

namespace {

const char* kRtcHeaderName = "hiprtc_runtime.h";

// RAII for comgr handles: every early return below must release what it created.
struct comgr_set {
  const comgr_api& api;
  amd_comgr_data_set_t set{0};
  bool ok = false;
  explicit comgr_set(const comgr_api& a) : api(a) { ok = api.amd_comgr_create_data_set(&set) == AMD_COMGR_STATUS_SUCCESS; }
  ~comgr_set() {
    if (ok) api.amd_comgr_destroy_data_set(set);
  }
  comgr_set(const comgr_set&) = delete;
  comgr_set& operator=(const comgr_set&) = delete;
};

struct comgr_info {
  const comgr_api& api;
  amd_comgr_action_info_t info{0};
  bool ok = false;
  explicit comgr_info(const comgr_api& a) : api(a) { ok = api.amd_comgr_create_action_info(&info) == AMD_COMGR_STATUS_SUCCESS; }
  ~comgr_info() {
    if (ok) api.amd_comgr_destroy_action_info(info);
  }
  comgr_info(const comgr_info&) = delete;
  comgr_info& operator=(const comgr_info&) = delete;
};

amd_comgr_status_t add_data(const comgr_api& api, amd_comgr_data_set_t set, int kind, const std::string& name,
                            const std::string& bytes) {
  amd_comgr_data_t d{0};
  amd_comgr_status_t rc = api.amd_comgr_create_data(kind, &d);
  if (rc != AMD_COMGR_STATUS_SUCCESS) return rc;
  rc = api.amd_comgr_set_data(d, bytes.size(), bytes.data());
  if (rc == AMD_COMGR_STATUS_SUCCESS) rc = api.amd_comgr_set_data_name(d, name.c_str());
  if (rc == AMD_COMGR_STATUS_SUCCESS) rc = api.amd_comgr_data_set_add(set, d);
  api.amd_comgr_release_data(d);  // the set holds its own reference
  return rc;
}

std::string data_bytes(const comgr_api& api, amd_comgr_data_set_t set, int kind, size_t index) {
  amd_comgr_data_t d{0};
  if (api.amd_comgr_action_data_get_data(set, kind, index, &d) != AMD_COMGR_STATUS_SUCCESS) return {};
  size_t size = 0;
  std::string out;
  if (api.amd_comgr_get_data(d, &size, nullptr) == AMD_COMGR_STATUS_SUCCESS && size > 0) {
    out.resize(size);
    if (api.amd_comgr_get_data(d, &size, out.data()) != AMD_COMGR_STATUS_SUCCESS) out.clear();
  }
  api.amd_comgr_release_data(d);
  return out;
}

std::string logs_of(const comgr_api& api, amd_comgr_data_set_t set) {
  size_t n = 0;
  std::string out;
  if (api.amd_comgr_action_data_count(set, comgr_kind_log, &n) != AMD_COMGR_STATUS_SUCCESS) return out;
  for (size_t i = 0; i < n; ++i) {
    std::string s = data_bytes(api, set, comgr_kind_log, i);
    while (!s.empty() && (s.back() == '\0' || s.back() == '\n')) s.pop_back();
    if (!s.empty()) out += s + "\n";
  }
  return out;
}

}  // namespace

runtime_status hip_compiler::load_builtins_header(const std::string& hip_path) {
  std::vector<std::string> dirs;
  if (std::string d = library_dir(hip_path); !d.empty()) dirs.push_back(d);
  for (std::string& d : rocm_lib_dirs()) dirs.push_back(std::move(d));
  dl_library lib;
  runtime_status st = lib.open(
      library_candidates(nullptr, {"libhiprtc-builtins.so.7", "libhiprtc-builtins.so.6", "libhiprtc-builtins.so.5"}, dirs),
      /*keep_loaded=*/false);
  if (!st.ok) return st;
  const char* text = static_cast<const char*>(lib.symbol("__hipRTC_header"));
  const auto* size = static_cast<const unsigned*>(lib.symbol("__hipRTC_header_size"));
  if (!text || !size || *size == 0 || *size > (64u << 20))
    return runtime_status::failure("dlsym", 0, lib.path() + " has no usable __hipRTC_header");
  rtc_header_.assign(text, *size);
  header_origin_ = lib.path();
  return runtime_status::success();
}

runtime_status hip_compiler::open(const hip_compiler_options& opts, void* hip_handle, const std::string& hip_path,
                                  const std::string& hip_version) {
  hip_compiler_kind want = opts.kind;
  if (want == hip_compiler_kind::automatic) {
    const char* env = std::getenv("GPUSTACK_HIP_COMPILER");
    if (env && std::strcmp(env, "hiprtc") == 0) want = hip_compiler_kind::hiprtc;
    if (env && std::strcmp(env, "comgr") == 0) want = hip_compiler_kind::comgr;
  }
  runtime_status rtc_st;
  if (want != hip_compiler_kind::comgr) {
    rtc_st = hiprtc_.load(hip_handle, hip_path, hip_version);
    if (rtc_st.ok) {
      kind_ = hip_compiler_kind::hiprtc;
      return rtc_st;
    }
    if (want == hip_compiler_kind::hiprtc) return rtc_st;
  }
  runtime_status cg = comgr_.load(library_dir(hip_path));
  if (!cg.ok) {
    if (!rtc_st.ok) cg.message = "no HIP compiler: " + rtc_st.message + "; and " + cg.message;
    return cg;
  }
  if (opts.headers != hip_header_source::shim) {
    runtime_status b = load_builtins_header(hip_path);
    if (!b.ok && opts.headers == hip_header_source::builtins) return b;
  }
  if (rtc_header_.empty()) {
    rtc_header_ = hip_rtc_shim();
    header_origin_ = "gpustack shim";
  }
  kind_ = hip_compiler_kind::comgr;
  return runtime_status::success();
}

std::string hip_compiler::version() const {
  if (kind_ == hip_compiler_kind::hiprtc) return hiprtc_.version;
  if (kind_ == hip_compiler_kind::comgr) return comgr_.version();
  return {};
}

runtime_status hip_compiler::compile(const device_source& src, const std::string& arch, compiled_code& out,
                                     const jit_cache* cache) {
  if (!is_open()) return runtime_status::failure("hip_compile", 0, "no HIP compiler is loaded");
  const std::string base = gfx_base(arch);
  const int major = gfx_major(arch);
  if (major == 0) return runtime_status::failure("hip_compile", 0, "malformed AMD arch '" + arch + "'");
  if (major == 9 && src.wave_size != 64)
    return runtime_status::failure("hip_compile", 0, base + " runs wave64 only; GS_WARP_SIZE=" +
                                                         std::to_string(src.wave_size) + " cannot be honoured");

  std::vector<std::string> options = {"-O3"};
  // RDNA (gfx10+) defaults to wave32; wave64 there is a compile flag. gfx9 is wave64 by design.
  if (major >= 10 && src.wave_size == 64) options.push_back("-mwavefrontsize64");
  for (std::string& d : define_options(src.defines)) options.push_back(std::move(d));

  std::vector<std::string> key_options = options;
  if (kind_ == hip_compiler_kind::comgr) key_options.push_back("rtc-header-sha256=" + sha256_hex(rtc_header_));
  out = compiled_code{};
  out.cache_key = jit_cache_key({"hip", arch, version(), key_options}, src);
  if (cache) {
    if (auto hit = cache->get(out.cache_key)) {
      code_object_info info = inspect_code_object(std::string_view(hit->data(), hit->size()));
      if (info.machine == kEmAmdgpu && info.arch == base) {
        out.image = std::move(*hit);
        out.from_cache = true;
        return runtime_status::success();
      }
    }
  }

  runtime_status st = kind_ == hip_compiler_kind::hiprtc ? compile_hiprtc(src, arch, options, out)
                                                         : compile_comgr(src, arch, options, out);
  if (!st.ok) return st;
  std::string_view image(out.image.data(), out.image.size());
  if (!image.starts_with("__CLANG_OFFLOAD_BUNDLE__")) {  // a bundle carries its targets in entry ids
    code_object_info info = inspect_code_object(image);
    if (info.machine != kEmAmdgpu || info.arch != base)
      return runtime_status::failure("hip_compile", 0,
                                     version() + " produced a code object for '" + info.arch + "' (e_machine " +
                                         std::to_string(info.machine) + "), not " + base + ": " + info.error);
  }
  if (cache) cache->put(out.cache_key, out.image);
  return runtime_status::success();
}

runtime_status hip_compiler::compile_hiprtc(const device_source& src, const std::string& arch,
                                            const std::vector<std::string>& options, compiled_code& out) {
  std::vector<std::string> all = {"--offload-arch=" + arch};
  all.insert(all.end(), options.begin(), options.end());
  rtc_arrays c(src, all);

  hiprtcProgram prog = nullptr;
  hiprtcResult rc = hiprtc_.hiprtcCreateProgram(&prog, src.source.c_str(), src.name.c_str(), c.header_count(),
                                                c.header_text.data(), c.header_names.data());
  if (rc != HIPRTC_SUCCESS) return runtime_status::failure("hiprtcCreateProgram", rc, hiprtc_.describe(rc));
  rc = hiprtc_.hiprtcCompileProgram(prog, c.option_count(), c.options.data());
  size_t log_size = 0;
  std::string log;
  if (hiprtc_.hiprtcGetProgramLogSize(prog, &log_size) == HIPRTC_SUCCESS && log_size > 0) {
    log.resize(log_size);
    hiprtc_.hiprtcGetProgramLog(prog, log.data());
    while (!log.empty() && log.back() == '\0') log.pop_back();
  }
  out.log = log;
  if (rc != HIPRTC_SUCCESS) {
    hiprtc_.hiprtcDestroyProgram(&prog);
    return runtime_status::failure("hiprtcCompileProgram", rc,
                                   hiprtc_.describe(rc) + ": " + version() + " could not compile " + src.name + " for " +
                                       arch + "\noptions: " + fmt::to_string(fmt::join(all, " ")) + "\nlog:\n" + log);
  }
  size_t size = 0;
  rc = hiprtc_.hiprtcGetCodeSize(prog, &size);
  if (rc == HIPRTC_SUCCESS && size > 0) {
    out.image.resize(size);
    rc = hiprtc_.hiprtcGetCode(prog, out.image.data());
  }
  hiprtc_.hiprtcDestroyProgram(&prog);
  if (rc != HIPRTC_SUCCESS || size == 0)
    return runtime_status::failure("hiprtcGetCode", rc, version() + " produced no code for " + src.name + " (" + arch + ")");
  return runtime_status::success();
}

runtime_status hip_compiler::compile_comgr(const device_source& src, const std::string& arch,
                                           const std::vector<std::string>& options, compiled_code& out) {
  const comgr_enums& e = comgr_.enums;
  const std::string base = gfx_base(arch);
  const std::string isa = "amdgcn-amd-amdhsa--" + arch;
  std::vector<std::string> isas = comgr_.isa_names();
  bool known = false;
  std::string listed;
  for (const std::string& name : isas) {
    std::string target = name.substr(name.find("--") == std::string::npos ? 0 : name.find("--") + 2);
    known = known || gfx_base(target) == base;
    listed += (listed.empty() ? "" : " ") + gfx_base(target);
  }
  if (!known)
    return runtime_status::failure("amd_comgr_get_isa_name", 0,
                                   comgr_.version() + " (" + comgr_.lib.path() + ") cannot compile for " + base +
                                       ": it knows only " + listed + ". A newer ROCm's comgr is needed for this GPU.");

  // Compile options: hiprtc's own spelling for its runtime header, then ours.
  std::vector<std::string> compile_opts = {"-std=c++17", "-nogpuinc", "-D__HIPCC_RTC__", "-include", kRtcHeaderName,
                                           "-Wno-gnu-line-marker"};
  compile_opts.insert(compile_opts.end(), options.begin(), options.end());
  std::vector<const char*> copts, codegen_opts = {"-O3"}, devlib_opts;
  for (const std::string& o : compile_opts) copts.push_back(o.c_str());
  if (src.wave_size == 64) devlib_opts.push_back("wavefrontsize64");  // oclc_wavefrontsize64_on

  std::string log;
  auto fail = [&](const char* step, int rc) {
    out.log = log;
    return runtime_status::failure("amd_comgr_do_action", rc,
                                   comgr_.describe(rc) + " in " + step + ": " + comgr_.version() + " could not compile " +
                                       src.name + " for " + arch + " (ISA " + isa + ", header " + header_origin_ +
                                       ")\noptions: " + fmt::to_string(fmt::join(compile_opts, " ")) + "\nlog:\n" + log);
  };

  comgr_set input(comgr_), bc(comgr_), bc_libs(comgr_), linked(comgr_), reloc(comgr_), exe(comgr_);
  comgr_info compile_info(comgr_), devlib_info(comgr_), plain_info(comgr_), codegen_info(comgr_);
  if (!input.ok || !bc.ok || !bc_libs.ok || !linked.ok || !reloc.ok || !exe.ok || !compile_info.ok || !devlib_info.ok ||
      !plain_info.ok || !codegen_info.ok)
    return fail("setup", 3);

  int rc = add_data(comgr_, input.set, comgr_kind_source, src.name, src.source);
  if (rc == AMD_COMGR_STATUS_SUCCESS) rc = add_data(comgr_, input.set, comgr_kind_include, kRtcHeaderName, rtc_header_);
  for (const auto& [name, text] : src.headers)
    if (rc == AMD_COMGR_STATUS_SUCCESS) rc = add_data(comgr_, input.set, comgr_kind_include, name, text);
  if (rc != AMD_COMGR_STATUS_SUCCESS) return fail("data setup", rc);

  auto setup = [&](comgr_info& info, std::vector<const char*>& opts) {
    int r = comgr_.amd_comgr_action_info_set_isa_name(info.info, isa.c_str());
    if (r == AMD_COMGR_STATUS_SUCCESS) r = comgr_.amd_comgr_action_info_set_language(info.info, e.language_hip);
    if (r == AMD_COMGR_STATUS_SUCCESS) r = comgr_.amd_comgr_action_info_set_logging(info.info, true);
    if (r == AMD_COMGR_STATUS_SUCCESS) r = comgr_.amd_comgr_action_info_set_option_list(info.info, opts.data(), opts.size());
    return r;
  };
  std::vector<const char*> none;
  for (auto [info, opts] : {std::pair{&compile_info, &copts}, std::pair{&devlib_info, &devlib_opts},
                            std::pair{&plain_info, &none}, std::pair{&codegen_info, &codegen_opts}})
    if ((rc = setup(*info, *opts)) != AMD_COMGR_STATUS_SUCCESS) return fail("action info setup", rc);

  auto step = [&](int action, comgr_info& info, comgr_set& in, comgr_set& result) {
    int r = comgr_.amd_comgr_do_action(action, info.info, in.set, result.set);
    log += logs_of(comgr_, result.set);
    return r;
  };
  comgr_set* bitcode = &bc;
  if (e.add_device_libraries >= 0) {
    if ((rc = step(e.compile_source_to_bc, compile_info, input, bc)) != 0) return fail("COMPILE_SOURCE_TO_BC", rc);
    if ((rc = step(e.add_device_libraries, devlib_info, bc, bc_libs)) != 0) return fail("ADD_DEVICE_LIBRARIES", rc);
    bitcode = &bc_libs;
  } else if ((rc = step(e.compile_source_with_device_libs_to_bc, compile_info, input, bc)) != 0) {
    return fail("COMPILE_SOURCE_WITH_DEVICE_LIBS_TO_BC", rc);
  }
  if ((rc = step(e.link_bc_to_bc, plain_info, *bitcode, linked)) != 0) return fail("LINK_BC_TO_BC", rc);
  if ((rc = step(e.codegen_bc_to_relocatable, codegen_info, linked, reloc)) != 0) return fail("CODEGEN_BC_TO_RELOCATABLE", rc);
  if ((rc = step(e.link_relocatable_to_executable, plain_info, reloc, exe)) != 0)
    return fail("LINK_RELOCATABLE_TO_EXECUTABLE", rc);

  size_t n = 0;
  comgr_.amd_comgr_action_data_count(exe.set, comgr_kind_executable, &n);
  std::string image = n ? data_bytes(comgr_, exe.set, comgr_kind_executable, 0) : std::string();
  if (image.empty()) return fail("LINK_RELOCATABLE_TO_EXECUTABLE (no executable)", 1);
  out.image.assign(image.begin(), image.end());
  out.log = log;
  return runtime_status::success();
}

}  // namespace gs
