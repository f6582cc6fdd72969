// The chunked CPU path (fp32, STAGES-deep ring of row tiles) against the fp64 recurrence, at
// stages 1..4, on shapes that exercise grouped value heads, a partial last chunk and tile, an
// initial state, and a sequence of several chunks.
//
// Tolerance (docs/fla.md): norm-wise ||chunk - ref|| / ||ref|| <= 2e-5 over o and the final
// state together, and max |chunk - ref| <= 2e-5. Why: the chunked path is fp32 (unit roundoff
// u = 6e-8); each value is a dot product of length K = 128 or a forward-substitution row of at
// most 64 terms, so one chunk adds ~ (K + 64) u ~ 1e-5 relative in the worst case and ~ sqrt of
// that typically. Across chunks the error does not compound: each step multiplies the state by
// exp(g) (I - beta k k^T) with |k| = 1, beta in (0, 1), whose norm is <= 1. The inputs are the
// same bf16-exact values on both sides, so input rounding adds nothing. Measured here: rel
// ~2e-7, max abs ~5e-7 (|o| ~0.1, |state| ~1): the bound is ~40-100x above that and ~1000x
// below what a missing decay or the wrong q/k head gives (rel >= 1e-2, checked below).
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/ref/gdn_ref.h"

namespace gs {
namespace {

constexpr double kRelTol = 2e-5, kAbsTol = 2e-5;

struct ref_run {
  std::vector<double> o, ht;
};

ref_run reference(const gdn_inputs& in) {
  ref_run r;
  gdn_recurrent_ref(in, 0, r.o, r.ht, 0, in.shape.B, 0, in.shape.HV);
  return r;
}

class GdnChunkCpu : public ::testing::TestWithParam<int> {};

TEST_P(GdnChunkCpu, MatchesRecurrentFp64) {
  const int stages = GetParam();
  // T = 200: three full chunks and a partial one of 8 rows; 16 value heads on 4 q/k heads.
  gdn_shape s{2, 200, 4, 16, 32, 24};
  gdn_inputs in = gdn_random_inputs(s, 1234u + unsigned(stages), true);
  ref_run ref = reference(in);
  std::vector<float> o, ht;
  gdn_ring_stats st;
  gdn_chunk_cpu(in, stages, 0, o, ht, &st);
  gdn_error e = gdn_compare(s, o.data(), ht.data(), ref.o, ref.ht, 0, s.B, 0, s.HV);
  EXPECT_EQ(e.non_finite, 0u);
  EXPECT_EQ(e.compared, s.v_elems() + s.state_elems());
  EXPECT_LE(e.rel, kRelTol) << "stages " << stages;
  EXPECT_LE(e.max_abs, kAbsTol) << "stages " << stages;
  // The ring really pipelined: as many tiles ahead as slots, never a live slot overwritten.
  EXPECT_EQ(st.overwrite_live, 0);
  EXPECT_EQ(st.max_ahead, stages);
  EXPECT_EQ(st.tiles, (long long)s.B * s.HV * ((s.T + gdn_tile_rows - 1) / gdn_tile_rows));
}

TEST_P(GdnChunkCpu, PartialTileAndNoInitialState) {
  const int stages = GetParam();
  gdn_shape s{1, 77, 2, 2, 16, 16};  // 77 = one chunk + 13 rows: a tile cut at 5 rows
  gdn_inputs in = gdn_random_inputs(s, 99u, false);
  ref_run ref = reference(in);
  std::vector<float> o, ht;
  gdn_chunk_cpu(in, stages, 0, o, ht);
  gdn_error e = gdn_compare(s, o.data(), ht.data(), ref.o, ref.ht, 0, 1, 0, 2);
  EXPECT_LE(e.rel, kRelTol);
  EXPECT_LE(e.max_abs, kAbsTol);
}

INSTANTIATE_TEST_SUITE_P(Stages, GdnChunkCpu, ::testing::Values(1, 2, 3, 4));

TEST(GdnRef, ToleranceSeparatesAWrongAnswer) {
  gdn_shape s{1, 130, 2, 4, 32, 16};
  gdn_inputs in = gdn_random_inputs(s, 7u, true);
  ref_run ref = reference(in);
  std::vector<float> o, ht;
  gdn_chunk_cpu(in, 2, 0, o, ht);
  ASSERT_LE(gdn_compare(s, o.data(), ht.data(), ref.o, ref.ht, 0, 1, 0, 4).rel, kRelTol);
  // No decay (g = 0): the answer moves far outside the bound.
  gdn_inputs flat = in;
  std::fill(flat.g.begin(), flat.g.end(), 0.0f);
  gdn_chunk_cpu(flat, 2, 0, o, ht);
  EXPECT_GT(gdn_compare(s, o.data(), ht.data(), ref.o, ref.ht, 0, 1, 0, 4).rel, 1e-2);
  // The wrong q/k head for a value head (no grouping).
  gdn_inputs shuffled = in;
  for (size_t i = 0; i + s.K * 2 <= shuffled.k.size(); i += size_t(s.K) * 2)
    for (int x = 0; x < s.K; ++x) std::swap(shuffled.k[i + x], shuffled.k[i + s.K + x]);
  gdn_chunk_cpu(shuffled, 2, 0, o, ht);
  EXPECT_GT(gdn_compare(s, o.data(), ht.data(), ref.o, ref.ht, 0, 1, 0, 4).rel, 1e-2);
  // A NaN is counted, never hidden.
  o[5] = NAN;
  gdn_chunk_cpu(in, 2, 0, o, ht);
  o[5] = NAN;
  gdn_error e = gdn_compare(s, o.data(), ht.data(), ref.o, ref.ht, 0, 1, 0, 4);
  EXPECT_EQ(e.non_finite, 1u);
  EXPECT_TRUE(std::isinf(e.rel));
}

TEST(GdnRef, RecurrenceMatchesHandComputedStep) {
  // One token, K = V = 1: S' = e^g S0; u = beta (v - S' k^); S = S' + k^ u; o = S q^ / sqrt(K).
  gdn_shape s{1, 1, 1, 1, 1, 1};
  gdn_inputs in = gdn_random_inputs(s, 3u, true);
  ref_run ref = reference(in);
  double kn = in.k_f[0] / std::sqrt(double(in.k_f[0]) * in.k_f[0] + 1e-6);
  double qn = in.q_f[0] / std::sqrt(double(in.q_f[0]) * in.q_f[0] + 1e-6);
  double S = std::exp(double(in.g[0])) * in.h0[0];
  double u = in.beta_f[0] * (in.v_f[0] - S * kn);
  S += kn * u;
  EXPECT_NEAR(ref.ht[0], S, 1e-12);
  EXPECT_NEAR(ref.o[0], S * qn, 1e-12);
}

TEST(GdnRef, ShapeValidation) {
  EXPECT_EQ(gdn_shape{}.invalid(), "");
  EXPECT_NE((gdn_shape{1, 8, 3, 4, 8, 8}).invalid().find("multiple"), std::string::npos);
  EXPECT_NE((gdn_shape{1, 8, 1, 1, 512, 8}).invalid().find("256"), std::string::npos);
  EXPECT_NE((gdn_shape{0, 8, 1, 1, 8, 8}).invalid(), "");
}

}  // namespace
}  // namespace gs
