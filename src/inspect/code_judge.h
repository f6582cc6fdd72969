// The verdict for one library on one GPU, from its code units (device_code_library): a unit is
// a fatbin container or an offload bundle, roughly one translation unit, and the runtime needs
// a runnable image in the unit of the kernel it launches. So a library where every unit has
// code for the GPU "runs"; one where none has is the hipErrorNoBinaryForGpu / "no kernel image
// is available" failure, predicted before anything runs. Units without code for the GPU next
// to units with it are common by design (sm_90a-only Hopper kernels in a library that also
// carries sm_100a-only ones): "partial", reported but not a failure.
#pragma once
#include <string>
#include <vector>

#include "core/facts.h"
#include "inspect/code_compat.h"

namespace gs {

enum class code_verdict {
  runs,         ///< every unit has native code (SASS / a matching code object)
  jit,          ///< every unit runs, some only through the driver's PTX JIT
  partial,      ///< some units have nothing this GPU runs
  none,         ///< no unit has code this GPU runs: the load fails
  no_gpu_code,  ///< the library carries no device code at all
  unknown,      ///< no GPU to judge for
  error,        ///< unreadable, and nothing parsed
};

const char* verdict_name(code_verdict v);

struct code_judgement {
  code_verdict verdict = code_verdict::unknown;
  int units = 0;          ///< code units of any vendor
  int units_native = 0;   ///< with native code for the GPU
  int units_jit = 0;      ///< runnable only through PTX JIT
  std::vector<std::string> runnable;  ///< the codes that run ("sm_90", "compute_90")
  std::string detail;     ///< one line: "2 of 1650 units carry nothing for sm_90 (sm_100a)"
};

/// Does one code name ("sm_90", "compute_80", "gfx90a:xnack+") run on `gpu`? `jit` as in
/// nvidia_code_runs.
bool code_runs(const gpu_target& gpu, const std::string& code, bool* jit = nullptr);

code_judgement judge_library(const device_code_library& lib, const gpu_target& gpu);

/// Every distinct code name across the units, sorted NVIDIA SASS, PTX, then AMD.
std::vector<std::string> all_codes(const device_code_library& lib);

}  // namespace gs
