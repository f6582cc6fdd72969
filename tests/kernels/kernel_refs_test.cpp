// The CPU references in kernels/ref/ against independent naive computations on seeded random
// inputs: NaN positions and infinity signs, a written tolerance, every output element written
// (outputs start as a poison pattern) and guard elements on both sides left untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/gs_device.h"
#include "kernels/ref/copy_bandwidth_ref.h"
#include "kernels/ref/gemm_ref.h"
#include "kernels/ref/reduce_sum_ref.h"
#include "kernels/ref/vector_add_ref.h"

namespace {

constexpr uint32_t poison = 0x7fbadbad;
constexpr size_t guard = 64;
const float inf = std::numeric_limits<float>::infinity();
const float nan = std::numeric_limits<float>::quiet_NaN();

// An output array with `guard` poison elements on each side; data() points past the front guard.
struct guarded_out {
  std::vector<float> all;
  explicit guarded_out(size_t n) : all(n + 2 * guard, gs_bits_f32(poison)) {}
  float* data() { return all.data() + guard; }
  float operator[](size_t i) const { return all[guard + i]; }
  bool guards_intact() const {
    for (size_t i = 0; i < guard; ++i)
      if (gs_f32_bits(all[i]) != poison || gs_f32_bits(all[all.size() - 1 - i]) != poison) return false;
    return true;
  }
  size_t unwritten(size_t n) const {
    size_t c = 0;
    for (size_t i = 0; i < n; ++i) c += gs_f32_bits((*this)[i]) == poison;
    return c;
  }
};

std::vector<float> uniform(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// Same NaN-ness, same infinity, else within tol.
::testing::AssertionResult close(float got, double want, double tol) {
  if (std::isnan(want) || std::isnan(got)) {
    if (std::isnan(want) && std::isnan(got)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "NaN mismatch: got " << got << " want " << want;
  }
  if (std::isinf(want) || std::isinf(got)) {
    if (double(got) == want) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "infinity mismatch: got " << got << " want " << want;
  }
  if (std::fabs(got - want) <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << " want " << want << " tol " << tol;
}

// ---- vector_add --------------------------------------------------------------------------------

TEST(VectorAddRef, MatchesDoubleRoundedSumBitForBit) {
  const size_t n = 100003;
  auto a = uniform(n, 1), b = uniform(n, 2, -1e3f, 1e3f);
  a[5] = nan, a[9] = inf, b[10] = -inf, a[12] = inf, b[12] = -inf;
  guarded_out c(n);
  gs::vector_add_ref(a.data(), b.data(), c.data(), n);
  // Tolerance 0: an fp32 sum computed in double and rounded once is the correctly rounded fp32
  // sum (double has more than 2 * 24 + 2 significand bits), which IEEE fp32 addition also gives.
  for (size_t i = 0; i < n; ++i) ASSERT_TRUE(close(c[i], float(double(a[i]) + double(b[i])), 0)) << i;
  EXPECT_TRUE(std::isnan(c[5]) && std::isnan(c[12]));
  EXPECT_EQ(c[9], inf);
  EXPECT_EQ(c[10], -inf);
  EXPECT_EQ(c.unwritten(n), 0u);
  EXPECT_TRUE(c.guards_intact());
}

// ---- copy ----------------------------------------------------------------------------------------

TEST(CopyRef, CopiesEveryBitPattern) {
  const size_t n = 4099;
  std::vector<float> src(n);
  std::mt19937 rng(3);
  for (float& x : src) x = gs_bits_f32(rng() & 0xff7fffffu);  // any finite or infinite pattern
  guarded_out dst(n);
  gs::copy_ref(src.data(), dst.data(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(gs_f32_bits(dst[i]), gs_f32_bits(src[i])) << i;
  EXPECT_TRUE(dst.guards_intact());
}

// ---- reduce_sum ----------------------------------------------------------------------------------

TEST(ReduceSumRef, ButterflyEqualsFoldingInHalves) {
  // xor butterfly, lane 0's view: first lanes l and l + W/2 add, then l and l + W/4, ... which is
  // folding the array in halves. Written as a fold here, independently of the xor indexing.
  for (unsigned wave : {32u, 64u}) {
    auto v = uniform(wave, wave);
    std::vector<float> fold = v;
    for (unsigned len = wave; len > 1; len /= 2)
      for (unsigned l = 0; l < len / 2; ++l) fold[l] = fold[l] + fold[l + len / 2];
    EXPECT_EQ(gs_f32_bits(gs::warp_butterfly_ref(v.data(), wave)), gs_f32_bits(fold[0])) << wave;
  }
}

// Inputs k / 16 with small integer k: every partial sum is exact in fp32, so the blocks' sums
// must equal exact integer sums, whatever the order (see probes/tensor_probes.cpp).
TEST(ReduceSumRef, BlockPartialsAreExactForBothWaveSizes) {
  const unsigned n = 300007, block = 256, grid = 37;
  std::mt19937 rng(5);
  std::vector<float> x(n);
  std::vector<long long> want(grid, 0);
  for (unsigned i = 0; i < n; ++i) {
    int k = int(rng() % 7) - 3;
    x[i] = float(k) / 16.0f;
    want[(i % (grid * block)) / block] += k;
  }
  for (unsigned wave : {32u, 64u}) {
    guarded_out partial(grid);
    ASSERT_TRUE(gs::reduce_sum_blocks_ref(x.data(), n, partial.data(), grid, block, wave));
    for (unsigned b = 0; b < grid; ++b) EXPECT_EQ(partial[b], float(want[b]) / 16.0f) << "wave " << wave << " block " << b;
    EXPECT_TRUE(partial.guards_intact());
  }
}

TEST(ReduceSumRef, RandomFloatsWithinSummationBound) {
  const unsigned n = 1 << 20, block = 256, grid = 120;
  auto x = uniform(n, 9);
  double exact = 0, abs_sum = 0;
  for (float v : x) exact += v, abs_sum += std::fabs(v);
  for (unsigned wave : {32u, 64u}) {
    std::vector<float> partial(grid), total(1);
    ASSERT_TRUE(gs::reduce_sum_blocks_ref(x.data(), n, partial.data(), grid, block, wave));
    ASSERT_TRUE(gs::reduce_sum_blocks_ref(partial.data(), grid, total.data(), 1, block, wave));
    // Each element passes through at most (n / (grid * block)) sequential adds, log2(block) tree
    // levels, then one more thread-serial and log2(block) levels in the second pass; every add
    // costs at most 2^-24 relative: |error| <= depth * 2^-24 * sum |x|.
    double depth = double(n) / (grid * block) + 1 + 2 * std::log2(double(block)) + 1;
    EXPECT_TRUE(close(total[0], exact, depth * std::ldexp(1.0, -24) * abs_sum)) << "wave " << wave;
    EXPECT_NEAR(gs::reduce_sum_ref(x.data(), n), exact, 1e-9 * abs_sum);
  }
}

TEST(ReduceSumRef, NaNAndInfinityReachTheirBlockAndTheTotal) {
  const unsigned n = 4096, block = 256, grid = 4;
  auto x = uniform(n, 4);
  x[3] = nan;    // block 0
  x[700] = inf;  // (700 % 1024) / 256 = block 2
  std::vector<float> partial(grid);
  ASSERT_TRUE(gs::reduce_sum_blocks_ref(x.data(), n, partial.data(), grid, block, 32));
  EXPECT_TRUE(std::isnan(partial[0]));
  EXPECT_FALSE(std::isnan(partial[1]) || std::isinf(partial[1]));
  EXPECT_EQ(partial[2], inf);
  EXPECT_TRUE(std::isnan(gs::reduce_sum_ref(x.data(), n)));
}

TEST(ReduceSumRef, RejectsLaunchesTheKernelCannotRun) {
  std::vector<float> x(64, 1.0f), out(4, 0.0f);
  EXPECT_FALSE(gs::reduce_sum_blocks_ref(x.data(), 64, out.data(), 1, 32, 64));   // half a wave
  EXPECT_FALSE(gs::reduce_sum_blocks_ref(x.data(), 64, out.data(), 1, 96, 64));   // 1.5 waves
  EXPECT_FALSE(gs::reduce_sum_blocks_ref(x.data(), 64, out.data(), 1, 2048, 32)); // over 1024
  EXPECT_FALSE(gs::reduce_sum_blocks_ref(x.data(), 64, out.data(), 1, 64, 48));   // no such wave
  EXPECT_EQ(out[0], 0.0f);  // nothing written
  EXPECT_TRUE(gs::reduce_sum_blocks_ref(x.data(), 64, out.data(), 1, 64, 64));
  EXPECT_EQ(out[0], 64.0f);
}

// ---- gemm ----------------------------------------------------------------------------------------

// Naive double-precision product: the "exact" answer, to within 1e-16 relative.
std::vector<double> gemm_double(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K) {
  std::vector<double> C(size_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < N; ++j) C[size_t(i) * N + j] += double(A[size_t(i) * K + k]) * B[size_t(k) * N + j];
  return C;
}

void expect_gemm_within_bound(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K) {
  guarded_out C(size_t(M) * N);
  gs::gemm_ref(A.data(), B.data(), C.data(), M, N, K);
  std::vector<double> exact = gemm_double(A, B, M, N, K);
  size_t bad = 0;
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      // fp32 accumulation of K products: |error| <= gamma_K * sum |a b|, gamma_K = K u / (1 - K u),
      // u = 2^-24 (the standard bound; FMA only tightens it).
      double abs_sum = 0;
      for (int k = 0; k < K; ++k) abs_sum += std::fabs(double(A[size_t(i) * K + k]) * B[size_t(k) * N + j]);
      double u = std::ldexp(1.0, -24), tol = K * u / (1 - K * u) * abs_sum;
      bad += !close(C[size_t(i) * N + j], exact[size_t(i) * N + j], tol);
    }
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(C.unwritten(size_t(M) * N), 0u);
  EXPECT_TRUE(C.guards_intact());
}

TEST(GemmRef, Fp32WithinAccumulationBound) {
  const int M = 37, N = 53, K = 301;
  expect_gemm_within_bound(uniform(size_t(M) * K, 21), uniform(size_t(K) * N, 22), M, N, K);
}

TEST(GemmRef, Bf16AndFp16InputsWidenExactly) {
  const int M = 19, N = 23, K = 129;
  auto a = uniform(size_t(M) * K, 31), b = uniform(size_t(K) * N, 32);
  std::vector<uint16_t> abf(a.size()), bbf(b.size()), ah(a.size()), bh(b.size());
  for (size_t i = 0; i < a.size(); ++i) abf[i] = gs_f32_to_bf16(a[i]), ah[i] = gs_f32_to_f16(a[i]);
  for (size_t i = 0; i < b.size(); ++i) bbf[i] = gs_f32_to_bf16(b[i]), bh[i] = gs_f32_to_f16(b[i]);
  auto wa = gs::widen_bf16(abf.data(), abf.size()), wh = gs::widen_f16(ah.data(), ah.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(gs_f32_bits(wa[i]), uint32_t(abf[i]) << 16);
    // fp16 keeps 11 significant bits: |x - fp16(x)| <= 2^-11 |x| for normal x (inputs in [-1, 1]
    // are above fp16's normal threshold 2^-14 except a few near 0, which are within 2^-25).
    ASSERT_LE(std::fabs(wh[i] - a[i]), std::max(std::ldexp(std::fabs(a[i]), -11), std::ldexp(1.0f, -25)));
  }
  expect_gemm_within_bound(wa, gs::widen_bf16(bbf.data(), bbf.size()), M, N, K);
  expect_gemm_within_bound(wh, gs::widen_f16(bh.data(), bh.size()), M, N, K);
}

// The row form (blas_run's checker) must be the element form bit for bit, in both B layouts, and
// its |a b| sums the bound's input: a different k order or a dropped fma would show here.
TEST(GemmRef, RowFormIsTheElementFormBitForBit) {
  const int N = 67, K = 515;
  auto a = uniform(size_t(K), 51), B = uniform(size_t(K) * N, 52);
  std::vector<float> Bt(size_t(N) * K);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) Bt[size_t(j) * K + k] = B[size_t(k) * N + j];
  for (bool transposed : {false, true}) {
    std::vector<float> row(N, nan);
    std::vector<double> abs_sum(N, -1);
    gs::gemm_ref_row(a.data(), transposed ? Bt.data() : B.data(), N, K, transposed, row.data(), abs_sum.data());
    for (int j = 0; j < N; ++j) {
      const float want = transposed ? gs::gemm_nt_ref_element(a.data(), Bt.data(), K, 0, j)
                                    : gs::gemm_ref_element(a.data(), B.data(), N, K, 0, j);
      ASSERT_EQ(gs_f32_bits(row[size_t(j)]), gs_f32_bits(want)) << "column " << j << " transposed " << transposed;
      double s = 0;
      for (int k = 0; k < K; ++k) s += std::fabs(double(a[size_t(k)]) * B[size_t(k) * N + j]);
      ASSERT_EQ(abs_sum[size_t(j)], s) << "column " << j;
    }
  }
  std::vector<float> row(N);
  gs::gemm_ref_row(a.data(), B.data(), N, K, false, row.data(), nullptr);  // no sums asked: same row
  EXPECT_EQ(gs_f32_bits(row[3]), gs_f32_bits(gs::gemm_ref_element(a.data(), B.data(), N, K, 0, 3)));
}

TEST(GemmRef, NaNAndInfinityPropagateLikeTheNaiveProduct) {
  const int M = 8, N = 8, K = 16;
  auto A = uniform(size_t(M) * K, 41), B = uniform(size_t(K) * N, 42);
  A[size_t(2) * K + 5] = nan;  // row 2 of C: all NaN
  A[size_t(5) * K + 0] = inf;  // row 5: +-inf by the sign of B[0][j]
  std::vector<float> C(size_t(M) * N);
  gs::gemm_ref(A.data(), B.data(), C.data(), M, N, K);
  auto exact = gemm_double(A, B, M, N, K);
  for (int j = 0; j < N; ++j) {
    EXPECT_TRUE(std::isnan(C[size_t(2) * N + j]));
    EXPECT_EQ(C[size_t(5) * N + j], B[j] > 0 ? inf : -inf);
    EXPECT_TRUE(close(C[size_t(5) * N + j], exact[size_t(5) * N + j], 0));
  }
}

TEST(GemmRef, TilingDefaultsDescribeA16x16Block) {
  EXPECT_EQ(gs::gemm_v2_tiling.threads_x(), 16);
  EXPECT_EQ(gs::gemm_v2_tiling.threads_y(), 16);
  EXPECT_LE(gs::gemm_v2_tiling.threads_x() * gs::gemm_v2_tiling.threads_y(), 1024);
}

}  // namespace
