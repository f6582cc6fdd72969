// CPU references for the gated delta rule (GatedDeltaNet, flash-linear-attention's
// chunk_gated_delta_rule with use_qk_l2norm_in_kernel=True, as Qwen3.5 calls it; research
// kernel-specs.md 3.1 and 3.5). Written to be read, not to be fast. Two of them:
//   gdn_recurrent_ref  the recurrence itself, one token at a time, in fp64: the ground truth.
//   gdn_chunk_cpu      the chunked (WY/UT) algorithm in fp32, with the same STAGES-deep ring of
//                      row tiles and the same order of work as kernels/gdn_chunk.cu, so the
//                      native backend's CPU path exercises the pipelining logic at every depth.
// Layouts (FLA's, time-major inside the batch): q, k [B,T,H,K]; v [B,T,HV,V]; g, beta [B,T,HV];
// state h0 / ht [B,HV,K,V]; o [B,T,HV,V]. Value head hv reads q/k head hv / (HV / H).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gs {

struct gdn_shape {
  int B = 2, T = 4096, H = 16, HV = 16, K = 128, V = 128;
  size_t qk_elems() const { return size_t(B) * T * H * K; }
  size_t v_elems() const { return size_t(B) * T * HV * V; }
  size_t gate_elems() const { return size_t(B) * T * HV; }
  size_t state_elems() const { return size_t(B) * HV * K * V; }
  /// "" when usable, else why not (HV a multiple of H, sizes positive, K <= 256).
  std::string invalid() const;
};

/// The eps FLA's l2norm adds inside the square root: x / sqrt(sum x^2 + 1e-6).
inline constexpr double gdn_l2_eps = 1e-6;
/// The chunk length of FLA's default path and of kernels/gdn_chunk.cu.
inline constexpr int gdn_chunk_len = 64;
/// Rows per pipelined tile: one chunk arrives as gdn_chunk_len / gdn_tile_rows tiles. The
/// ring holds STAGES tiles; see kernels/gdn_chunk.cu for why tiles are 8 rows, not a chunk.
inline constexpr int gdn_tile_rows = 8;

/// Inputs as the kernel reads them: q, k, v, beta as bf16 bit patterns, g as fp32 (Qwen3.5
/// computes g in fp32), an optional fp32 initial state. `*_f` are the exact fp32 values.
struct gdn_inputs {
  gdn_shape shape;
  std::vector<uint16_t> q, k, v, beta;
  std::vector<float> g;
  std::vector<float> h0;  ///< empty: zero initial state
  std::vector<float> q_f, k_f, v_f, beta_f;
};

/// Seeded random inputs shaped like a Qwen3.5 layer's: q, k, v ~ N(0, 1); beta = sigmoid(N(0,1));
/// g = -exp(a) * softplus(x) with a, x drawn so exp(g) is mostly in [0.9, 1) (slow decay, the
/// hard case for error growth); h0 ~ N(0, 0.1) when `with_h0`. All rounded to bf16 where stored so.
gdn_inputs gdn_random_inputs(const gdn_shape& s, uint32_t seed, bool with_h0);

/// fp64 recurrence (kernel-specs 3.1), for batches [b0, b1) and value heads [hv0, hv1) only
/// (the probe checks a subset of heads on a big shape). o is [B,T,HV,V], ht [B,HV,K,V]; only
/// the selected slices are written. scale <= 0 means K^-0.5.
void gdn_recurrent_ref(const gdn_inputs& in, double scale, std::vector<double>& o, std::vector<double>& ht,
                       int b0, int b1, int hv0, int hv1);

/// What the ring buffer did, so tests can see the pipelining really happened.
struct gdn_ring_stats {
  long long tiles = 0;            ///< tiles consumed
  int max_ahead = 0;              ///< most tiles loaded but not yet consumed, at a consume
  long long overwrite_live = 0;   ///< loads into a slot whose tile was not consumed yet (a bug)
};

/// fp32 chunked algorithm with a `stages`-deep ring (1 <= stages <= 8), every value head.
/// o [B,T,HV,V] and ht [B,HV,K,V] are resized and fully written. scale <= 0 means K^-0.5.
void gdn_chunk_cpu(const gdn_inputs& in, int stages, double scale, std::vector<float>& o,
                   std::vector<float>& ht, gdn_ring_stats* stats = nullptr);

/// The error figures the probe reports: max |got - want| and FLA's norm-wise ratio
/// ||got - want||_2 / ||want||_2, over the selected (b, hv) slices of o and ht together.
struct gdn_error {
  double max_abs = 0;
  double rel = 0;
  size_t compared = 0;
  size_t non_finite = 0;  ///< NaN/Inf in got
};
gdn_error gdn_compare(const gdn_shape& s, const float* o, const float* ht, const std::vector<double>& o_ref,
                      const std::vector<double>& ht_ref, int b0, int b1, int hv0, int hv1);

}  // namespace gs
