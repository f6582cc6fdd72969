// The cpu backend's row for kernels/gdn_chunk.cu (src/runtime/runtime_cpu_kernels.cpp lists it):
// gdn_chunk_v1's arguments unpacked as the kernel declares them, run through gdn_chunk_cpu with
// the module's GS_STAGES, so `gpustack probe fla --device cpu` runs the same probe body.
#pragma once
#include "runtime/runtime_cpu.h"

namespace gs {

runtime_status run_gdn_chunk_v1_cpu(const cpu_launch& l, void** args);

}  // namespace gs
