// How the probes compile and launch each kernel source, for the tests that check a kernel fits a
// GPU at that launch (clang_gfx_compile_test.cpp for AMD, nvrtc_compile_test.cpp for NVIDIA): the
// defines they pass, the dynamic shared memory they ask for, the block they launch. Each figure
// comes from the same constant the probe uses; a source no probe adds defines to compiles as is.
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "fla/fla_options.h"
#include "kernels/gdn_v2_layout.h"
#include "kernels/ref/gdn_ref.h"
#include "kernels/ref/gemm_ref.h"

namespace gs::test {

/// The deepest pipeline `probe fla` runs by default: the largest ring, so the largest shared
/// memory, of its kernels (deeper --stages fall back to v1 when they do not fit; fla_probes.cpp).
inline int fla_deepest_default_stage() {
  const fla_settings s;
  return *std::max_element(s.stages.begin(), s.stages.end());
}

/// Whether the fla probe puts U and P in gdn_chunk_v2's ring: on CUDA (every sm_80+ part opts in
/// to the ~94 KiB at depth 4), never on HIP's 64 KiB (src/fla/fla_probes.cpp).
inline bool gdn_v2_ring_up(bool cuda) { return cuda; }

/// The defines the probes compile `source` with (src/fla/fla_probes.cpp, probes/gemm_probes.cpp,
/// probes/gemm_mma_probe.cpp).
inline std::vector<std::string> probe_defines(const std::string& source, bool cuda) {
  const std::string stages = "GS_STAGES=" + std::to_string(fla_deepest_default_stage());
  const std::string dk = "GS_DK=" + std::to_string(fla_settings{}.shape.K);
  if (source == "gdn_chunk.cu") return {stages, dk, "GS_BV=8", "GS_ROWS=" + std::to_string(gdn_tile_rows)};
  if (source == "gdn_chunk_v2.cu")
    return {stages, dk, std::string("GS_V2_RING_UP=") + (gdn_v2_ring_up(cuda) ? "1" : "0")};
  if (source == "gemm.cu") {
    const gemm_tiling& t = gemm_v2_tiling;
    return {fmt::format("GS_GEMM_BM={}", t.bm), fmt::format("GS_GEMM_BN={}", t.bn), fmt::format("GS_GEMM_BK={}", t.bk),
            fmt::format("GS_GEMM_TM={}", t.tm), fmt::format("GS_GEMM_TN={}", t.tn)};
  }
  if (source == "gemm_mma.cu") return {fmt::format("GS_MMA_STAGES={}", gemm_mma_tile.stages(cuda))};
  return {};
}

/// The dynamic shared memory (extern __shared__) a probe launches `kernel` with; nullopt for a
/// kernel this table does not know, which a test holding a source with extern __shared__ to its
/// launch must report (the code object cannot say).
inline std::optional<unsigned> probe_dynamic_shared(const std::string& kernel, bool cuda) {
  const int stages = fla_deepest_default_stage(), dk = fla_settings{}.shape.K;
  if (kernel == "gdn_v2_prep") return gdn2_prep_smem_bytes(stages);
  if (kernel == "gdn_v2_state") return gdn2_state_smem_bytes(stages, dk, gdn_v2_ring_up(cuda));
  if (kernel == "gemm_mma_bf16" || kernel == "gemm_mma_f16" || kernel == "gemm_mma_fp8") return gemm_mma_tile.stages(cuda) * gemm_mma_tile.stage_bytes();
  return std::nullopt;
}

/// The largest block any probe launches without __launch_bounds__ to say so: 256 threads
/// (tensor_probes.cpp and bandwidth_probe.cpp block_threads, quant_probes.cpp block_1d,
/// quant_int8_probe.cpp, gemm's 16 x 16 tiles; fla's 4 waves are 128 on NVIDIA).
inline constexpr int probe_max_block_threads = 256;

}  // namespace gs::test
