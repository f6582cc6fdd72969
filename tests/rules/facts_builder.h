// machine_facts for rule tests, built directly (no detector runs): a healthy gfx1201 box and a
// healthy H200 box that fire no rule, and small setters to break one thing at a time.
#pragma once
#include <cstdint>
#include <string>

#include "core/facts.h"

namespace gs::test {

constexpr uint64_t GiB = 1ull << 30;

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
  f.gpus.push_back(g);
  f.access.push_back({"/dev/kfd", true, true, "", "render", true});
  f.access.push_back({"/dev/dri/renderD128", true, true, "", "render", true});
  f.stack.amdgpu_loaded = true;
  f.stack.amdgpu_initstate = "live";
  f.stack.rocm_installs.push_back({"/opt/rocm-6.4.1", "6.4.1", true});
  f.stack.rocm_version = "6.4.1";
  f.python.found = true;
  f.python.version = "3.12.3";
  f.python.env_kind = "venv";
  // torch 2.9 pins Triton 3.5 (GS-TRITON-017); torch 2.10/2.11 pin 3.6.0, whose pipeliner bug
  // on gfx12 is GS-TRITON-001, so a healthy R9700 is on 2.9.
  f.python.packages["torch"] = {"torch", "2.9.1+rocm6.4", "/venv/lib/python3.12/site-packages", "pip", false};
  f.python.packages["pytorch-triton-rocm"] = {"pytorch-triton-rocm", "3.5.1", "/venv/lib/python3.12/site-packages", "pip", false};
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
  f.gpus.push_back(g);
  f.access.push_back({"/dev/nvidia0", true, true, "", "root", false});
  f.stack.nvidia_driver = "580.95.05";
  f.stack.cuda_driver_api = "13.0";
  f.python.found = true;
  f.python.version = "3.12.3";
  f.python.packages["torch"] = {"torch", "2.11.0", "/venv/lib/python3.12/site-packages", "pip", false};
  f.python.packages["triton"] = {"triton", "3.6.0", "/venv/lib/python3.12/site-packages", "pip", false};
  f.python.torch_cuda = "13.0";
  return f;
}

inline machine_facts with_env(machine_facts f, const std::string& k, const std::string& v) {
  f.env[k] = v;
  return f;
}

inline machine_facts with_pkg(machine_facts f, const std::string& name, const std::string& version) {
  f.python.packages[name] = {name, version, "/venv/lib/python3.12/site-packages", "pip", false};
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

}  // namespace gs::test
