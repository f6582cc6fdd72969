// Probe llama_cpp.build (issue 6, step 11): a llama-server or llama-cli on PATH (or
// --set llama_cpp.bin=PATH), its version, the GPU backends it was built with (GGML_CUDA,
// GGML_HIP, Vulkan; from its ggml libraries and its own startup lines), the GPU targets compiled
// into those libraries, and the devices `--list-devices` shows. A HIP build without gfx1201
// code, or a CPU-only build on a GPU machine, is what users hit.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "probes/probe.h"
#include "sys/sysroot.h"

namespace gs {

extern const probe_spec llama_cpp_probe;

struct llama_device {
  std::string backend;  ///< "CUDA", "ROCm", "Vulkan", "Metal", "SYCL", "CPU"
  std::string name;     ///< "NVIDIA H200", "AMD Radeon AI PRO R9700"
  std::string detail;   ///< the rest of its line ("gfx1201 (0x1201), VMM: no, Wave Size: 32")
};

struct llama_build_info {
  std::string version;                    ///< "6123 (1d1e6a90)"
  std::string compiler;                   ///< "cc (Ubuntu 13.3.0) 13.3.0 for x86_64-linux-gnu"
  std::set<std::string> backends;         ///< GPU backends seen in the output or the libraries
  std::vector<llama_device> devices;      ///< de-duplicated by backend + name
  std::set<std::string> archs;            ///< code targets: "sm_90", "gfx1201" (ARCHS = or the library scan)
  std::map<std::string, std::string> features;  ///< system_info "KEY = VALUE" pairs (FA_ALL_QUANTS ...)
};

/// Parse what `--version` / `--list-devices` print (any llama.cpp from 2024 on); adds to `info`.
void parse_llama_output(const std::string& text, llama_build_info& info);
/// llama-server, then llama-cli, in the PATH directories (from the sysroot's environment).
std::vector<std::string> find_llama_binaries(const sysroot& sys);
/// The ggml backend libraries beside the binary (same dir, ../lib, ../lib64): backend -> path.
std::map<std::string, std::string> find_ggml_backend_libs(const sysroot& sys, const std::string& binary);
/// Verdict from what was learnt, against the GPUs detection found.
probe_result llama_cpp_result(const std::string& binary, const llama_build_info& info, const machine_facts* facts);

}  // namespace gs
