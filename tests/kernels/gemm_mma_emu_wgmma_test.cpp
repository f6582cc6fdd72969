// kernels/gemm_mma.cu's sm_90a path (TMA + wgmma, tests/kernels/wgmma_emu.h) against the
// reference, with the tensor maps the probe builds (gemm_wgmma_maps). Sizes cross every edge:
// M = 150 and N = 270 leave partial block tiles both ways (2 x 2 blocks of 128 x 256), K = 360 is
// 5 full k-tiles of 64 and one of 40 (TMA zero-fills the rest), and 6 k-tiles wrap the 4-stage
// ring, so the producer waits on `empty` and the parities flip. The emulated shared memory
// starts at shared address 16, so the kernel's alignment of its ring to 1024 B is exercised.
// ~0.35 s per case here (Release, 2 shared cores): 4 blocks x 256 consumer threads x 24 emulated
// m64n256k16 products. The fp8 entry (gemm_mma_fp8: uint8 maps, 128-k tiles, m64n256k32 e4m3) runs
// at K = 680: 5 full k-tiles of 128 and one of 40, 6 k-tiles again (~0.7 s: each product has twice
// the k), every OCP code but NaN in the inputs, checked with gemm_fp8_error_bound.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#define GS_WARP_SIZE 32
#include "kernels/wgmma_emu.h"

#include "kernels/ref/gemm_ref.h"
#include "probes/gemm_inputs.h"
#include "probes/gemm_mma_probe.h"

namespace emu_wgmma {
#define GS_MMA_WGMMA 1
alignas(1024) static unsigned char smem_storage[16 + gs::gemm_wgmma_tile.shared_bytes(gs::gemm_wgmma_tile.stages)];
static unsigned char* const gs_smem = smem_storage + 16;  // shared address 16: not 1024-aligned
#include "kernels/gemm_mma.cu"
#undef GS_MMA_WGMMA
}  // namespace emu_wgmma

namespace {

struct wgmma_emu_run {
  int bad = 0;            // elements outside the bound
  int wrote_past_c = 0;   // poison changed after C
  std::string first_bad;  // "C[r][c] = got, reference want"
};

// Random A (M x K) and Bt (N x K) of `type` (bf16, fp16 or OCP fp8, gs::random_matrix), the kernel
// through the emulation, every element of C against gemm_nt_ref_element within gemm_error_bound
// (gemm_fp8_error_bound for fp8). `swizzle_bytes` overrides the maps' swizzle (the negative test).
wgmma_emu_run run_emulated_wgmma(gs::gemm_type type, int swizzle_bytes = -1) {
  const bool fp8 = gs::gemm_type_is_fp8(type), f16 = type == gs::gemm_type::fp16;
  const int M = 150, N = 270, K = fp8 ? 680 : 360;
  const gs::matrix_input a = gs::random_matrix(type, size_t(M) * K, 11), bt = gs::random_matrix(type, size_t(N) * K, 12);
  const float poison = -12345.0f;
  std::vector<float> c(size_t(M) * N + 64, poison);

  const gs::tensor_elem elem = fp8 ? gs::tensor_elem::u8 : f16 ? gs::tensor_elem::f16 : gs::tensor_elem::bf16;
  std::array<gs::tensor_map_2d, 2> maps =
      gs::gemm_wgmma_maps(const_cast<unsigned char*>(a.raw.data()), const_cast<unsigned char*>(bt.raw.data()), elem, M, N, K);
  if (swizzle_bytes >= 0) maps[0].swizzle_bytes = maps[1].swizzle_bytes = uint32_t(swizzle_bytes);
  const gs_tensor_map tm_a = wgmma_emu_encode(maps[0]), tm_b = wgmma_emu_encode(maps[1]);
  const gs::gemm_wgmma_tiling& t = gs::gemm_wgmma_tile;
  wgmma_emu_start(emu_wgmma::smem_storage, unsigned(t.threads));
  std::memset(emu_wgmma::smem_storage, 0xff, sizeof emu_wgmma::smem_storage);  // stale data, not zeros
  emu_launch({unsigned((N + t.bn - 1) / t.bn), unsigned((M + t.bm - 1) / t.bm), 1}, {unsigned(t.threads), 1, 1}, [&] {
    if (fp8) emu_wgmma::gemm_mma_fp8(tm_a, tm_b, c.data(), M, N, K);
    else if (f16) emu_wgmma::gemm_mma_f16(tm_a, tm_b, c.data(), M, N, K);
    else emu_wgmma::gemm_mma_bf16(tm_a, tm_b, c.data(), M, N, K);
  });

  const std::vector<float>&aw = a.wide, &bw = bt.wide;
  wgmma_emu_run out;
  for (int r = 0; r < M; ++r)
    for (int col = 0; col < N; ++col) {
      const float *ar = &aw[size_t(r) * K], *br = &bw[size_t(col) * K];
      double abs_sum = 0;
      for (int k = 0; k < K; ++k) abs_sum += std::fabs(double(ar[k]) * br[k]);
      const double bound = fp8 ? gs::gemm_fp8_error_bound(ar, br, K) : gs::gemm_error_bound(K, abs_sum);
      const float want = gs::gemm_nt_ref_element(aw.data(), bw.data(), K, r, col), got = c[size_t(r) * N + col];
      if (!(std::fabs(double(got) - want) <= bound) && out.bad++ == 0)
        out.first_bad = "C[" + std::to_string(r) + "][" + std::to_string(col) + "] = " + std::to_string(got) +
                        ", reference " + std::to_string(want);
    }
  for (size_t i = size_t(M) * N; i < c.size(); ++i) out.wrote_past_c += c[i] != poison;
  return out;
}

TEST(GemmMmaEmuWgmma, Bf16MatchesTheReferenceAcrossEveryEdge) {
  wgmma_emu_run r = run_emulated_wgmma(gs::gemm_type::bf16);
  EXPECT_EQ(r.bad, 0) << r.first_bad;
  EXPECT_EQ(r.wrote_past_c, 0);
}

TEST(GemmMmaEmuWgmma, Fp16MatchesTheReferenceAcrossEveryEdge) {
  wgmma_emu_run r = run_emulated_wgmma(gs::gemm_type::fp16);
  EXPECT_EQ(r.bad, 0) << r.first_bad;
  EXPECT_EQ(r.wrote_past_c, 0);
}

TEST(GemmMmaEmuWgmma, Fp8MatchesTheReferenceAcrossEveryEdge) {
  wgmma_emu_run r = run_emulated_wgmma(gs::gemm_type::fp8_e4m3fn);
  EXPECT_EQ(r.bad, 0) << r.first_bad;
  EXPECT_EQ(r.wrote_past_c, 0);
}

// The model can tell: maps without the swizzle the descriptors assume put 7 of every 8 rows'
// chunks where wgmma does not read them.
TEST(GemmMmaEmuWgmma, MapsWithoutTheSwizzleGiveWrongProducts) {
  wgmma_emu_run r = run_emulated_wgmma(gs::gemm_type::bf16, 0);
  EXPECT_GT(r.bad, 150 * 270 / 2);
}

// The same for fp8, whose bound is wider: unswizzled maps move most of C outside it, and so does
// the 64-byte swizzle (it agrees with the 128-byte one on rows 0-3 of each 8-row atom only).
TEST(GemmMmaEmuWgmma, Fp8MapsWithAWrongSwizzleGiveWrongProducts) {
  EXPECT_GT(run_emulated_wgmma(gs::gemm_type::fp8_e4m3fn, 0).bad, 150 * 270 / 2);
  EXPECT_GT(run_emulated_wgmma(gs::gemm_type::fp8_e4m3fn, 64).bad, 150 * 270 / 3);
}

// The kernel's constants are the host tiling's (probe grid, block and shared memory).
TEST(GemmMmaEmuWgmma, KernelDefinesMatchTheHostTiling) {
  const gs::gemm_wgmma_tiling& t = gs::gemm_wgmma_tile;
  EXPECT_EQ(GS_WG_BM, t.bm);
  EXPECT_EQ(GS_WG_BN, t.bn);
  EXPECT_EQ(GS_WG_BK, t.bk);
  EXPECT_EQ(GS_WG_THREADS, t.threads);
  EXPECT_EQ(GS_WG_STAGES, t.stages);
  EXPECT_EQ(GS_WG_A_BYTES + GS_WG_B_BYTES, int(t.stage_bytes()));
  EXPECT_EQ(t.shared_bytes(t.stages), 197696u);
  EXPECT_LE(t.shared_bytes(t.stages), 227u * 1024u) << "an sm_90 block's opt-in";
  EXPECT_GT(t.shared_bytes(t.stages + 1), 227u * 1024u) << "a fifth stage would fit: raise stages";
  EXPECT_EQ(GS_WG_BK * 2, GS_WG_ROW_BYTES) << "a k-tile row is one 128-byte swizzle row";
  EXPECT_EQ(gs::gemm_wgmma_maps(nullptr, nullptr, gs::tensor_elem::bf16, 1, 1, 8)[0].swizzle_bytes, unsigned(GS_WG_ROW_BYTES));
  // fp8: the same row bytes, twice the k; the box stays one swizzle row.
  const gs::tensor_map_2d m8 = gs::gemm_wgmma_maps(nullptr, nullptr, gs::tensor_elem::u8, 1, 1, 16)[1];
  EXPECT_EQ(int(m8.box_cols), t.bk_for(1));
  EXPECT_EQ(t.bk_for(1), GS_WG_ROW_BYTES);
  EXPECT_EQ(m8.box_rows, unsigned(GS_WG_BN));
  EXPECT_EQ(m8.row_stride_bytes, 16u);
  EXPECT_EQ(GS_WG_ROW_BYTES / GS_WG_KSTEP_BYTES, 4) << "four wgmma per k-tile: k16 x 2 B or k32 x 1 B";
}

}  // namespace
