// `check`'s view of device code: scan the Python environment's GPU libraries (headers only; see
// docs/inspect.md for the cost) into machine_facts.device_code, and answer the per-GPU facts
// the GS-BIN rules read.
#pragma once
#include <string>

#include "core/facts.h"
#include "inspect/code_judge.h"
#include "sys/sysroot.h"

namespace gs {

/// Fill facts.device_code from find_gpu_libraries (a captured sysroot maps paths under its root).
void detect_device_code(const sysroot& sys, machine_facts& facts);

/// "libtorch_cuda.so (torch); libcudnn.so.9 (nvidia-cudnn)" for the libraries whose verdict on
/// `gpu` is `v`; "" when none (or the GPU's arch is unknown).
std::string libraries_with_verdict(const machine_facts& facts, const gpu_info& gpu, code_verdict v);

}  // namespace gs
