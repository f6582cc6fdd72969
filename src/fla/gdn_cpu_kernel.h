// The cpu backend's rows for kernels/gdn_chunk.cu and kernels/gdn_chunk_v2.cu
// (src/runtime/runtime_cpu_kernels.cpp lists them): each kernel's arguments unpacked as it
// declares them, run through its CPU reference (gdn_chunk_cpu with the module's GS_STAGES;
// gdn_v2_prep_cpu / gdn_v2_state_cpu), so `gpustack probe fla --device cpu` runs the same probe body.
#pragma once
#include "runtime/runtime_cpu.h"

namespace gs {

runtime_status run_gdn_chunk_v1_cpu(const cpu_launch& l, void** args);
runtime_status run_gdn_v2_prep_cpu(const cpu_launch& l, void** args);
runtime_status run_gdn_v2_state_cpu(const cpu_launch& l, void** args);

}  // namespace gs
