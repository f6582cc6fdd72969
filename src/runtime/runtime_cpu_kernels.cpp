// The cpu backend's kernel table: for each extern "C" kernel in kernels/*.cu, a function that
// unpacks the launch arguments exactly as the GPU kernel declares them, works out which elements
// the launched grid covers (a grid that is too small leaves elements unwritten, as on a GPU) and
// computes them with the CPU reference from kernels/ref/. A new kernel adds one row here.
#include <algorithm>
#include <chrono>
#include <thread>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "fla/gdn_cpu_kernel.h"
#include "kernels/ref/copy_bandwidth_ref.h"
#include "kernels/ref/gemm_ref.h"
#include "kernels/ref/reduce_sum_ref.h"
#include "kernels/ref/vector_add_ref.h"
#include "quant/cpu_kernels.h"
#include "runtime/runtime_cpu.h"

namespace gs {
namespace {

// ---- vector_add.cu ---------------------------------------------------------------------------

runtime_status run_vector_add_v1(const cpu_launch& l, void** args) {
  auto a = launch_arg<const float*>(args, 0), b = launch_arg<const float*>(args, 1);
  auto c = launch_arg<float*>(args, 2);
  unsigned n = launch_arg<unsigned>(args, 3);
  size_t covered = size_t(std::min<uint64_t>(n, l.threads_x()));
  size_t bytes = covered * sizeof(float);
  if (covered && (!l.valid_range(a, bytes) || !l.valid_range(b, bytes))) return illegal_address("vector_add_v1", "input");
  if (covered && !l.valid_range(c, bytes)) return illegal_address("vector_add_v1", "output");
  vector_add_ref(a, b, c, covered);
  return runtime_status::success();
}

// ---- reduce_sum.cu ---------------------------------------------------------------------------

runtime_status run_reduce_sum_v1(const cpu_launch& l, void** args) {
  auto x = launch_arg<const float*>(args, 0);
  auto partial = launch_arg<float*>(args, 1);
  unsigned n = launch_arg<unsigned>(args, 2);
  if (l.dims.block[1] != 1 || l.dims.block[2] != 1)
    return runtime_status::failure("reduce_sum_v1", 1, "reduce_sum_v1 is a 1-D kernel (blockDim.y = blockDim.z = 1)");
  if (n && !l.valid_range(x, size_t(n) * sizeof(float))) return illegal_address("reduce_sum_v1", "input");
  if (!l.valid_range(partial, size_t(l.dims.grid[0]) * sizeof(float))) return illegal_address("reduce_sum_v1", "output");
  if (!reduce_sum_blocks_ref(x, n, partial, l.dims.grid[0], l.dims.block[0], unsigned(l.wave_size)))
    return runtime_status::failure(
        "reduce_sum_v1", 2,
        "blockDim.x " + std::to_string(l.dims.block[0]) + " is not a multiple of the wave size " +
            std::to_string(l.wave_size) + " (or exceeds 1024): the kernel's butterfly would read lanes that do not exist");
  return runtime_status::success();
}

// ---- copy_bandwidth.cu -----------------------------------------------------------------------

runtime_status run_copy(const char* name, const cpu_launch& l, void** args, bool grid_stride) {
  auto src = launch_arg<const float*>(args, 0);
  auto dst = launch_arg<float*>(args, 1);
  auto n = launch_arg<unsigned long long>(args, 2);
  // v1 covers one element per thread; v2's grid-stride loop covers everything.
  uint64_t covered = grid_stride ? n : std::min<uint64_t>(n, l.threads_x());
  size_t bytes = size_t(covered) * sizeof(float);
  if (covered && !l.valid_range(src, bytes)) return illegal_address(name, "source");
  if (covered && !l.valid_range(dst, bytes)) return illegal_address(name, "destination");
  if (grid_stride && (reinterpret_cast<uintptr_t>(src) % 16 || reinterpret_cast<uintptr_t>(dst) % 16))
    return runtime_status::failure(name, 716, "copy_v2 needs 16-byte aligned pointers (misaligned address)");
  copy_ref(src, dst, size_t(covered));
  return runtime_status::success();
}
runtime_status run_copy_v1(const cpu_launch& l, void** args) { return run_copy("copy_v1", l, args, false); }
runtime_status run_copy_v2(const cpu_launch& l, void** args) { return run_copy("copy_v2", l, args, true); }

// ---- gemm.cu ---------------------------------------------------------------------------------

enum class gemm_input { f32, bf16, f16, fp8 };

runtime_status run_gemm(const char* name, gemm_input in, bool tiled, const cpu_launch& l, void** args) {
  const void* A = launch_arg<const void*>(args, 0);
  const void* B = launch_arg<const void*>(args, 1);
  auto C = launch_arg<float*>(args, 2);
  int M = launch_arg<int>(args, 3), N = launch_arg<int>(args, 4), K = launch_arg<int>(args, 5);
  if (M < 0 || N < 0 || K < 0) return runtime_status::failure(name, 1, "negative matrix dimension");

  uint64_t rows_reach, cols_reach;
  if (tiled) {
    gemm_tiling t = gemm_v2_tiling;
    t.bm = l.define_int("GS_GEMM_BM", t.bm);
    t.bn = l.define_int("GS_GEMM_BN", t.bn);
    t.tm = l.define_int("GS_GEMM_TM", t.tm);
    t.tn = l.define_int("GS_GEMM_TN", t.tn);
    // The tiled kernel indexes its register tile from threadIdx and assumes this exact block.
    if (t.tm <= 0 || t.tn <= 0 || l.dims.block[0] != unsigned(t.threads_x()) ||
        l.dims.block[1] != unsigned(t.threads_y()) || l.dims.block[2] != 1)
      return runtime_status::failure(name, 2,
                                     "block must be (" + std::to_string(t.threads_x()) + ", " +
                                         std::to_string(t.threads_y()) + ", 1) for this tile shape");
    rows_reach = uint64_t(l.dims.grid[1]) * t.bm;
    cols_reach = uint64_t(l.dims.grid[0]) * t.bn;
  } else {
    rows_reach = uint64_t(l.dims.grid[1]) * l.dims.block[1];
    cols_reach = uint64_t(l.dims.grid[0]) * l.dims.block[0];
  }
  int rows = int(std::min<uint64_t>(M, rows_reach)), cols = int(std::min<uint64_t>(N, cols_reach));
  if (rows == 0 || cols == 0) return runtime_status::success();

  size_t elem = in == gemm_input::f32 ? 4 : 2;
  size_t a_n = size_t(M) * K, b_n = size_t(K) * N;
  if ((a_n && !l.valid_range(A, a_n * elem)) || (b_n && !l.valid_range(B, b_n * elem)))
    return illegal_address(name, "input");
  if (!l.valid_range(C, (size_t(rows - 1) * N + cols) * sizeof(float))) return illegal_address(name, "output");

  std::vector<float> a_wide, b_wide;
  const float *a = static_cast<const float*>(A), *b = static_cast<const float*>(B);
  if (in != gemm_input::f32) {
    auto widen = in == gemm_input::bf16 ? widen_bf16 : widen_f16;
    a_wide = widen(static_cast<const uint16_t*>(A), a_n);
    b_wide = widen(static_cast<const uint16_t*>(B), b_n);
    a = a_wide.data();
    b = b_wide.data();
  }
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) C[size_t(r) * N + c] = gemm_ref_element(a, b, N, K, r, c);
  return runtime_status::success();
}

#define GS_GEMM_ADAPTER(kernel, input, tiled) \
  runtime_status run_##kernel(const cpu_launch& l, void** args) { return run_gemm(#kernel, input, tiled, l, args); }
GS_GEMM_ADAPTER(gemm_f32_v1, gemm_input::f32, false)
GS_GEMM_ADAPTER(gemm_bf16_v1, gemm_input::bf16, false)
GS_GEMM_ADAPTER(gemm_f16_v1, gemm_input::f16, false)
GS_GEMM_ADAPTER(gemm_f32_v2, gemm_input::f32, true)
GS_GEMM_ADAPTER(gemm_bf16_v2, gemm_input::bf16, true)
GS_GEMM_ADAPTER(gemm_f16_v2, gemm_input::f16, true)
#undef GS_GEMM_ADAPTER

// ---- gemm_mma.cu -----------------------------------------------------------------------------

// C = A Bt^T (Bt N x K), block of gemm_mma_tile.threads covering 128 x 256 of C; A and Bt hold
// 16-bit (bf16/fp16) or 8-bit codes. fp8 is OCP E4M3, the encoding of Hopper and RDNA4, which the
// probe asks for on the cpu backend (fp8_type_for). K is a multiple of one 16-byte row piece
// (8 16-bit or 16 8-bit elements), as on the GPU.
runtime_status run_gemm_mma(const char* name, gemm_input in, const cpu_launch& l, void** args) {
  const size_t elem = in == gemm_input::fp8 ? 1 : 2;
  const auto* A = launch_arg<const unsigned char*>(args, 0);
  const auto* Bt = launch_arg<const unsigned char*>(args, 1);
  auto C = launch_arg<float*>(args, 2);
  int M = launch_arg<int>(args, 3), N = launch_arg<int>(args, 4), K = launch_arg<int>(args, 5);
  const gemm_mma_tiling& t = gemm_mma_tile;
  if (M < 0 || N < 0 || K < 0) return runtime_status::failure(name, 1, "negative matrix dimension");
  if (K % t.k_multiple_for(int(elem)))
    return runtime_status::failure(name, 1, "K must be a multiple of " + std::to_string(t.k_multiple_for(int(elem))) + " (16-byte rows)");
  if (l.dims.block[0] != unsigned(t.threads) || l.dims.block[1] != 1 || l.dims.block[2] != 1)
    return runtime_status::failure(name, 2, "block must be (" + std::to_string(t.threads) + ", 1, 1)");
  int rows = int(std::min<uint64_t>(M, uint64_t(l.dims.grid[1]) * t.bm));
  int cols = int(std::min<uint64_t>(N, uint64_t(l.dims.grid[0]) * t.bn));
  if (rows == 0 || cols == 0) return runtime_status::success();
  size_t a_n = size_t(M) * K, b_n = size_t(N) * K;
  if ((a_n && !l.valid_range(A, a_n * elem)) || (b_n && !l.valid_range(Bt, b_n * elem))) return illegal_address(name, "input");
  if (!l.valid_range(C, (size_t(rows - 1) * N + cols) * sizeof(float))) return illegal_address(name, "output");
  auto widen = [&](const unsigned char* p, size_t n) {
    if (in == gemm_input::fp8) return widen_fp8(p, n, false);
    const auto* w = reinterpret_cast<const uint16_t*>(p);
    return in == gemm_input::bf16 ? widen_bf16(w, n) : widen_f16(w, n);
  };
  std::vector<float> a = widen(A, a_n), b = widen(Bt, b_n);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) C[size_t(r) * N + c] = gemm_nt_ref_element(a.data(), b.data(), K, r, c);
  return runtime_status::success();
}
runtime_status run_gemm_mma_bf16(const cpu_launch& l, void** args) { return run_gemm_mma("gemm_mma_bf16", gemm_input::bf16, l, args); }
runtime_status run_gemm_mma_f16(const cpu_launch& l, void** args) { return run_gemm_mma("gemm_mma_f16", gemm_input::f16, l, args); }
runtime_status run_gemm_mma_fp8(const cpu_launch& l, void** args) { return run_gemm_mma("gemm_mma_fp8", gemm_input::fp8, l, args); }

// ---- spin_forever.cu ------------------------------------------------------------------------

// Waits for a flag nothing sets, as the GPU kernel does, but asleep: a 1 ms poll costs no CPU,
// so on the cpu backend too the watchdog sees a wait that makes no progress.
runtime_status run_spin_on_flag_v1(const cpu_launch& l, void** args) {
  auto flag = launch_arg<const volatile unsigned*>(args, 0);
  if (!l.valid_range(const_cast<const unsigned*>(flag), sizeof(unsigned))) return illegal_address("spin_on_flag_v1", "flag");
  while (*flag == 0u) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return runtime_status::success();
}

const cpu_kernel kernel_table[] = {
    {"vector_add.cu", "vector_add_v1", run_vector_add_v1},
    {"reduce_sum.cu", "reduce_sum_v1", run_reduce_sum_v1},
    {"copy_bandwidth.cu", "copy_v1", run_copy_v1},
    {"copy_bandwidth.cu", "copy_v2", run_copy_v2},
    {"gemm.cu", "gemm_f32_v1", run_gemm_f32_v1},
    {"gemm.cu", "gemm_bf16_v1", run_gemm_bf16_v1},
    {"gemm.cu", "gemm_f16_v1", run_gemm_f16_v1},
    {"gemm.cu", "gemm_f32_v2", run_gemm_f32_v2},
    {"gemm.cu", "gemm_bf16_v2", run_gemm_bf16_v2},
    {"gemm.cu", "gemm_f16_v2", run_gemm_f16_v2},
    {"gemm_mma.cu", "gemm_mma_bf16", run_gemm_mma_bf16},
    {"gemm_mma.cu", "gemm_mma_f16", run_gemm_mma_f16},
    {"gemm_mma.cu", "gemm_mma_fp8", run_gemm_mma_fp8},
    {"spin_forever.cu", "spin_on_flag_v1", run_spin_on_flag_v1},
    {"gdn_chunk.cu", "gdn_chunk_v1", run_gdn_chunk_v1_cpu},
    {"gdn_chunk_v2.cu", "gdn_v2_prep", run_gdn_v2_prep_cpu},
    {"gdn_chunk_v2.cu", "gdn_v2_state", run_gdn_v2_state_cpu},
};

}  // namespace

std::span<const cpu_kernel> cpu_kernels() {
  // This file's table, then the quantization kernels' (src/quant/cpu_kernels.cpp).
  static const std::vector<cpu_kernel> all = [] {
    std::vector<cpu_kernel> v(std::begin(kernel_table), std::end(kernel_table));
    std::span<const cpu_kernel> quant = cpu_quant_kernels();
    v.insert(v.end(), quant.begin(), quant.end());
    return v;
  }();
  return all;
}

}  // namespace gs
