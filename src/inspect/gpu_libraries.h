// Which libraries `inspect` (without paths) and `check` look at: the native libraries of the
// Python environment's GPU packages (torch, bitsandbytes, triton, flash-attn, causal-conv1d,
// mamba-ssm, xformers, and the nvidia-* CUDA wheels torch loads), listed from each
// distribution's dist-info RECORD (the installer's own file list: no directory walk of a
// 10,000-file torch), plus the ROCm/CUDA libraries detection found. Files are not opened here.
#pragma once
#include <string>
#include <vector>

#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs {

struct gpu_library_ref {
  std::string path;     ///< as the machine names it ("/venv/.../torch/lib/libtorch_cuda.so")
  std::string package;  ///< "torch", "nvidia-cublas", "rocm" (detection origin) ...
};

/// True for a distribution whose native libraries are scanned (PEP 503 name).
bool is_gpu_package(const std::string& normalized_name);

/// Shared objects listed in a RECORD text: "torch/lib/libtorch_cuda.so,sha256=...,123" ->
/// "torch/lib/libtorch_cuda.so". Paths outside site-packages ("../../bin/x") are skipped.
std::vector<std::string> record_shared_objects(std::string_view record_text);

/// The libraries to scan for `facts` (python.site_packages + stack.libraries), de-duplicated.
std::vector<gpu_library_ref> find_gpu_libraries(const sysroot& sys, const machine_facts& facts);

}  // namespace gs
