// machine_facts for tests, built directly (no detector runs), in four shapes:
// - healthy boxes that fire no rule (r9700(), h200()) and setters that break one thing at a
//   time, for the rule tests;
// - report-shaped machines (amd_machine(), nvidia_machine()) that carry every identifier the
//   redaction must remove and a few problems, for the report tests;
// - a bare machine with one GPU (one_gpu()) or only a Python (facts_for()), for tests whose
//   answer depends on nothing else;
// - a sample finding and probe result to put beside them in a report.
// Values from research/detection.md and shared/fixtures/h200.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "core/facts.h"
#include "core/finding.h"
#include "core/probe_result.h"

namespace gs::test {

constexpr uint64_t GiB = 1ull << 30;

/// The R9700 as KFD reports it: the GPU of r9700() and amd_machine().
inline gpu_info r9700_gpu() {
  gpu_info g;
  g.vendor = "amd";
  g.arch = "gfx1201";
  g.name = "Radeon AI PRO R9700";
  g.pci_id = "1002:7551";
  g.vram_bytes = 32 * GiB;
  g.wave_size = 32;
  g.compute_units = 64;
  g.source = "kfd";
  g.gfx_target_version = 120001;
  g.kfd_node = 1;
  g.render_minor = 128;
  g.family = "rdna4";
  return g;
}

/// The H200 as /proc/driver/nvidia reports it: the GPU of h200() and nvidia_machine().
inline gpu_info h200_gpu() {
  gpu_info g;
  g.vendor = "nvidia";
  g.arch = "sm_90";
  g.name = "NVIDIA H200";
  g.pci_id = "10de:2335";
  g.vram_bytes = 141 * GiB;
  g.wave_size = 32;
  g.compute_units = 132;
  g.source = "proc-nvidia";
  g.compute_capability = "9.0";
  return g;
}

/// `name` `version` installed by pip under `site` (a venv's site-packages unless told).
inline void set_pkg(machine_facts& f, const std::string& name, const std::string& version,
                    const std::string& site = "/venv/lib/python3.12/site-packages") {
  f.python.packages[name] = {name, version, site, "pip", false};
}

/// amdgpu loaded and live, and ROCm `v` as the one install under /opt/rocm-`v`.
inline void set_amdgpu_rocm(machine_facts& f, const std::string& v) {
  f.stack.amdgpu_loaded = true;
  f.stack.amdgpu_initstate = "live";
  f.stack.rocm_installs = {{"/opt/rocm-" + v, v, true}};
  f.stack.rocm_version = v;
}

/// Radeon AI PRO R9700 (gfx1201) on ROCm 7.2.0 with torch 2.11.0+rocm7.2, 64 GiB RAM, swap,
/// /dev/kfd and renderD128 open. Mirrors the field-investigation machine, minus its problems.
inline machine_facts r9700() {
  machine_facts f;
  f.host.os_id = "ubuntu";
  f.host.os_version = "24.04";
  f.host.kernel = "6.14.0-36-generic";
  f.host.ram_total_bytes = 64 * GiB;
  f.host.ram_available_bytes = 60 * GiB;
  f.host.swap_total_bytes = 8 * GiB;
  f.gpus.push_back(r9700_gpu());
  f.access.push_back({"/dev/kfd", true, true, "", "render", true});
  f.access.push_back({"/dev/dri/renderD128", true, true, "", "render", true});
  set_amdgpu_rocm(f, "6.4.1");
  f.python.found = true;
  f.python.version = "3.12.3";
  f.python.env_kind = "venv";
  // torch 2.9 pins Triton 3.5 (GS-TRITON-017); torch 2.10/2.11 pin 3.6.0, whose pipeliner bug
  // on gfx12 is GS-TRITON-001, so a healthy R9700 is on 2.9.
  set_pkg(f, "torch", "2.9.1+rocm6.4");
  set_pkg(f, "pytorch-triton-rocm", "3.5.1");
  f.python.torch_hip = "6.4.43484";
  return f;
}

/// NVIDIA H200 (sm_90), driver 580.95.05, torch 2.11.0 for CUDA 13.0 with Triton 3.6.0, as on
/// the hardware-run machine (research fixtures/h200).
inline machine_facts h200() {
  machine_facts f;
  f.host.os_id = "ubuntu";
  f.host.os_version = "22.04";
  f.host.kernel = "5.15.0-130-generic";
  f.host.ram_total_bytes = 128 * GiB;
  f.host.swap_total_bytes = 0;
  f.gpus.push_back(h200_gpu());
  f.access.push_back({"/dev/nvidia0", true, true, "", "root", false});
  f.stack.nvidia_driver = "580.95.05";
  f.stack.cuda_driver_api = "13.0";
  f.python.found = true;
  f.python.version = "3.12.3";
  set_pkg(f, "torch", "2.11.0");
  set_pkg(f, "triton", "3.6.0");
  f.python.torch_cuda = "13.0";
  return f;
}

inline machine_facts with_env(machine_facts f, const std::string& k, const std::string& v) {
  f.env[k] = v;
  return f;
}

inline machine_facts with_pkg(machine_facts f, const std::string& name, const std::string& version) {
  set_pkg(f, name, version);
  return f;
}

inline machine_facts without_pkg(machine_facts f, const std::string& name) {
  f.python.packages.erase(name);
  return f;
}

inline machine_facts with_arch(machine_facts f, const std::string& arch, uint32_t gfx_target_version, int wave) {
  f.gpus.at(0).arch = arch;
  f.gpus.at(0).gfx_target_version = gfx_target_version;
  f.gpus.at(0).wave_size = wave;
  return f;
}

inline machine_facts with_rocm(machine_facts f, const std::string& v) {
  f.stack.rocm_version = v;
  f.stack.rocm_installs = {{"/opt/rocm-" + v, v, true}};
  return f;
}

/// A machine with one GPU and nothing else known: wave 32, no Python.
inline machine_facts one_gpu(const std::string& vendor, const std::string& name, const std::string& arch) {
  machine_facts f;
  gpu_info g;
  g.vendor = vendor;
  g.name = name;
  g.arch = arch;
  g.wave_size = 32;
  f.gpus.push_back(g);
  return f;
}

/// A machine with `python` found (a system interpreter) and, with `with_gpu`, one H200.
inline machine_facts facts_for(const std::string& python, bool with_gpu = false) {
  machine_facts f;
  if (with_gpu) f = one_gpu("nvidia", "NVIDIA H200", "sm_90");
  f.python.found = true;
  f.python.interpreter = python;
  f.python.version = "3";
  f.python.env_kind = "system";
  return f;
}


inline machine_facts amd_machine() {
  machine_facts f;
  f.host.os_id = "ubuntu";
  f.host.os_version = "24.04";
  f.host.os_pretty = "Ubuntu 24.04.1 LTS";
  f.host.kernel = "6.8.0-49-generic";
  f.host.machine = "x86_64";
  f.host.cpu_model = "AMD Ryzen 9 7950X 16-Core Processor";
  f.host.cpu_logical = 32;
  f.host.cpu_physical_cores = 16;
  f.host.ram_total_bytes = 64ull << 30;
  f.host.ram_available_bytes = 50ull << 30;
  f.host.swap_total_bytes = 8ull << 30;
  f.host.hostname = "gpu-box-01";
  f.host.user = "alice";
  f.host.home = "/home/alice";
  gpu_info g = r9700_gpu();
  g.pci_revision = "c0";
  g.pci_address = "0000:03:00.0";
  g.serial = "0x5c3e7a1b2c4d5e6f";
  f.gpus.push_back(g);
  f.access.push_back({"/dev/kfd", true, false, "EACCES", "render", false});
  f.access.push_back({"/dev/dri/renderD128", true, true, "", "render", false});
  set_amdgpu_rocm(f, "7.2.0");
  f.stack.libraries.push_back({"libamd_comgr", "/opt/rocm-7.2.0/lib/libamd_comgr.so.3", "libamd_comgr.so.3", "3.0", "rocm"});
  f.python.found = true;
  f.python.interpreter = "/home/alice/.venv/bin/python";
  f.python.version = "3.12.3";
  f.python.env_kind = "venv";
  f.python.prefix = "/home/alice/.venv";
  f.python.how_found = "VIRTUAL_ENV";
  f.python.site_packages = {"/home/alice/.venv/lib/python3.12/site-packages"};
  for (auto [n, v] : std::initializer_list<std::pair<const char*, const char*>>{
           {"torch", "2.11.0+rocm7.2"}, {"pytorch-triton-rocm", "3.6.0"}, {"bitsandbytes", "0.48.0"},
           {"flash-linear-attention", "0.5.0"}, {"transformers", "4.57.1"}, {"peft", "0.17.1"}, {"trl", "0.24.0"}})
    set_pkg(f, n, v, "/home/alice/.venv/lib/python3.12/site-packages");
  f.python.torch_hip = "7.2.26015";
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0";
  f.env["PYTORCH_HIP_ALLOC_CONF"] = "expandable_segments:True";
  f.env["VIRTUAL_ENV"] = "/home/alice/.venv";
  f.issues.push_back({"/sys/class/kfd/kfd/topology/nodes/2/properties", "EPERM: hidden by the container"});
  return f;
}

inline machine_facts nvidia_machine() {
  machine_facts f;
  f.host.os_id = "debian";
  f.host.os_version = "12";
  f.host.os_pretty = "Debian GNU/Linux 12 (bookworm)";
  f.host.kernel = "6.1.0-28-amd64";
  f.host.machine = "x86_64";
  f.host.cpu_model = "Intel(R) Xeon(R) Platinum 8480+";
  f.host.cpu_logical = 16;
  f.host.ram_total_bytes = 128ull << 30;
  f.host.in_container = true;
  f.host.container_kind = "docker";
  gpu_info g = h200_gpu();
  g.pci_address = "0000:18:00.0";
  g.vram_bytes = 150754820096ull;
  g.serial = "GPU-8f3c2a1e-9b7d-4c6e-a5f4-3d2b1c0e9f8a";
  f.gpus.push_back(g);
  f.stack.nvidia_driver = "580.159.04";
  f.stack.nvidia_open_module = true;
  f.stack.cuda_toolkit_version = "13.0.88";
  f.stack.cuda_toolkit_path = "/usr/local/cuda-13.0";
  f.stack.cuda_driver_api = "13.0";
  f.stack.libraries.push_back({"libnvrtc", "/usr/local/cuda-13.0/lib64/libnvrtc.so.13", "libnvrtc.so.13", "13.0.88", "system"});
  f.python.found = true;
  f.python.interpreter = "/usr/bin/python3";
  f.python.version = "3.11.2";
  f.python.env_kind = "system";
  set_pkg(f, "torch", "2.11.0+cu130", "/usr/lib/python3/dist-packages");
  set_pkg(f, "nvidia-cudnn-cu12", "9.1.0.70", "/usr/lib/python3/dist-packages");
  f.python.torch_cuda = "13.0";
  return f;
}

inline finding sample_finding(const char* id, severity s) {
  finding f;
  f.id = id;
  f.level = s;
  f.title = "HSA_OVERRIDE_GFX_VERSION=11.0.0 makes a gfx1201 run RDNA3 code";
  f.evidence = "HSA_OVERRIDE_GFX_VERSION=11.0.0 on gfx1201";
  f.remediation = "unset HSA_OVERRIDE_GFX_VERSION";
  f.refs = {"https://github.com/ROCm/ROCm/issues/4000"};
  f.rule_source = "matrix/rules/env.toml:12";
  return f;
}

inline probe_result sample_probe(const char* id, status s, const std::string& detail = "") {
  probe_result p;
  p.id = id;
  p.outcome = s;
  p.phase = "launch";
  p.duration_ms = 12.5;
  p.detail = detail;
  p.data = {{"tflops", 612.0}};
  return p;
}

/// Every detection issue as "source: message" lines, for a failed expectation to print.
inline std::string issues_text(const machine_facts& f) {
  std::string s;
  for (const detection_issue& i : f.issues) s += i.source + ": " + i.message + "\n";
  return s;
}

}  // namespace gs::test
