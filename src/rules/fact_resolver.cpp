// Built-in fact keys and how each is read from machine_facts. Empty strings and the zeros
// facts.h uses for "not known" resolve to unset, so a rule never fires on a value detection
// failed to read.
#include "rules/fact_resolver.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>

#include "card/card_fields.h"
#include "rules/condition.h"
#include "rules/gpu_env.h"
#include "rules/text_template.h"
#include "inspect/device_code_facts.h"

namespace gs {
namespace {

using getter = std::function<std::optional<fact_value>(const fact_context&)>;

std::optional<fact_value> str(const std::string& s) {
  if (s.empty()) return std::nullopt;
  fact_value v;
  v.type = fact_type::string;
  v.text = s;
  return v;
}

std::optional<fact_value> num(double d) {
  fact_value v;
  v.type = fact_type::number;
  v.number = d;
  char buf[64];
  if (std::floor(d) == d && std::fabs(d) < 1e18)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(d));
  else
    std::snprintf(buf, sizeof buf, "%g", d);
  v.text = buf;
  return v;
}

std::optional<fact_value> num_known(double d) { return d ? num(d) : std::nullopt; }

std::string join_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}


std::optional<fact_value> boolean(bool b) {
  fact_value v;
  v.type = fact_type::boolean;
  v.flag = b;
  v.text = b ? "true" : "false";
  return v;
}

std::optional<fact_value> ver(const std::string& s) {
  auto p = version::parse(s);
  if (!p) return std::nullopt;
  fact_value v;
  v.type = fact_type::version;
  v.text = s;
  v.ver = std::move(p);
  return v;
}

const std::string* env_of(const machine_facts& f, std::string_view name) {
  auto it = f.env.find(std::string(name));
  return it == f.env.end() ? nullptr : &it->second;
}

int count_vendor(const machine_facts& f, std::string_view vendor) {
  int n = 0;
  for (const gpu_info& g : f.gpus) n += g.vendor == vendor;
  return n;
}

const python_package* find_package(const machine_facts& f, const std::string& normalized) {
  auto it = f.python.packages.find(normalized);
  if (it != f.python.packages.end()) return &it->second;
  for (const auto& [k, p] : f.python.packages)
    if (normalize_package_name(k) == normalized) return &p;
  return nullptr;
}

/// The installed distribution that stands for pkg.<name>: the first of its group.
const python_package* package_for(const fact_context& c, const std::string& name) {
  if (c.kb) {
    auto g = c.kb->package_groups.find(name);
    if (g != c.kb->package_groups.end()) {
      for (const std::string& dist : g->second)
        if (const python_package* p = find_package(*c.facts, dist)) return p;
      return nullptr;
    }
  }
  return find_package(*c.facts, name);
}

std::string torch_build(const machine_facts& f) {
  if (!find_package(f, "torch")) return "";
  if (f.coverage.partial && !f.python.torch_build_known) return "";
  if (!f.python.torch_hip.empty()) return "rocm";
  if (!f.python.torch_cuda.empty()) return "cuda";
  return "cpu";
}

/// The override libhsakmt applies to this GPU: HSA_OVERRIDE_GFX_VERSION_<kfd node> first.
std::pair<std::string, const std::string*> hsa_override(const fact_context& c) {
  if (!c.gpu || c.gpu->vendor != "amd") return {"", nullptr};
  if (c.gpu->kfd_node >= 0) {
    std::string name = "HSA_OVERRIDE_GFX_VERSION_" + std::to_string(c.gpu->kfd_node);
    if (const std::string* v = env_of(*c.facts, name)) return {name, v};
  }
  if (const std::string* v = env_of(*c.facts, "HSA_OVERRIDE_GFX_VERSION")) return {"HSA_OVERRIDE_GFX_VERSION", v};
  return {"", nullptr};
}

struct mask_state {
  int amd_visible = 0, nvidia_visible = 0;
  bool hip_rocr_conflict = false;
  std::string summary, truncated;
};

/// ROCR filters the KFD GPUs first; HIP then indexes into what is left with HIP_VISIBLE_DEVICES
/// (or, when that is unset, CUDA_VISIBLE_DEVICES). CUDA applies CUDA_VISIBLE_DEVICES alone.
mask_state masks(const machine_facts& f) {
  mask_state m;
  auto note = [&](std::string_view var, const std::string& value, const mask_effect& e, int of, const char* vendor) {
    if (!m.summary.empty()) m.summary += "; ";
    m.summary += std::string(var) + "=\"" + value + "\" keeps " + std::to_string(e.visible) + " of " +
                 std::to_string(of) + " " + vendor + " GPU" + (of == 1 ? "" : "s");
    if (e.truncated) {
      if (!m.truncated.empty()) m.truncated += "; ";
      m.truncated += std::string(var) + "=\"" + value + "\": entry '" + e.dropped +
                     "' names no device, so it and every entry after it are ignored";
    }
  };
  int nv = count_vendor(f, "nvidia"), amd = count_vendor(f, "amd");
  m.nvidia_visible = nv;
  if (const std::string* v = env_of(f, "CUDA_VISIBLE_DEVICES"); v && nv > 0) {
    mask_effect e = apply_visible_mask(*v, nv);
    note("CUDA_VISIBLE_DEVICES", *v, e, nv, "NVIDIA");
    m.nvidia_visible = e.visible;
  }
  m.amd_visible = amd;
  if (amd > 0) {
    const std::string* rocr = env_of(f, "ROCR_VISIBLE_DEVICES");
    bool rocr_used = rocr && !rocr->empty();
    if (rocr_used) {
      mask_effect e = apply_visible_mask(*rocr, m.amd_visible);
      note("ROCR_VISIBLE_DEVICES", *rocr, e, m.amd_visible, "AMD");
      m.amd_visible = e.visible;
    }
    const std::string* hip = env_of(f, "HIP_VISIBLE_DEVICES");
    std::string_view hip_var = "HIP_VISIBLE_DEVICES";
    if (!hip || hip->empty()) {
      hip = env_of(f, "CUDA_VISIBLE_DEVICES");
      hip_var = "CUDA_VISIBLE_DEVICES";
    }
    if (hip && !hip->empty()) {
      int before = m.amd_visible;
      mask_effect e = apply_visible_mask(*hip, before);
      note(hip_var, *hip, e, before, "AMD");
      m.amd_visible = e.visible;
      m.hip_rocr_conflict = rocr_used && hip_var == "HIP_VISIBLE_DEVICES" && e.truncated;
    }
  }
  return m;
}

std::string dev_kind(const std::string& path) {
  if (path == "/dev/kfd") return "kfd";
  if (path.rfind("/dev/dri/renderD", 0) == 0) return "render";
  if (path.rfind("/dev/dri/card", 0) == 0) return "card";
  if (path.rfind("/dev/nvidia", 0) == 0) return "nvidia";
  return "other";
}

struct builtin {
  builtin_fact_doc doc;
  getter get;
};

#define F(key, type, scope, doc, body) \
  builtin { {key, fact_type::type, fact_scope::scope, doc}, [](const fact_context& c) -> std::optional<fact_value> body }

/// a / b to three places; unset when either is unknown.
std::optional<fact_value> ratio(const std::optional<double>& a, const std::optional<double>& b) {
  return a && b && *b > 0 ? num(std::round(*a / *b * 1000) / 1000) : std::nullopt;
}

/// gpu.<key> for every figure of the card_fields table (the card's own state, issue 18), plus the
/// ratios the rules compare against (a cap far below the default, memory others hold).
void add_card_facts(std::vector<builtin>& t) {
  static std::deque<std::string> keys;  // the table's keys are views: these own their text
  auto key = [](std::string k) -> std::string_view { return keys.emplace_back(std::move(k)); };
  for (const card_number_field& f : card_number_fields())
    t.push_back({{key(std::string("gpu.") + f.key), fact_type::number, fact_scope::gpu, f.help},
                 [&f](const fact_context& c) -> std::optional<fact_value> {
                   if (!c.gpu) return std::nullopt;
                   auto v = card_number(c.gpu->card, f);
                   return v ? num(*v) : std::nullopt;
                 }});
  for (const card_text_field& f : card_text_fields())
    t.push_back({{key(std::string("gpu.card_") + f.key), fact_type::string, fact_scope::gpu, f.help},
                 [&f](const fact_context& c) -> std::optional<fact_value> { return c.gpu ? str(c.gpu->card.*f.member) : std::nullopt; }});
  for (const card_flag_field& f : card_flag_fields())
    t.push_back({{key(std::string("gpu.") + f.key), fact_type::boolean, fact_scope::gpu, f.help},
                 [&f](const fact_context& c) -> std::optional<fact_value> {
                   if (!c.gpu || !(c.gpu->card.*f.member)) return std::nullopt;
                   return boolean(*(c.gpu->card.*f.member));
                 }});
  t.push_back(F("gpu.power_limit_fraction", number, gpu, "power_limit_w / power_default_limit_w: 0.5 is a cap at half the card's default",
                { return c.gpu ? ratio(c.gpu->card.power_limit_w, c.gpu->card.power_default_limit_w) : std::nullopt; }));
  t.push_back(F("gpu.vram_used_fraction", number, gpu, "vram_used_bytes / vram_total_bytes",
                { return c.gpu ? ratio(c.gpu->card.vram_used_bytes, c.gpu->card.vram_total_bytes) : std::nullopt; }));
  t.push_back(F("gpu.clock_sm_fraction", number, gpu, "clock_sm_mhz / clock_sm_max_mhz",
                { return c.gpu ? ratio(c.gpu->card.clock_sm_mhz, c.gpu->card.clock_sm_max_mhz) : std::nullopt; }));
  t.push_back(F("gpu.throttle_reasons", string, gpu,
                "why the clocks are held now, ', '-separated (gpu_idle, sw_power_cap, hw_slowdown, sw_thermal_slowdown, "
                "hw_thermal_slowdown, hw_power_brake, ...); 'none' when nothing holds them; unset when unknown",
                { return c.gpu ? str(throttle_text(c.gpu->card)) : std::nullopt; }));
  t.push_back(F("gpu.thermal_throttle", boolean, gpu, "a thermal slowdown reason (sw or hw) holds the clocks now",
                { if (!c.gpu || !c.gpu->card.throttle_reasons) return std::nullopt;
                  for (const std::string& r : *c.gpu->card.throttle_reasons) if (is_thermal_reason(r)) return boolean(true);
                  return boolean(false); }));
  t.push_back(F("gpu.idle", boolean, gpu, "the card says it is idle (NVML gpu_idle reason, or 0% busy)",
                { if (!c.gpu) return std::nullopt;
                  const card_state& k = c.gpu->card;
                  if (k.throttle_reasons)
                    for (const std::string& r : *k.throttle_reasons) if (r == "gpu_idle") return boolean(true);
                  if (k.busy_percent) return boolean(*k.busy_percent == 0);
                  return k.throttle_reasons ? boolean(false) : std::nullopt; }));
  t.push_back(F("gpu.firmware", string, gpu, "loaded firmware as name=0xVERSION, ', '-separated (AMD, libdrm_amdgpu)",
                { if (!c.gpu) return std::nullopt;
                  std::string s; char buf[32];
                  for (const card_firmware& f : c.gpu->card.firmware) {
                    std::snprintf(buf, sizeof buf, "=0x%08x", f.version);
                    s += (s.empty() ? "" : ", ") + f.name + buf;
                  }
                  return str(s); }));
}


/// container.<key>: what `check --container` read from a spec (core/facts.h container_info).
/// Unset outside that command. Facts about how the container runs are unknown for a bare
/// Dockerfile (fact_is_unknown), so a rule on them waits for the run line or compose file.
void add_container_facts(std::vector<builtin>& t) {
  auto has = [](const container_info& k, std::string_view dev) {
    for (const std::string& d : k.devices)
      if (d == dev || d.rfind(std::string(dev) + "/", 0) == 0) return true;
    return false;
  };
#define CF(key, type, doc, ...) /* variadic: a body may hold commas */ \
  builtin { {key, fact_type::type, fact_scope::global, doc}, [has](const fact_context& c) -> std::optional<fact_value> { \
    if (!c.facts->container) { return std::nullopt; } const container_info& k = *c.facts->container; (void)has; __VA_ARGS__ } }
  t.push_back(CF("container.kind", string, "the spec: dockerfile, compose, run (a docker/podman run line), kubernetes", { return str(k.kind); }));
  t.push_back(CF("container.name", string, "the service, container or workload name", { return str(k.name); }));
  t.push_back(CF("container.engine", string, "run lines: docker, podman or nerdctl", { return str(k.engine); }));
  t.push_back(CF("container.image", string, "the image it runs (a Dockerfile: its last stage's FROM)", { return str(k.image); }));
  t.push_back(CF("container.vendor", string, "amd or nvidia, from the image, devices, GPU requests, environment and torch index", { return str(k.vendor); }));
  t.push_back(CF("container.rocm", version, "ROCm of the image, from its tag or ENV ROCM_VERSION", { return ver(k.image_rocm); }));
  t.push_back(CF("container.cuda", version, "CUDA of the image, from its tag or ENV CUDA_VERSION", { return ver(k.image_cuda); }));
  t.push_back(CF("container.cuda_series", version, "the image's CUDA as major.minor (12.4.1 -> 12.4): what a driver's CUDA version is compared with",
                 { size_t a = k.image_cuda.find('.'), b = a == std::string::npos ? a : k.image_cuda.find('.', a + 1);
                   return ver(k.image_cuda.substr(0, b)); }));
  t.push_back(CF("container.torch", version, "torch the image ships, from its tag", { return ver(k.image_torch); }));
  t.push_back(CF("container.torch_index", string,
                 "where the spec's `pip install` lines take torch from: rocmX.Y, cuXYZ, cpu (the index or the version's label), pypi",
                 { return str(k.torch_index); }));
  t.push_back(CF("container.pip_requirements", string,
                 "requirement files the spec's pip lines install (-r FILE), ', '-separated: what they pin is not seen (unset: none)",
                 { std::string s; for (const std::string& r : k.pip_requirements) s += (s.empty() ? "" : ", ") + r; return str(s); }));
  t.push_back(CF("container.pip_constrained", boolean, "a constraints file (-c, PIP_CONSTRAINT) limits what those lines may change",
                 { return boolean(k.pip_constrained || k.env.count("PIP_CONSTRAINT") || k.env.count("UV_CONSTRAINT")); }));
  t.push_back(CF("container.typos", string, "keys and device paths that look misspelt, with what they may mean ('; '-separated; unset: none)",
                 { std::string s; for (const std::string& x : k.typos) s += (s.empty() ? "" : "; ") + x; return str(s); }));
  t.push_back(CF("container.user", string, "USER / --user / runAsUser as written (unset: the image's default user)", { return str(k.user); }));
  t.push_back(CF("container.root", boolean, "it runs as root: no user given, or root / 0",
                 { if (k.user.empty() || k.user == "root" || k.user == "0" || k.user.rfind("0:", 0) == 0 || k.user.rfind("root:", 0) == 0)
                     return boolean(true);
                   return k.user.find('$') == std::string::npos ? boolean(false) : std::nullopt; }));
  t.push_back(CF("container.kfd", boolean, "/dev/kfd is passed in (or --privileged, or the amd.com/gpu device plugin)",
                 { return boolean(k.privileged || has(k, "/dev/kfd")); }));
  t.push_back(CF("container.dri", boolean, "/dev/dri (or a render node under it) is passed in, or --privileged",
                 { return boolean(k.privileged || has(k, "/dev/dri")); }));
  t.push_back(CF("container.amd_devices_missing", string, "which of /dev/kfd and /dev/dri are not passed in (unset: both are)",
                 { if (k.privileged) return std::nullopt;
                   bool kfd = has(k, "/dev/kfd"), dri = has(k, "/dev/dri");
                   return str(kfd && dri ? "" : !kfd && !dri ? "/dev/kfd and /dev/dri" : kfd ? "/dev/dri" : "/dev/kfd"); }));
  t.push_back(CF("container.groups", string, "--group-add / group_add / supplementalGroups, ', '-separated (unset: none)",
                 { std::string s; for (const std::string& g : k.groups) s += (s.empty() ? "" : ", ") + g; return str(s); }));
  t.push_back(CF("container.device_groups", boolean,
                 "the groups given include video or render (or podman's keep-groups); unset when only numeric GIDs are given",
                 { bool numeric = false;
                   for (const std::string& g : k.groups) {
                     if (g == "video" || g == "render" || g == "keep-groups") return boolean(true);
                     numeric = numeric || (!g.empty() && g.find_first_not_of("0123456789") == std::string::npos);
                   }
                   return numeric ? std::nullopt : boolean(false); }));
  t.push_back(CF("container.privileged", boolean, "--privileged / privileged: true", { return boolean(k.privileged); }));
  t.push_back(CF("container.ipc_host", boolean, "it shares the host's IPC namespace (--ipc=host, ipc: host, hostIPC)", { return boolean(k.ipc_host); }));
  t.push_back(CF("container.shm_mib", number,
                 "/dev/shm in MiB: what the spec sets (--shm-size, shm_size, a memory emptyDir), else the runtimes' default of 64",
                 { return num(std::round((k.shm_bytes ? *k.shm_bytes : 64.0 * 1048576.0) / 1048576.0)); }));
  t.push_back(CF("container.seccomp", string, "the seccomp profile the spec sets (unconfined, a file); unset: the runtime's default", { return str(k.seccomp); }));
  t.push_back(CF("container.gpu_request", string, "how it asks for NVIDIA GPUs, as written (--gpus all, deploy devices, nvidia.com/gpu); unset: not at all",
                 { return str(k.gpu_request); }));
  t.push_back(CF("container.gpu_requested", boolean, "it asks for NVIDIA GPUs in any of the ways the NVIDIA runtime honours", { return boolean(!k.gpu_request.empty()); }));
  t.push_back(CF("container.runtime", string, "--runtime / runtime: / runtimeClassName", { return str(k.runtime); }));
  t.push_back(CF("container.k8s_gpu_resource", string, "the GPU resource a pod's container asks for (nvidia.com/gpu, amd.com/gpu)", { return str(k.k8s_gpu_resource); }));
  t.push_back(CF("container.uses_torch", boolean,
                 "torch runs in it: a torch image (pytorch, vllm, sglang ...) or torch among its pip installs; unset when nothing says so",
                 { std::string img = k.image;
                   for (char& ch : img) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
                   for (std::string_view w : {"pytorch", "torch", "vllm", "sglang", "axolotl", "unsloth", "llama-factory", "llamafactory"})
                     if (img.find(w) != std::string::npos) return boolean(true);
                   if (!k.image_torch.empty() || k.pip.count("torch")) return boolean(true);
                   return std::nullopt; }));
#undef CF
}

const std::vector<builtin>& builtins() {
  static const std::vector<builtin> table = [] {
    std::vector<builtin> t = {
      F("host.ram_bytes", number, global, "MemTotal in bytes", { return num_known(double(c.facts->host.ram_total_bytes)); }),
      F("host.ram_available_bytes", number, global, "MemAvailable in bytes", { return num_known(double(c.facts->host.ram_available_bytes)); }),
      F("host.swap_bytes", number, global, "SwapTotal in bytes (0 is a real value; unset when /proc/meminfo was unreadable)",
        { return c.facts->host.ram_total_bytes ? num(double(c.facts->host.swap_total_bytes)) : std::nullopt; }),
      F("host.zram_bytes", number, global, "size of zram swap devices in bytes",
        { return c.facts->host.ram_total_bytes ? num(double(c.facts->host.zram_bytes)) : std::nullopt; }),
      F("host.in_container", boolean, global, "running inside a container", { return boolean(c.facts->host.in_container); }),
      F("host.container_kind", string, global, "docker, podman, lxc, kubernetes, wsl", { return str(c.facts->host.container_kind); }),
      F("host.os_id", string, global, "os-release ID (ubuntu, debian, ...)", { return str(c.facts->host.os_id); }),
      F("host.os_version", version, global, "os-release VERSION_ID", { return ver(c.facts->host.os_version); }),
      F("host.kernel", version, global, "kernel release (6.8.0-49-generic)", { return ver(c.facts->host.kernel); }),
      F("regression.component", string, global, "a component the paste says works at one version and fails at another (kernel, nvidia-driver, amd-driver, rocm, cuda, mesa, torch, llama.cpp, ollama, koboldcpp, vllm and the Python packages of extract_regression.cpp)",
        { return str(c.facts->regression.component); }),
      F("regression.good", string, global, "the version of regression.component the paste says works (\"the release before X\" when only an upgrade to X is said to have broken it)", { return str(c.facts->regression.good); }),
      F("regression.bad", string, global, "the version of regression.component the paste says fails", { return str(c.facts->regression.bad); }),
      F("host.machine", string, global, "the CPU architecture as uname -m says it (x86_64, aarch64)", { return str(c.facts->host.machine); }),
      F("host.cpu_logical", number, global, "logical CPUs", { return num_known(c.facts->host.cpu_logical); }),
      F("gpus.count", number, global, "GPUs detected, all vendors", { return num(double(c.facts->gpus.size())); }),
      F("gpus.amd", number, global, "AMD GPUs detected", { return num(count_vendor(*c.facts, "amd")); }),
      F("gpus.nvidia", number, global, "NVIDIA GPUs detected", { return num(count_vendor(*c.facts, "nvidia")); }),
      // How the GPUs reach each other (detect/gpu_topology.h): unset with fewer than two GPUs.
      F("topology.worst_link", string, global, "slowest link between two GPUs: XGMI, PIX, PXB, PHB, NODE, SYS",
        { return str(c.facts->topology.worst); }),
      F("topology.numa_nodes", number, global, "distinct NUMA nodes the GPUs are attached to",
        { return num_known(c.facts->topology.numa_nodes); }),
      F("topology.acs_redirect", number, global, "PCIe bridges above the GPUs whose ACS redirects peer traffic (unset unless read as root)",
        { return c.facts->topology.acs_read ? num(double(c.facts->topology.acs_redirect.size())) : std::nullopt; }),
      F("topology.acs_bridges", string, global, "those bridges' addresses, comma-separated",
        { return str(join_list(c.facts->topology.acs_redirect)); }),
      F("topology.iommu", string, global, "the GPUs' IOMMU: translated (any GPU's group translates DMA), passthrough, off",
        { return str(c.facts->topology.iommu); }),
      F("amdgpu.loaded", boolean, global, "the amdgpu kernel module is loaded", { return boolean(c.facts->stack.amdgpu_loaded); }),
      F("amdgpu.initstate", string, global, "/sys/module/amdgpu/initstate (live)", { return str(c.facts->stack.amdgpu_initstate); }),
      F("amdgpu.version", version, global, "DKMS amdgpu module version; unset for the in-kernel driver", { return ver(c.facts->stack.amdgpu_version); }),
      F("nvidia.driver", version, global, "NVIDIA kernel driver version (580.159.04); unset when not loaded", { return ver(c.facts->stack.nvidia_driver); }),
      F("nvidia.open_module", boolean, global, "the open NVIDIA kernel module is in use",
        { return c.facts->stack.nvidia_driver.empty() ? std::nullopt : boolean(c.facts->stack.nvidia_open_module); }),
      F("rocm.version", version, global, "the active ROCm install's version (7.2.0)", { return ver(c.facts->stack.rocm_version); }),
      F("rocm.installs", number, global, "ROCm installs found under /opt", { return num(double(c.facts->stack.rocm_installs.size())); }),
      F("hip.runtime_source", string, global, "path of the libamdhip64 Python would load", { return str(c.facts->stack.hip_runtime_source); }),
      F("cuda.toolkit", version, global, "CUDA toolkit version (13.0.88)", { return ver(c.facts->stack.cuda_toolkit_version); }),
      F("cuda.toolkit_path", string, global, "CUDA toolkit directory", { return str(c.facts->stack.cuda_toolkit_path); }),
      F("cuda.driver_api", version, global, "CUDA version the driver's libcuda supports (13.0)", { return ver(c.facts->stack.cuda_driver_api); }),
      F("python.found", boolean, global, "a Python environment was found", { return boolean(c.facts->python.found); }),
      F("python.version", version, global, "its Python version", { return ver(c.facts->python.version); }),
      F("python.env_kind", string, global, "venv, uv, conda, system", { return str(c.facts->python.env_kind); }),
      F("python.interpreter", string, global, "path of the interpreter", { return str(c.facts->python.interpreter); }),
      F("torch.hip", version, global, "torch.version.hip of the installed torch (7.2.26015); unset on CUDA/CPU builds", { return ver(c.facts->python.torch_hip); }),
      F("torch.cuda", version, global, "torch.version.cuda (13.0); unset on ROCm/CPU builds", { return ver(c.facts->python.torch_cuda); }),
      F("torch.build", string, global, "rocm | cuda | cpu (torch installed, neither hip nor cuda in torch/version.py); unset without torch",
        { return str(torch_build(*c.facts)); }),
      F("mask.amd_visible", number, global, "AMD GPUs left after ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES)",
        { return num(masks(*c.facts).amd_visible); }),
      F("mask.nvidia_visible", number, global, "NVIDIA GPUs left after CUDA_VISIBLE_DEVICES", { return num(masks(*c.facts).nvidia_visible); }),
      F("mask.visible", number, global, "GPUs left after every mask, all vendors",
        { mask_state m = masks(*c.facts); return num(m.amd_visible + m.nvidia_visible); }),
      F("mask.hip_rocr_conflict", boolean, global, "ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES are both set and HIP's indices (which count ROCR's survivors) run past them",
        { return boolean(masks(*c.facts).hip_rocr_conflict); }),
      F("mask.truncated", string, global, "masks with an entry that names no device (it and every later entry are ignored)",
        { return str(masks(*c.facts).truncated); }),
      F("mask.summary", string, global, "what each mask that applies keeps", { return str(masks(*c.facts).summary); }),
      F("gpu.index", number, gpu, "position of this GPU in the report's gpus[]", { return c.gpu ? num(c.gpu_index) : std::nullopt; }),
      F("gpu.vendor", string, gpu, "amd | nvidia", { return c.gpu ? str(c.gpu->vendor) : std::nullopt; }),
      F("gpu.arch", string, gpu, "gfx1201, gfx90a, sm_90 (from KFD, immune to HSA_OVERRIDE_GFX_VERSION)", { return c.gpu ? str(c.gpu->arch) : std::nullopt; }),
      F("gpu.name", string, gpu, "product name", { return c.gpu ? str(c.gpu->name) : std::nullopt; }),
      F("gpu.family", string, gpu, "rdna4, rdna3, cdna3, ...", { return c.gpu ? str(c.gpu->family) : std::nullopt; }),
      F("gpu.pci_address", string, gpu, "PCI address (0000:03:00.0)", { return c.gpu ? str(c.gpu->pci_address) : std::nullopt; }),
      F("gpu.pci_id", string, gpu, "vendor:device (1002:7551)", { return c.gpu ? str(c.gpu->pci_id) : std::nullopt; }),
      F("gpu.source", string, gpu, "how the GPU was found: kfd, proc-nvidia, pci", { return c.gpu ? str(c.gpu->source) : std::nullopt; }),
      F("gpu.wave_size", number, gpu, "32 on RDNA and NVIDIA, 64 on CDNA", { return c.gpu ? num_known(c.gpu->wave_size) : std::nullopt; }),
      F("gpu.vram_bytes", number, gpu, "VRAM in bytes", { return c.gpu ? num_known(double(c.gpu->vram_bytes)) : std::nullopt; }),
      F("gpu.compute_units", number, gpu, "CUs (AMD) or SMs (NVIDIA)", { return c.gpu ? num_known(c.gpu->compute_units) : std::nullopt; }),
      F("gpu.pcie_width", number, gpu, "lanes of the narrowest PCIe link between the root complex and the GPU, as trained", { return c.gpu ? num_known(c.gpu->pcie_width) : std::nullopt; }),
      F("gpu.pcie_max_width", number, gpu, "lanes the narrowest link on that path could train at (slot wiring, card)", { return c.gpu ? num_known(c.gpu->pcie_max_width) : std::nullopt; }),
      F("gpu.pcie_gts", number, gpu, "GT/s per lane of the slowest link on that path now (drops at idle)", { return c.gpu ? num_known(c.gpu->pcie_gts) : std::nullopt; }),
      F("gpu.pcie_max_gts", number, gpu, "GT/s per lane the slowest link on that path could run at", { return c.gpu ? num_known(c.gpu->pcie_max_gts) : std::nullopt; }),
      F("gpu.pcie_width_fraction", number, gpu, "pcie_width / pcie_max_width: 0.25 is x4 of x16; unset when either is unknown",
        { return c.gpu && c.gpu->pcie_width && c.gpu->pcie_max_width ? num(double(c.gpu->pcie_width) / c.gpu->pcie_max_width) : std::nullopt; }),
      F("gpu.numa_node", number, gpu, "NUMA node the GPU is attached to; unset on a machine without NUMA",
        { return c.gpu && c.gpu->numa_node >= 0 ? num(double(c.gpu->numa_node)) : std::nullopt; }),
      F("gpu.pcie_narrowest", string, gpu, "PCI address of the device whose link is narrowest", { return c.gpu ? str(c.gpu->pcie_narrowest) : std::nullopt; }),
      F("gpu.compute_capability", version, gpu, "NVIDIA compute capability (9.0)", { return c.gpu ? ver(c.gpu->compute_capability) : std::nullopt; }),
      F("gpu.gfx_target_version", number, gpu, "KFD gfx_target_version (120001)", { return c.gpu ? num_known(c.gpu->gfx_target_version) : std::nullopt; }),
      F("gpu.kfd_node", number, gpu, "KFD topology node (CPU nodes counted): the <n> of HSA_OVERRIDE_GFX_VERSION_<n>",
        { return c.gpu && c.gpu->kfd_node >= 0 ? num(c.gpu->kfd_node) : std::nullopt; }),
      F("gpu.hsa_override", string, gpu, "the HSA_OVERRIDE_GFX_VERSION value libhsakmt applies to this AMD GPU (_<kfd node> first)",
        { auto o = hsa_override(c); return o.second ? str(*o.second) : std::nullopt; }),
      F("gpu.hsa_override.var", string, gpu, "which variable that value came from", { auto o = hsa_override(c); return o.second ? str(o.first) : std::nullopt; }),
      F("gpu.hsa_override.as_gfx", string, gpu, "the gfx target the override makes of the GPU (12.0.1 -> gfx1201, 9.0.10 -> gfx90a); unset when invalid",
        { auto o = hsa_override(c); if (!o.second) return std::nullopt; auto g = hsa_override_gfx(*o.second); return g ? str(*g) : std::nullopt; }),
      F("gpu.hsa_override.valid", boolean, gpu, "libhsakmt accepts the override (x.y.z, all decimal); false makes hsa_init fail",
        { auto o = hsa_override(c); return o.second ? boolean(hsa_override_gfx(*o.second).has_value()) : std::nullopt; }),
      F("gpu.libs_without_code", string, gpu, "GPU libraries of the Python env with device code, none of it for this GPU ('; '-separated)",
        { return c.gpu ? str(libraries_with_verdict(*c.facts, *c.gpu, code_verdict::none)) : std::nullopt; }),
      F("gpu.libs_jit_only", string, gpu, "GPU libraries of the Python env that run on this GPU only through the PTX JIT",
        { return c.gpu ? str(libraries_with_verdict(*c.facts, *c.gpu, code_verdict::jit)) : std::nullopt; }),
      F("dev.path", string, dev, "device node (/dev/kfd, /dev/dri/renderD128, /dev/nvidia0)", { return c.dev ? str(c.dev->path) : std::nullopt; }),
      F("dev.kind", string, dev, "kfd | render | card | nvidia | other", { return c.dev ? str(dev_kind(c.dev->path)) : std::nullopt; }),
      F("dev.exists", boolean, dev, "the node exists", { return c.dev ? boolean(c.dev->exists) : std::nullopt; }),
      F("dev.ok", boolean, dev, "this process opened it read-write", { return c.dev ? boolean(c.dev->ok) : std::nullopt; }),
      F("dev.error", string, dev, "EACCES, EPERM, ENOENT, ...", { return c.dev ? str(c.dev->error) : std::nullopt; }),
      F("dev.group", string, dev, "owning group (render, video, or a gid)", { return c.dev ? str(c.dev->group) : std::nullopt; }),
      F("dev.user_in_group", boolean, dev, "the user is in that group", { return c.dev ? boolean(c.dev->user_in_group) : std::nullopt; }),
      F("issue.source", string, issue, "what detection could not read", { return c.issue ? str(c.issue->source) : std::nullopt; }),
      F("issue.message", string, issue, "why", { return c.issue ? str(c.issue->message) : std::nullopt; }),
      F("alloc.vars", string, global, "every allocator variable that is set, as VAR=\"value\", '; '-separated",
        { std::string s; for (std::string_view v : kAllocConfVars) if (const std::string* x = env_of(*c.facts, v)) s += (s.empty() ? "" : "; ") + std::string(v) + "=\"" + *x + "\""; return str(s); }),
      F("alloc.var", string, alloc, "PYTORCH_ALLOC_CONF | PYTORCH_CUDA_ALLOC_CONF | PYTORCH_HIP_ALLOC_CONF", { return c.alloc ? str(c.alloc->var) : std::nullopt; }),
      F("alloc.conf", string, alloc, "its raw value", { return c.alloc ? str(c.alloc->raw) : std::nullopt; }),
      F("alloc.options", string, alloc, "option keys, comma-separated",
        { if (!c.alloc) return std::nullopt; std::string s; for (const auto& o : c.alloc->conf.options) s += (s.empty() ? "" : ",") + o.key; return str(s); }),
      F("alloc.conf_without_max_split", string, alloc,
        "the options as written without max_split_size_mb, garbage_collection_threshold:0.8 added when absent (GS-ALLOC-001's fix keeps the rest)",
        { if (!c.alloc) return std::nullopt; std::string s; bool gc = false;
          for (const auto& o : c.alloc->conf.options) {
            if (o.key == "max_split_size_mb") continue;
            gc = gc || o.key == "garbage_collection_threshold";
            s += (s.empty() ? "" : ",") + o.key + ":" + o.value;
          }
          if (!gc) s += std::string(s.empty() ? "" : ",") + "garbage_collection_threshold:0.8";
          return str(s); }),
      F("alloc.max_split_size_mb", number, alloc, "max_split_size_mb", { return c.alloc && c.alloc->conf.max_split_size_mb ? num(*c.alloc->conf.max_split_size_mb) : std::nullopt; }),
      F("alloc.garbage_collection_threshold", number, alloc, "garbage_collection_threshold",
        { return c.alloc && c.alloc->conf.garbage_collection_threshold ? num(*c.alloc->conf.garbage_collection_threshold) : std::nullopt; }),
      F("alloc.expandable_segments", string, alloc, "expandable_segments as written (torch accepts True/False)",
        { return c.alloc && c.alloc->conf.expandable_segments ? str(*c.alloc->conf.expandable_segments) : std::nullopt; }),
      F("alloc.backend", string, alloc, "backend (native, cudaMallocAsync)", { return c.alloc && c.alloc->conf.backend ? str(*c.alloc->conf.backend) : std::nullopt; }),
      F("alloc.roundup_power2_divisions", string, alloc, "roundup_power2_divisions as written",
        { const alloc_option* o = c.alloc ? c.alloc->conf.find("roundup_power2_divisions") : nullptr; return o ? str(o->value) : std::nullopt; }),
      F("alloc.unknown_options", string, alloc, "option keys no torch release accepts, comma-separated; unset when none",
        { if (!c.alloc) return std::nullopt; std::string s; for (const auto& k : c.alloc->conf.unknown) s += (s.empty() ? "" : ",") + k; return str(s); }),
      F("alloc.problems", string, alloc, "values torch rejects at the first allocation, '; '-separated; unset when none",
        { if (!c.alloc) return std::nullopt; std::string s; for (const auto& p : c.alloc->conf.problems) s += (s.empty() ? "" : "; ") + p; return str(s); }),
      F("alloc.conflict", boolean, alloc, "another allocator variable is set to a different value", { return c.alloc ? boolean(c.alloc->conflict) : std::nullopt; }),
    };
    add_card_facts(t);
    add_container_facts(t);
    return t;
  }();
  return table;
}
#undef F

const builtin* find_builtin(std::string_view key) {
  for (const builtin& b : builtins())
    if (b.doc.key == key) return &b;
  return nullptr;
}

bool valid_env_name(std::string_view n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  for (char ch : n)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return false;
  return true;
}

bool valid_package_name(std::string_view n) {
  if (n.empty()) return false;
  for (char ch : n)
    if (!(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_'))
      return false;
  return true;
}

/// Splits "pkg.triton.name" into ("triton", "name"); the suffix is empty for "pkg.triton".
std::pair<std::string, std::string> split_pkg(std::string_view rest) {
  size_t dot = rest.find('.');
  if (dot == std::string_view::npos) return {std::string(rest), ""};
  return {std::string(rest.substr(0, dot)), std::string(rest.substr(dot + 1))};
}

}  // namespace

std::string_view to_string(fact_type t) {
  switch (t) {
    case fact_type::string: return "string";
    case fact_type::version: return "version";
    case fact_type::number: return "number";
    case fact_type::boolean: return "bool";
  }
  return "?";
}

std::string normalize_package_name(std::string_view name) {
  std::string out;
  bool sep = false;
  for (char ch : name) {
    if (ch == '-' || ch == '_' || ch == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out += '-';
    sep = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return out;
}

const std::vector<builtin_fact_doc>& builtin_fact_docs() {
  static const std::vector<builtin_fact_doc> docs = [] {
    std::vector<builtin_fact_doc> out;
    for (const builtin& b : builtins()) out.push_back(b.doc);
    return out;
  }();
  return docs;
}

/// "match.N" -> N, "match.N.version" -> N (version set), else 0: the capture groups of the error
/// line a text rule matched, as facts its conditions can compare ("the GPU's compute capability
/// is below the one the error asks for").
static int capture_fact(std::string_view key, bool& as_version) {
  as_version = key.size() == 15 && key.substr(7) == ".version";
  return capture_index(as_version ? key.substr(0, 7) : key);
}

std::optional<fact_info> lookup_fact(std::string_view key, const kb_data* kb) {
  if (const builtin* b = find_builtin(key)) return fact_info{b->doc.type, static_cast<unsigned>(b->doc.scope)};
  bool as_version = false;
  if (capture_fact(key, as_version)) return fact_info{as_version ? fact_type::version : fact_type::string, 0};
  if (key.rfind("env.", 0) == 0) {
    if (!valid_env_name(key.substr(4))) return std::nullopt;
    return fact_info{fact_type::string, 0};
  }
  // An application's own version (machine_facts::apps): app.ollama, app.llama.cpp; their .major
  // and .minor are read by the suffix rule below.
  const bool app_key = key.rfind("app.", 0) == 0 && !key.ends_with(".major") && !key.ends_with(".minor");
  if (app_key) return key.size() > 4 ? std::optional<fact_info>(fact_info{fact_type::version, 0}) : std::nullopt;
  if (key.rfind("pkg.", 0) == 0) {
    auto [name, suffix] = split_pkg(key.substr(4));
    if (!valid_package_name(name)) return std::nullopt;
    if (suffix.empty()) return fact_info{fact_type::version, 0};
    if (suffix == "name") return fact_info{fact_type::string, 0};
    if (suffix == "major" || suffix == "minor") return fact_info{fact_type::number, 0};
    return std::nullopt;
  }
  if (kb)
    if (const derived_fact* d = kb->find_derived(key)) return fact_info{d->type, d->scopes};
  for (std::string_view suffix : {".major", ".minor"}) {
    if (key.size() > suffix.size() && key.substr(key.size() - suffix.size()) == suffix) {
      auto base = lookup_fact(key.substr(0, key.size() - suffix.size()), kb);
      if (base && base->type == fact_type::version) return fact_info{fact_type::number, base->scopes};
    }
  }
  return std::nullopt;
}

bool fact_is_unknown(std::string_view key, const fact_context& c, bool is_set) {
  if (!c.facts || !c.facts->coverage.partial) return false;
  if (key.rfind("match.", 0) == 0) return false;  // read from the matched line itself: known or not there
  // What a paste can never show: these are computed over the whole machine, so the value a
  // partial fact set gives them (0 GPUs, no device nodes, no masks) would be a guess.
  static constexpr std::string_view machine_only[] = {
      "issue.", "mask.", "amdgpu.", "rocm.installs", "python.found", "python.interpreter",
      "python.env_kind", "hip.runtime_source", "gpu.libs_", "gpu.kfd_node", "gpu.index", "gpu.gfx_target_version",
      "gpu.source", "host.in_container"};
  // ... except a container the paste names as where its commands ran ("rocminfo inside of docker"):
  // the reader sets the kind, and with it whether the process is in a container.
  if (key == "host.in_container" && !c.facts->host.container_kind.empty() && c.facts->host.container_kind != "wsl") return false;
  for (std::string_view prefix : machine_only)
    if (key.rfind(prefix, 0) == 0) return true;
  if (key.rfind("container.", 0) == 0) {  // known where the spec says it; how it runs only from a run line, compose, k8s
    static constexpr std::string_view spec_only[] = {"container.kind", "container.name", "container.engine", "container.image",
                                                     "container.vendor", "container.rocm", "container.cuda", "container.cuda_series", "container.torch",
                                                     "container.torch_index", "container.user", "container.root", "container.uses_torch",
                                                     "container.pip_requirements", "container.pip_constrained", "container.typos"};
    if (!c.facts->container) return true;
    for (std::string_view k : spec_only)
      // a spec with no pip line installs no torch and no requirements itself; no typo seen is none there
      if (key == k) return !is_set && key != "container.torch_index" && key != "container.pip_requirements" && key != "container.typos";
    return !c.facts->container->runtime_known;
  }
  const facts_coverage& cov = c.facts->coverage;
  if (key.rfind("gpus.", 0) == 0) return !cov.gpus_complete;  // counts: known only from a tool's whole list
  if (key.rfind("dev.", 0) == 0) return !cov.devices_listed;  // device nodes: only from an `ls -l` of them
  if (is_set) return false;
  if (key.rfind("env.", 0) == 0 || key.rfind("alloc.", 0) == 0) return !cov.env_complete;
  if (key.rfind("pkg.", 0) == 0) return !cov.packages_complete;
  if (key.rfind("torch.", 0) == 0)  // what torch was built for: said outright, or no torch in a whole list
    return !c.facts->python.torch_build_known && !(cov.packages_complete && !c.facts->python.packages.count("torch"));
  return true;
}

std::optional<fact_value> resolve_fact(std::string_view key, const fact_context& c) {
  if (!c.facts) return std::nullopt;
  if (const builtin* b = find_builtin(key)) return b->get(c);
  bool as_version = false;
  if (int n = capture_fact(key, as_version)) {
    if (!c.captures || static_cast<size_t>(n) > c.captures->size() || (*c.captures)[n - 1].empty()) return std::nullopt;
    return as_version ? ver((*c.captures)[n - 1]) : str((*c.captures)[n - 1]);
  }
  if (key.rfind("env.", 0) == 0) {
    const std::string* v = env_of(*c.facts, key.substr(4));
    if (!v) return std::nullopt;
    fact_value out;  // an empty value is still "set": CUDA_VISIBLE_DEVICES="" hides every GPU
    out.text = *v;
    return out;
  }
  if (key.rfind("app.", 0) == 0 && !key.ends_with(".major") && !key.ends_with(".minor")) {
    auto it = c.facts->apps.find(std::string(key.substr(4)));
    return it == c.facts->apps.end() ? std::nullopt : ver(it->second);
  }
  if (key.rfind("pkg.", 0) == 0) {
    auto [name, suffix] = split_pkg(key.substr(4));
    const python_package* p = package_for(c, normalize_package_name(name));
    if (!p) return std::nullopt;
    if (suffix == "name") return str(p->name.empty() ? name : p->name);
    auto v = ver(p->version);
    if (!v || suffix.empty()) return v;
    return num(double(suffix == "major" ? v->ver->major() : v->ver->minor()));
  }
  if (c.kb) {
    if (const derived_fact* d = c.kb->find_derived(key)) {
      for (const derived_fact::row& r : d->rows) {
        if (!conditions_hold(r.when, c)) continue;
        switch (d->type) {
          case fact_type::version: return ver(r.value);
          case fact_type::number: return num(std::strtod(r.value.c_str(), nullptr));
          case fact_type::boolean: return boolean(r.value == "true");
          case fact_type::string: return str(r.value);
        }
      }
      return std::nullopt;
    }
  }
  for (std::string_view suffix : {".major", ".minor"}) {
    if (key.size() > suffix.size() && key.substr(key.size() - suffix.size()) == suffix) {
      auto base = resolve_fact(key.substr(0, key.size() - suffix.size()), c);
      if (!base || !base->ver) return std::nullopt;
      return num(double(suffix == ".major" ? base->ver->major() : base->ver->minor()));
    }
  }
  return std::nullopt;
}

std::vector<alloc_entry> alloc_entries(const machine_facts& facts) {
  std::vector<alloc_entry> out;
  for (std::string_view var : kAllocConfVars) {
    if (const std::string* v = env_of(facts, var)) {
      alloc_entry e;
      e.var = std::string(var);
      e.raw = *v;
      e.conf = parse_alloc_conf(*v);
      out.push_back(std::move(e));
    }
  }
  for (alloc_entry& e : out)
    for (const alloc_entry& o : out)
      if (o.raw != e.raw) e.conflict = true;
  return out;
}

const derived_fact* kb_data::find_derived(std::string_view key) const {
  for (const derived_fact& d : derived)
    if (d.key == key) return &d;
  return nullptr;
}

}  // namespace gs
