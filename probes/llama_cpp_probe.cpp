// llama_cpp.build (llama_cpp_probe.h). We only ask the binary about itself (--version,
// --list-devices), each under a 20 s deadline: both initialise the GPU backends, which is where
// a broken HIP or CUDA install shows up, and neither loads a model or opens a port.
#include "probes/llama_cpp_probe.h"

#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "core/text_scan.h"
#include "probes/device_code_scan.h"
#include "sys/subprocess_capture.h"

namespace gs {
namespace {

std::string after(const std::string& line, const std::string& key) {
  size_t p = line.find(key);
  return p == std::string::npos ? std::string() : std::string(scan::trim(line.substr(p + key.size())));
}

void add_device(llama_build_info& info, llama_device d) {
  for (const llama_device& x : info.devices)
    if (x.backend == d.backend && x.name == d.name) return;
  if (d.name.empty()) return;
  info.devices.push_back(std::move(d));
}

void parse_features(const std::string& line, llama_build_info& info) {
  std::stringstream ss(line);
  std::string seg;
  while (std::getline(ss, seg, '|')) {
    size_t colon = seg.find(" : ");  // "CUDA : ARCHS = 890" -> "ARCHS = 890"
    if (colon != std::string::npos) seg = seg.substr(colon + 3);
    size_t eq = seg.find(" = ");
    if (eq == std::string::npos) continue;
    std::string k = std::string(scan::trim(seg.substr(0, eq))), v = std::string(scan::trim(seg.substr(eq + 3)));
    if (k.empty() || k.size() > 40 || k.find(' ') != std::string::npos) continue;
    info.features[k] = v;
    if (k == "ARCHS") {
      std::stringstream as(v);
      std::string a;
      // __CUDA_ARCH_LIST__ holds 10x the SM number: 890 -> sm_89, 1200 -> sm_120
      while (std::getline(as, a, ',')) {
        a = std::string(scan::trim(a));
        if (a.size() >= 3 && a.back() == '0' && a.find_first_not_of("0123456789") == std::string::npos)
          info.archs.insert("sm_" + a.substr(0, a.size() - 1));
      }
    }
  }
}

}  // namespace

void parse_llama_output(const std::string& text, llama_build_info& info) {
  std::stringstream ss(text);
  std::string line, cuda_backend;
  bool in_list = false;
  while (std::getline(ss, line)) {
    line = std::string(scan::trim(line));
    if (line.rfind("version:", 0) == 0) info.version = after(line, "version:");
    else if (line.rfind("built with", 0) == 0) info.compiler = after(line, "built with");
    if (line.find("ggml_cuda_init: found") != std::string::npos) {
      // "found 1 CUDA devices:" / "found 1 ROCm devices:" / "found 1 MUSA devices:"
      std::string rest = after(line, "found");
      std::stringstream w(rest);
      std::string n;
      w >> n >> cuda_backend;
      if (!cuda_backend.empty()) info.backends.insert(cuda_backend);
      continue;
    }
    if (!cuda_backend.empty() && line.rfind("Device ", 0) == 0 && line.find(": ") != std::string::npos) {
      std::string rest = after(line, ": ");
      size_t comma = rest.find(", ");
      // The device's own arch ("gfx1201 (0x1201)") stays in the detail: archs are what the
      // build carries code for, which only ARCHS = or the library scan can tell.
      add_device(info, {cuda_backend, rest.substr(0, comma), comma == std::string::npos ? "" : rest.substr(comma + 2)});
      continue;
    }
    if (line.find("ggml_vulkan: Found") != std::string::npos) {
      info.backends.insert("Vulkan");
      continue;
    }
    if (line.rfind("ggml_vulkan: ", 0) == 0 && line.find(" = ") != std::string::npos && line.find(" | ") != std::string::npos) {
      std::string rest = after(line, " = ");
      size_t bar = rest.find(" | ");
      add_device(info, {"Vulkan", std::string(scan::trim(rest.substr(0, rest.rfind(" (", bar)))), std::string(scan::trim(rest.substr(0, bar)))});
      continue;
    }
    if (line.find("load_backend: loaded ") != std::string::npos) {
      std::string b = after(line, "load_backend: loaded ");
      b = b.substr(0, b.find(' '));
      if (!b.empty() && b != "CPU") info.backends.insert(b);
      continue;
    }
    if (line == "Available devices:") {
      in_list = true;
      continue;
    }
    if (in_list) {
      // "CUDA0: NVIDIA H200 (143156 MiB, 142599 MiB free)"
      size_t colon = line.find(": ");
      std::string tag = colon == std::string::npos ? "" : line.substr(0, colon);
      size_t digits = tag.find_first_of("0123456789");
      if (tag.empty() || digits == 0 || digits == std::string::npos || tag.find(' ') != std::string::npos) {
        in_list = false;
      } else {
        std::string rest = line.substr(colon + 2);
        size_t paren = rest.rfind(" (");
        std::string backend = tag.substr(0, digits);
        add_device(info, {backend, rest.substr(0, paren), paren == std::string::npos ? "" : rest.substr(paren + 2)});
        if (backend != "CPU") info.backends.insert(backend);
        continue;
      }
    }
    if (line.find(" = ") != std::string::npos && line.find(" | ") != std::string::npos) parse_features(line, info);
  }
}

std::vector<std::string> find_llama_binaries(const sysroot& sys) {
  std::vector<std::string> out;
  std::map<std::string, std::string> env = sys.environment();
  std::string path = env.count("PATH") ? env["PATH"] : "";
  for (const char* name : {"llama-server", "llama-cli"}) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (dir.empty()) continue;
      std::string p = dir + "/" + name;
      node_stat st = sys.stat(p);
      if (st.exists && !st.is_dir && (st.mode & 0111)) {
        out.push_back(p);
        break;
      }
    }
  }
  return out;
}

std::map<std::string, std::string> find_ggml_backend_libs(const sysroot& sys, const std::string& binary) {
  static const std::pair<const char*, const char*> kLibs[] = {
      {"libggml-cuda.so", "CUDA"}, {"libggml-hip.so", "ROCm"}, {"libggml-vulkan.so", "Vulkan"},
      {"libggml-sycl.so", "SYCL"}, {"libggml-musa.so", "MUSA"}};
  std::map<std::string, std::string> out;
  std::string real = sys.realpath(binary);
  std::string dir = real.substr(0, real.rfind('/'));
  std::string parent = dir.substr(0, dir.rfind('/'));
  for (const std::string& d : {dir, parent + "/lib", parent + "/lib64"})
    for (const std::string& name : sys.list(d))
      for (const auto& [lib, backend] : kLibs)
        if (name.rfind(lib, 0) == 0 && !out.count(backend)) out[backend] = d + "/" + name;
  return out;
}

probe_result llama_cpp_result(const std::string& binary, const llama_build_info& info, const machine_facts* facts) {
  probe_result r;
  r.id = "llama_cpp.build";
  r.phase = "verify";
  nlohmann::json devs = nlohmann::json::array();
  for (const llama_device& d : info.devices) devs.push_back({{"backend", d.backend}, {"name", d.name}, {"detail", d.detail}});
  r.data = {{"binary", binary}, {"version", info.version}, {"compiler", info.compiler},
            {"backends", info.backends}, {"devices", devs}, {"archs", info.archs}, {"features", info.features}};
  if (auto fa = info.features.find("FA_ALL_QUANTS"); fa != info.features.end()) r.data["flash_attn_all_quants"] = fa->second == "1";
  std::string backends;
  for (const std::string& b : info.backends) backends += (backends.empty() ? "" : ", ") + b;
  if (backends.empty()) backends = "CPU only";
  std::string ver = info.version.empty() ? "" : " " + info.version;
  std::vector<std::string> problems;
  if (facts)
    for (const gpu_info& g : facts->gpus) {
      std::string native = g.vendor == "amd" ? "ROCm" : g.vendor == "nvidia" ? "CUDA" : "";
      bool has_native = info.backends.count(native) > 0, has_vk = info.backends.count("Vulkan") > 0;
      std::string who = g.name + " (" + g.arch + ")";
      if (!has_native && !has_vk) {
        problems.push_back("no GPU backend for " + who + ": built with " + backends);
        continue;
      }
      bool seen = std::any_of(info.devices.begin(), info.devices.end(), [&](const llama_device& d) {
        return d.backend == native || d.backend == "Vulkan";
      });
      if (!seen) problems.push_back("it lists no " + native + " or Vulkan device for " + who);
      // Code for the arch: exact gfx target on AMD (no PTX-like fallback); on NVIDIA a SASS for
      // the arch, or PTX the driver can JIT, which the scan lists separately.
      bool amd_archs = std::any_of(info.archs.begin(), info.archs.end(), [](const std::string& a) { return a.rfind("gfx", 0) == 0; });
      if (has_native && g.vendor == "amd" && amd_archs && !info.archs.count(g.arch) &&
          !info.archs.count(g.arch.substr(0, g.arch.size() > 5 ? 5 : g.arch.size()) + "-generic"))
        problems.push_back("its ROCm code is for " + nlohmann::json(info.archs).dump() + ", not " + g.arch);
    }
  if (!problems.empty()) {
    r.outcome = status::warn;
    std::string d;
    for (const std::string& p : problems) d += (d.empty() ? "" : "; ") + p;
    r.detail = "llama.cpp" + ver + " at " + binary + ": " + d;
    return r;
  }
  r.outcome = status::pass;
  r.detail = "llama.cpp" + ver + " (" + backends + ") sees " + std::to_string(info.devices.size()) + " device(s)";
  return r;
}

namespace {

probe_result run_llama(const probe_context& ctx) {
  ctx.phase("load");
  sysroot sys = sysroot::live();
  std::vector<std::string> bins;
  if (auto it = ctx.options.find("llama_cpp.bin"); it != ctx.options.end()) bins.push_back(it->second);
  else bins = find_llama_binaries(sys);
  probe_result skip;
  skip.id = "llama_cpp.build";
  skip.outcome = status::skip;
  if (bins.empty()) {
    skip.detail = "no llama-server or llama-cli on PATH (--set llama_cpp.bin=PATH names one)";
    return skip;
  }
  const std::string& bin = bins.front();
  if (::access(bin.c_str(), X_OK) != 0) {
    skip.detail = bin + " is not executable";
    return skip;
  }
  llama_build_info info;
  ctx.phase("launch");
  captured_run v = run_captured({bin, "--version"}, 20);
  if (!v.started || v.timed_out || v.signal || v.exit_code != 0) {
    probe_result r;
    r.id = "llama_cpp.build";
    r.outcome = status::fail;
    std::string how = !v.started ? v.error
                      : v.timed_out ? "did not answer within 20 s"
                      : v.signal ? "died of signal " + std::to_string(v.signal)
                                 : "exited with code " + std::to_string(v.exit_code);
    r.detail = bin + " --version " + how;
    std::string tail = v.output.size() > 4000 ? v.output.substr(v.output.size() - 4000) : v.output;
    r.data = {{"binary", bin}, {"output_tail", tail}};
    return r;
  }
  parse_llama_output(v.output, info);
  ctx.heartbeat();
  captured_run l = run_captured({bin, "--list-devices"}, 20);
  if (l.started && !l.timed_out) parse_llama_output(l.output, info);
  ctx.phase("verify");
  std::map<std::string, std::string> libs = find_ggml_backend_libs(sys, bin);
  nlohmann::json scanned = nlohmann::json::object();
  for (const auto& [backend, path] : libs) {
    info.backends.insert(backend);
    if (backend != "CUDA" && backend != "ROCm") continue;
    ctx.heartbeat();
    device_code_targets t = scan_device_code_file(sys, path);
    for (const std::string& a : t.amd) info.archs.insert(a);
    for (const std::string& a : t.sass) info.archs.insert(a);
    scanned[path] = {{"amd", t.amd}, {"sass", t.sass}, {"ptx", t.ptx}, {"compressed_bundles", t.compressed_bundles}};
  }
  probe_result r = llama_cpp_result(bin, info, ctx.facts);
  r.data["libraries"] = libs;
  if (!scanned.empty()) r.data["device_code"] = scanned;
  if (!l.started || l.timed_out || l.exit_code != 0) r.data["list_devices_error"] = l.timed_out ? "timed out" : l.error;
  return r;
}

}  // namespace

const probe_spec llama_cpp_probe = {
    "llama_cpp.build", "llama-server/llama-cli on PATH: version, GPU backends, target archs, devices it sees",
    {}, true, true, run_llama};

}  // namespace gs
