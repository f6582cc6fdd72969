// CPU reference for kernels/gemm.cu: written to be read, not to be fast. Row-major C = A * B with
// A M x K and B K x N, fp32 accumulation in k order, bf16/fp16 inputs widened to fp32 first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gs {

/// The v2 tile shape. The probes pass these to the JIT as GS_GEMM_* defines and the cpu backend
/// uses them for grid coverage; kernels/gemm.cu's defaults are the same numbers (a test checks).
struct gemm_tiling {
  int bm = 128, bn = 128, bk = 8;  ///< block tile: rows of C, columns of C, k-step
  int tm = 8, tn = 8;              ///< per-thread register tile
  int threads_x() const { return bn / tn; }  ///< blockDim.x
  int threads_y() const { return bm / tm; }  ///< blockDim.y
};
inline constexpr gemm_tiling gemm_v2_tiling{};

/// Block size of the naive v1 kernels (one thread per element of C).
inline constexpr int gemm_v1_block = 16;

/// C[row][col] as the kernels compute it: acc = fma(a, b, acc) for k = 0..K-1, from 0.
float gemm_ref_element(const float* A, const float* B, int N, int K, int row, int col);

/// C[row][col] of C = A Bt^T with Bt N x K row-major (B given n-major, kernels/gemm_mma.cu's
/// layout): the same fma chain in k order.
float gemm_nt_ref_element(const float* A, const float* Bt, int K, int row, int col);

/// The block tile of kernels/gemm_mma.cu (rows of C, columns of C, k-step, threads) and its
/// shared memory per pipeline stage; the kernel's defines are the same numbers (a test checks).
struct gemm_mma_tiling {
  int bm = 128, bn = 256, bk = 32, threads = 256;
  /// K must be a multiple of this (16-byte copies of 16-bit elements).
  int k_multiple = 8;
  /// The same for elements of `elem_bytes` (fp8: 16; the fp8 entry moves its rows as 16-bit words).
  constexpr int k_multiple_for(int elem_bytes) const { return k_multiple * 2 / elem_bytes; }
  unsigned stage_bytes() const { return unsigned((bm + bn) * bk * 2); }
  /// Stages of the copy ring: 4 on CUDA, where cp.async overlaps the copies with the tensor cores
  /// (96 KiB: sm_80+ gives 99-227 KiB per block on opt-in); 2 elsewhere (48 KiB, under the 64 KiB
  /// of LDS a workgroup gets on RDNA and CDNA; their copies do not overlap anyway).
  int stages(bool cuda) const { return cuda ? 4 : 2; }
};
inline constexpr gemm_mma_tiling gemm_mma_tile{};

/// The sm_90a path of kernels/gemm_mma.cu (TMA + wgmma, gemm_mma.cu's GS_WG_* defines, a test
/// checks): block tile 128 x 256 x 64, one producer and two consumer warpgroups (384 threads),
/// a ring of 4 stages of 48 KiB. K must still be a multiple of 8: a tensor map's row stride is a
/// multiple of 16 bytes (cuTensorMapEncodeTiled).
struct gemm_wgmma_tiling {
  int bm = 128, bn = 256, bk = 64, threads = 384, stages = 4;
  /// The k-tile for elements of `elem_bytes`: a tile row is one 128-byte swizzle row whatever the
  /// type, so fp8 (gemm_mma_fp8) takes 128 k per tile, the same bytes per stage.
  constexpr int bk_for(int elem_bytes) const { return bk * 2 / elem_bytes; }
  constexpr unsigned stage_bytes() const { return unsigned((bm + bn) * bk * 2); }
  /// The ring, its full and empty mbarriers (8 B each per stage) and 1024 B of slack: the ring
  /// starts at the first 1024-aligned address (the 128-byte swizzle's atom), and dynamic shared
  /// memory is only promised 16-byte alignment. 4 x 48 KiB + 1088 = 197,696 B of the 227 KiB
  /// an sm_90 block may opt in to; 5 stages (246,848 B) would not fit.
  constexpr unsigned shared_bytes(int ring_stages) const { return unsigned(ring_stages) * (stage_bytes() + 16u) + 1024u; }
};
inline constexpr gemm_wgmma_tiling gemm_wgmma_tile{};

/// Row `row` of C = op(A) B, as gemm_ref_element computes each element (the same fma chain in k
/// order, bit for bit), for a checker that compares whole rows: `a_row` is that row of op(A)
/// (K floats), B is K x N row-major, or N x K (Bt, gemm_nt_ref_element's layout) when
/// `b_transposed`. Row-major B is walked row by row, not column by column: an 8-row check of a
/// 2048 x 21504 x 5376 GEMM strides through B 0.9 G times one element per cache line otherwise.
/// `abs_sum`, when given, gets sum_k |a_k b_kc| per column (the error bound's input, in double).
void gemm_ref_row(const float* a_row, const float* B, int N, int K, bool b_transposed, float* out, double* abs_sum);

/// Every element of C (M x N).
void gemm_ref(const float* A, const float* B, float* C, int M, int N, int K);

/// bf16 / fp16 bit patterns widened to fp32 (exact), as the kernels' loaders do.
std::vector<float> widen_bf16(const uint16_t* p, size_t n);
std::vector<float> widen_f16(const uint16_t* p, size_t n);
/// E4M3 codes widened to fp32 (exact; gs_fp8.h): OCP e4m3fn, or FNUZ (MI300) when `fnuz`.
std::vector<float> widen_fp8(const uint8_t* p, size_t n, bool fnuz);

}  // namespace gs
