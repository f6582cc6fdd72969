// The matrix multiplications of one QLoRA training step of a registry model, as a BLAS sees
// them: the shapes the `blas.*` probes and the `py.matmul` step run (issue 17), one home for both.
//
// Convention (row-major, as torch sees it): C[m x n] = op(A)[m x k] * op(B)[k x n], op = transpose
// when trans_a / trans_b. For one nn.Linear W (out x in) at T tokens, x (T x in):
//   base, frozen (bitsandbytes dequantizes the 4-bit W to bf16/fp16, then F.linear):
//     fwd        y  = x W^T          m=T   n=out k=in   trans_b
//     dgrad      dx = dy W           m=T   n=in  k=out
//     (no weight gradient: W is frozen)
//   LoRA, A (r x in) and B (out x r), PEFT lora/layer.py Linear.forward:
//     result += lora_B(lora_A(dropout(x))) * scaling
//     a.fwd      h  = x A^T          m=T   n=r   k=in   trans_b
//     b.fwd      yl = h B^T          m=T   n=out k=r    trans_b
//     b.wgrad    dB = dy^T h         m=out n=r   k=T    trans_a
//     b.dgrad    dh = dy B           m=T   n=r   k=out
//     a.wgrad    dA = dh^T x         m=r   n=in  k=T    trans_a
//     a.dgrad    dx += dh A          m=T   n=in  k=r
// The LoRA GEMMs are the skinny ones (one side r = 8..64): memory-bound, far from the card's
// matrix peak, and the shapes where field reports show vendor kernels failing (GS-BLAS-003).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/model_registry.h"

namespace gs {

struct qlora_gemm {
  std::string name;    ///< "q_proj.fwd", "q_proj.lora_b.wgrad.r16"
  std::string module;  ///< the nn.Linear ("q_proj")
  std::string role;    ///< "fwd", "dgrad", "lora_a.fwd", "lora_b.wgrad", ...
  int rank = 0;        ///< 0 for the base GEMMs
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  int uses_per_step = 0;  ///< how many times one step runs this exact shape (layers x modules)

  int64_t flops() const { return 2 * m * n * k; }
  /// Bytes a GEMM must move at least: A, B read and C written once, at elem_bytes each.
  int64_t min_bytes(int elem_bytes) const { return int64_t(elem_bytes) * (m * k + k * n + m * n); }
};

/// Every distinct GEMM of one QLoRA step (forward and backward) of `m` at `tokens` tokens, LoRA on
/// m.lora_targets at each of `ranks`; shapes that occur in several modules or layers are listed
/// once, under the first module's name, with uses_per_step counting them all. Order: base GEMMs
/// in module order, then LoRA GEMMs by rank.
std::vector<qlora_gemm> qlora_step_gemms(const model_spec& m, int64_t tokens, const std::vector<int>& ranks);

}  // namespace gs
