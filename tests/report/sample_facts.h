// Machines for the report tests: an empty one, an RDNA4 AMD box and an H200 host, shaped like
// what the detectors fill (values from research/detection.md and shared/fixtures/h200).
#pragma once
#include "core/facts.h"
#include "core/finding.h"
#include "core/probe_result.h"

namespace gs::testing {

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
  gpu_info g;
  g.vendor = "amd";
  g.arch = "gfx1201";
  g.name = "Radeon AI PRO R9700";
  g.pci_id = "1002:7551";
  g.pci_revision = "c0";
  g.pci_address = "0000:03:00.0";
  g.vram_bytes = 32ull << 30;
  g.wave_size = 32;
  g.compute_units = 64;
  g.source = "kfd";
  g.gfx_target_version = 120001;
  g.kfd_node = 1;
  g.render_minor = 128;
  g.family = "rdna4";
  g.serial = "0x5c3e7a1b2c4d5e6f";
  f.gpus.push_back(g);
  f.access.push_back({"/dev/kfd", true, false, "EACCES", "render", false});
  f.access.push_back({"/dev/dri/renderD128", true, true, "", "render", false});
  f.stack.amdgpu_loaded = true;
  f.stack.amdgpu_initstate = "live";
  f.stack.rocm_installs.push_back({"/opt/rocm-7.2.0", "7.2.0", true});
  f.stack.rocm_version = "7.2.0";
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
    f.python.packages[n] = {n, v, "/home/alice/.venv/lib/python3.12/site-packages", "pip", false};
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
  gpu_info g;
  g.vendor = "nvidia";
  g.arch = "sm_90";
  g.name = "NVIDIA H200";
  g.pci_id = "10de:2335";
  g.pci_address = "0000:18:00.0";
  g.vram_bytes = 150754820096ull;
  g.wave_size = 32;
  g.compute_units = 132;
  g.source = "proc-nvidia";
  g.compute_capability = "9.0";
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
  f.python.packages["torch"] = {"torch", "2.11.0+cu130", "/usr/lib/python3/dist-packages", "pip", false};
  f.python.packages["nvidia-cudnn-cu12"] = {"nvidia-cudnn-cu12", "9.1.0.70", "/usr/lib/python3/dist-packages", "pip", false};
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

}  // namespace gs::testing
