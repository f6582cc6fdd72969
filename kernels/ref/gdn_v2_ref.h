// CPU reference of kernels/gdn_chunk_v2.cu: the same two kernels with the same intermediates
// (U, P, G, rk, rq per chunk, laid out as kernels/gdn_v2_layout.h says), the same order of work
// per 16-row tile and the same bf16 hi + lo split of every fp32 operand that meets the matrix
// unit, so its rounding is the GPU kernel's up to the order of the fp32 sums. The cpu backend
// runs these for gdn_v2_prep / gdn_v2_state (src/fla/gdn_cpu_kernel.cpp), and the tests hold
// them to the fp64 recurrence (kernels/ref/gdn_ref.h) at the probe's tolerance.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/ref/gdn_ref.h"

namespace gs {

/// Floats the prep kernel writes for a shape: B x HV x chunks x (2 x 64 x 64 + 3 x 64).
size_t gdn_v2_prep_floats(const gdn_shape& s);

/// "" when gdn_chunk_v2 handles the shape, else why not (the probe then runs v1).
std::string gdn_v2_unsupported(const gdn_shape& s);

/// gdn_v2_prep over every (chunk, value head, sequence). scale <= 0 means K^-0.5.
void gdn_v2_prep_cpu(const gdn_shape& s, const uint16_t* q, const uint16_t* k, const float* g, const uint16_t* beta,
                     float scale, float* prep);

/// gdn_v2_state over every (16 value columns, value head, sequence); h0 may be null.
void gdn_v2_state_cpu(const gdn_shape& s, const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* h0,
                      const float* prep, float* o, float* ht);

/// Both, on gdn_inputs: o [B,T,HV,V] and ht [B,HV,K,V] resized and written.
void gdn_v2_cpu(const gdn_inputs& in, double scale, std::vector<float>& o, std::vector<float>& ht);

}  // namespace gs
