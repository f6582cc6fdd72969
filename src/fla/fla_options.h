// What `gpustack probe fla` runs: the pipeline depths (--stages), the backends (--backends), the
// shape (defaults: one linear-attention layer of Qwen3.5, research kernel-specs.md 5.2) and the
// per-run settings. Parsing lives here so the CLI and the tests share it.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/ref/gdn_ref.h"

namespace gs {

/// The backends, in run order: the native kernel (the control), the Triton kernel, FLA itself.
inline const std::vector<std::string>& fla_all_backends() {
  static const std::vector<std::string> all{"native", "triton", "fla"};
  return all;
}

/// Highest pipeline depth accepted (Triton accepts any; FLA's configs go up to 5).
inline constexpr int fla_max_stage = 8;

/// "1..4", "2", "1,3", "1..2,4" -> sorted, distinct depths in 1..fla_max_stage; nullopt and
/// *why on anything else ("0", "4..1", "1..", "a").
std::optional<std::vector<int>> parse_stage_range(std::string_view text, std::string* why);
/// "native,triton,fla" (any subset, any order) -> the subset in run order; nullopt + *why on an
/// unknown or empty name.
std::optional<std::vector<std::string>> parse_backends(std::string_view text, std::string* why);

struct fla_settings {
  std::vector<int> stages{1, 2, 3, 4};
  std::vector<std::string> backends = fla_all_backends();
  /// A Qwen3.5 linear-attention layer as Qwen3_5TextConfig's defaults give it (the 9B shape, also
  /// Qwen3-Next's): 16 q/k heads, 32 value heads (each q/k head shared by 2), head dims 128.
  /// Qwen3.5-0.8B has 16 value heads (--value-heads 16, the shape of FLA's H200 timing).
  /// B = 2, T = 4096 as in that timing.
  gdn_shape shape{2, 4096, 16, 32, 128, 128};
  std::string dtype = "bf16";
  bool backward = false;
  int spin_stage = 0;        ///< --selftest-spin-stage: the triton backend never terminates at this depth
  unsigned seed = 20261202;  ///< inputs are seeded: every stage and backend sees the same tensors
  std::string device = "auto";
  /// The native backend's kernel: "v2" (kernels/gdn_chunk_v2.cu, matrix unit and async copies;
  /// v1 where the shape or the device's shared memory does not allow it) or "v1" (gdn_chunk.cu).
  std::string native_kernel = "v2";
  /// --compile-only --target ARCH: the triton backend's kernels compiled by Triton for ARCH (no GPU
  /// needed); "" = run on the GPU. --kernels: which of prep, state, out (comma list).
  std::string compile_target;
  std::string compile_kernels = "prep,state,out";
};

/// A --target Triton compiles for: "gfx" and 3-4 hex digits (HIP), or a compute capability as
/// "90" or "sm_90" (CUDA). "" when valid, else why not.
std::string check_compile_target(std::string_view arch);
/// --kernels: a comma list of prep, state, out (each at most once). "" when valid, else why not.
std::string check_compile_kernels(std::string_view list);

}  // namespace gs
