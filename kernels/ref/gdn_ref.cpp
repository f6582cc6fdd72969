// The gated delta rule references; see gdn_ref.h. Both read the same bf16-exact inputs, so the
// only difference between them is arithmetic: fp64 one token at a time against fp32 in chunks.
#include "kernels/ref/gdn_ref.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "kernels/gs_device.h"

namespace gs {

std::string gdn_shape::invalid() const {
  if (B <= 0 || T <= 0 || H <= 0 || HV <= 0 || K <= 0 || V <= 0) return "every size must be positive";
  if (HV % H != 0) return "value heads (" + std::to_string(HV) + ") must be a multiple of q/k heads (" + std::to_string(H) + ")";
  if (K > 256) return "head-dim-k must be <= 256 (flash-linear-attention asserts the same)";
  if (V > 1024) return "head-dim-v must be <= 1024";
  return "";
}

namespace {

uint16_t to_bf16(float f, float& exact) {
  uint16_t h = gs_f32_to_bf16(f);
  exact = gs_bf16_to_f32(h);
  return h;
}

}  // namespace

gdn_inputs gdn_random_inputs(const gdn_shape& s, uint32_t seed, bool with_h0) {
  gdn_inputs in;
  in.shape = s;
  std::mt19937 rng(seed);
  std::normal_distribution<float> n01(0.0f, 1.0f);
  auto fill = [&](std::vector<uint16_t>& raw, std::vector<float>& exact, size_t n) {
    raw.resize(n);
    exact.resize(n);
    for (size_t i = 0; i < n; ++i) raw[i] = to_bf16(n01(rng), exact[i]);
  };
  fill(in.q, in.q_f, s.qk_elems());
  fill(in.k, in.k_f, s.qk_elems());
  fill(in.v, in.v_f, s.v_elems());
  size_t ng = s.gate_elems();
  in.beta.resize(ng);
  in.beta_f.resize(ng);
  in.g.resize(ng);
  for (size_t i = 0; i < ng; ++i) {
    in.beta[i] = to_bf16(1.0f / (1.0f + std::exp(-n01(rng))), in.beta_f[i]);
    // Qwen3.5: g = -exp(A_log) * softplus(a + dt_bias). exp(A_log) ~ 0.05..0.4 and a ~ N(-2, 1)
    // give exp(g) mostly in [0.9, 1): state survives for hundreds of tokens.
    float a = 0.05f + 0.35f * std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
    float x = n01(rng) - 2.0f;
    in.g[i] = -a * std::log1p(std::exp(x));
  }
  if (with_h0) {
    in.h0.resize(s.state_elems());
    for (float& h : in.h0) h = 0.1f * n01(rng);
  }
  return in;
}

void gdn_recurrent_ref(const gdn_inputs& in, double scale, std::vector<double>& o, std::vector<double>& ht,
                       int b0, int b1, int hv0, int hv1) {
  const gdn_shape& s = in.shape;
  const int K = s.K, V = s.V, group = s.HV / s.H;
  if (scale <= 0) scale = 1.0 / std::sqrt(double(K));
  o.assign(s.v_elems(), 0.0);
  ht.assign(s.state_elems(), 0.0);
  std::vector<double> S(size_t(K) * V), q(K), k(K), ks(V);
  for (int b = b0; b < b1; ++b)
    for (int hv = hv0; hv < hv1; ++hv) {
      const int h = hv / group;
      size_t st = (size_t(b) * s.HV + hv) * K * V;
      for (size_t i = 0; i < S.size(); ++i) S[i] = in.h0.empty() ? 0.0 : in.h0[st + i];
      for (int t = 0; t < s.T; ++t) {
        size_t qk = ((size_t(b) * s.T + t) * s.H + h) * K;
        size_t gi = (size_t(b) * s.T + t) * s.HV + hv;
        size_t vi = gi * V;
        double sq = 0, sk = 0;
        for (int i = 0; i < K; ++i) {
          q[i] = in.q_f[qk + i];
          k[i] = in.k_f[qk + i];
          sq += q[i] * q[i];
          sk += k[i] * k[i];
        }
        double rq = scale / std::sqrt(sq + gdn_l2_eps), rk = 1.0 / std::sqrt(sk + gdn_l2_eps);
        double decay = std::exp(double(in.g[gi])), beta = in.beta_f[gi];
        for (double& x : S) x *= decay;                       // S' = exp(g) S   (decay first)
        std::fill(ks.begin(), ks.end(), 0.0);
        for (int i = 0; i < K; ++i)
          for (int j = 0; j < V; ++j) ks[j] += k[i] * rk * S[size_t(i) * V + j];
        for (int j = 0; j < V; ++j) ks[j] = beta * (in.v_f[vi + j] - ks[j]);  // u = beta (v - S'^T k)
        for (int i = 0; i < K; ++i)
          for (int j = 0; j < V; ++j) S[size_t(i) * V + j] += k[i] * rk * ks[j];  // S = S' + k u^T
        for (int j = 0; j < V; ++j) {
          double acc = 0;
          for (int i = 0; i < K; ++i) acc += S[size_t(i) * V + j] * q[i] * rq;  // o = S^T (scale q)
          o[vi + j] = acc;
        }
      }
      std::copy(S.begin(), S.end(), ht.begin() + st);
    }
}

namespace {

// One slot of the ring: a tile of gdn_tile_rows rows of q, k (bf16 as stored), v, g, beta.
struct ring_slot {
  long long tile = -1;  // which tile it holds, -1 none
  bool consumed = true;
  std::vector<uint16_t> q, k, v;
  float g[gdn_tile_rows] = {}, beta[gdn_tile_rows] = {};
};

// The per-(b, hv) chunked pass over every tile, mirroring kernels/gdn_chunk.cu step for step.
class chunk_pass {
 public:
  chunk_pass(const gdn_inputs& in, int stages, float scale, int b, int hv, gdn_ring_stats* stats)
      : in_(in), s_(in.shape), stages_(stages), scale_(scale), b_(b), hv_(hv), h_(hv / (s_.HV / s_.H)),
        stats_(stats), ring_(size_t(stages)) {
    const int K = s_.K, V = s_.V, R = gdn_tile_rows, C = gdn_chunk_len;
    for (ring_slot& sl : ring_) {
      sl.q.resize(size_t(R) * K);
      sl.k.resize(size_t(R) * K);
      sl.v.resize(size_t(R) * V);
    }
    S_.assign(size_t(K) * V, 0.0f);
    if (!in.h0.empty())
      std::copy_n(in.h0.begin() + (size_t(b) * s_.HV + hv) * K * V, S_.size(), S_.begin());
    kw_.assign(size_t(C) * K, 0.0f);
    A_.assign(size_t(C) * C, 0.0f);
    P_.assign(size_t(C) * C, 0.0f);
    rhs_.assign(size_t(C) * V, 0.0f);
    qs_.assign(size_t(C) * V, 0.0f);
  }

  void run(float* o, float* ht) {
    const long long tiles = (s_.T + gdn_tile_rows - 1) / gdn_tile_rows;
    // Prologue: STAGES - 1 tiles in flight before the first is consumed.
    for (long long t = 0; t < std::min<long long>(stages_ - 1, tiles); ++t) load(t);
    for (long long t = 0; t < tiles; ++t) {
      // Issue tile t + STAGES - 1 into the slot tile t - 1 used (already consumed).
      if (t + stages_ - 1 < tiles) load(t + stages_ - 1);
      consume(t, o);
    }
    std::copy(S_.begin(), S_.end(), ht + (size_t(b_) * s_.HV + hv_) * s_.K * s_.V);
  }

 private:
  void load(long long t) {
    ring_slot& sl = ring_[size_t(t % stages_)];
    if (stats_ && sl.tile >= 0 && !sl.consumed) ++stats_->overwrite_live;
    const int K = s_.K, V = s_.V;
    for (int r = 0; r < gdn_tile_rows; ++r) {
      long long row = t * gdn_tile_rows + r;
      bool live = row < s_.T;  // rows past T are zero, as the kernel fills them
      size_t qk = ((size_t(b_) * s_.T + size_t(live ? row : 0)) * s_.H + h_) * K;
      size_t gi = (size_t(b_) * s_.T + size_t(live ? row : 0)) * s_.HV + hv_;
      for (int i = 0; i < K; ++i) {
        sl.q[size_t(r) * K + i] = live ? in_.q[qk + i] : 0;
        sl.k[size_t(r) * K + i] = live ? in_.k[qk + i] : 0;
      }
      for (int j = 0; j < V; ++j) sl.v[size_t(r) * V + j] = live ? in_.v[gi * V + j] : 0;
      sl.g[r] = live ? in_.g[gi] : 0.0f;
      sl.beta[r] = live ? gs_bf16_to_f32(in_.beta[gi]) : 0.0f;
    }
    sl.tile = t;
    sl.consumed = false;
    if (stats_) ++in_flight_;
  }

  void consume(long long t, float* o) {
    ring_slot& sl = ring_[size_t(t % stages_)];
    if (stats_) {
      stats_->max_ahead = std::max(stats_->max_ahead, in_flight_);
      ++stats_->tiles;
      --in_flight_;
    }
    const int K = s_.K, V = s_.V, C = gdn_chunk_len, R = gdn_tile_rows;
    const long long chunk = t * R / C;
    const int r0 = int(t * R % C);
    const int L = int(std::min<long long>(C, s_.T - chunk * C));  // rows in this chunk
    for (int r = 0; r < R && r0 + r < L; ++r) {
      const int i = r0 + r;
      float sq = 0, sk = 0;
      for (int x = 0; x < K; ++x) {
        float qv = gs_bf16_to_f32(sl.q[size_t(r) * K + x]), kv = gs_bf16_to_f32(sl.k[size_t(r) * K + x]);
        sq += qv * qv;
        sk += kv * kv;
        kw_[size_t(i) * K + x] = kv;
      }
      rq_[i] = scale_ / std::sqrt(sq + float(gdn_l2_eps));
      rk_[i] = 1.0f / std::sqrt(sk + float(gdn_l2_eps));
      G_[i] = (i == 0 ? 0.0f : G_[i - 1]) + sl.g[r];
      beta_[i] = sl.beta[r];
      for (int j = 0; j <= i; ++j) {  // A (strictly lower) and P (lower with the diagonal)
        float kk = 0, qk = 0;
        for (int x = 0; x < K; ++x) {
          float kj = kw_[size_t(j) * K + x];
          kk += kw_[size_t(i) * K + x] * kj;
          qk += gs_bf16_to_f32(sl.q[size_t(r) * K + x]) * kj;
        }
        float decay = std::exp(G_[i] - G_[j]);
        A_[size_t(i) * C + j] = j < i ? beta_[i] * kk * rk_[i] * rk_[j] * decay : 0.0f;
        P_[size_t(i) * C + j] = qk * rq_[i] * rk_[j] * decay;
      }
      for (int y = 0; y < V; ++y) {  // k S and q S against the chunk's starting state
        float ks = 0, qs = 0;
        for (int x = 0; x < K; ++x) {
          float sv = S_[size_t(x) * V + y];
          ks += kw_[size_t(i) * K + x] * sv;
          qs += gs_bf16_to_f32(sl.q[size_t(r) * K + x]) * sv;
        }
        float vv = gs_bf16_to_f32(sl.v[size_t(r) * V + y]);
        rhs_[size_t(i) * V + y] = beta_[i] * (vv - std::exp(G_[i]) * ks * rk_[i]);
        qs_[size_t(i) * V + y] = qs * rq_[i];
      }
    }
    sl.consumed = true;
    if (r0 + R < L) return;  // the chunk is not complete yet
    finish_chunk(chunk, L, o);
  }

  // (I + A) v_new = rhs by forward substitution, then o and the next chunk's state.
  void finish_chunk(long long chunk, int L, float* o) {
    const int K = s_.K, V = s_.V, C = gdn_chunk_len;
    for (int i = 0; i < L; ++i)
      for (int y = 0; y < V; ++y) {
        float x = rhs_[size_t(i) * V + y];
        for (int j = 0; j < i; ++j) x -= A_[size_t(i) * C + j] * rhs_[size_t(j) * V + y];
        rhs_[size_t(i) * V + y] = x;  // in place: rows < i already hold v_new
      }
    for (int i = 0; i < L; ++i) {
      size_t oi = ((size_t(b_) * s_.T + size_t(chunk * C + i)) * s_.HV + hv_) * V;
      float eg = std::exp(G_[i]);
      for (int y = 0; y < V; ++y) {
        float acc = eg * qs_[size_t(i) * V + y];
        for (int j = 0; j <= i; ++j) acc += P_[size_t(i) * C + j] * rhs_[size_t(j) * V + y];
        o[oi + y] = acc;
      }
    }
    const float glast = G_[L - 1], elast = std::exp(glast);
    for (int x = 0; x < K; ++x)
      for (int y = 0; y < V; ++y) {
        float acc = elast * S_[size_t(x) * V + y];
        for (int i = 0; i < L; ++i)
          acc += kw_[size_t(i) * K + x] * rk_[i] * std::exp(glast - G_[i]) * rhs_[size_t(i) * V + y];
        S_[size_t(x) * V + y] = acc;
      }
  }

  const gdn_inputs& in_;
  const gdn_shape& s_;
  int stages_;
  float scale_;
  int b_, hv_, h_;
  gdn_ring_stats* stats_;
  int in_flight_ = 0;
  std::vector<ring_slot> ring_;
  std::vector<float> S_, kw_, A_, P_, rhs_, qs_;
  float rq_[gdn_chunk_len] = {}, rk_[gdn_chunk_len] = {}, G_[gdn_chunk_len] = {}, beta_[gdn_chunk_len] = {};
};

}  // namespace

void gdn_chunk_cpu(const gdn_inputs& in, int stages, double scale, std::vector<float>& o, std::vector<float>& ht,
                   gdn_ring_stats* stats) {
  const gdn_shape& s = in.shape;
  stages = std::clamp(stages, 1, 8);
  float sc = float(scale > 0 ? scale : 1.0 / std::sqrt(double(s.K)));
  o.assign(s.v_elems(), 0.0f);
  ht.assign(s.state_elems(), 0.0f);
  for (int b = 0; b < s.B; ++b)
    for (int hv = 0; hv < s.HV; ++hv) chunk_pass(in, stages, sc, b, hv, stats).run(o.data(), ht.data());
}

gdn_error gdn_compare(const gdn_shape& s, const float* o, const float* ht, const std::vector<double>& o_ref,
                      const std::vector<double>& ht_ref, int b0, int b1, int hv0, int hv1) {
  gdn_error e;
  double diff2 = 0, ref2 = 0;
  auto add = [&](double got, double want) {
    ++e.compared;
    if (!std::isfinite(got)) {
      ++e.non_finite;
      return;
    }
    double d = std::fabs(got - want);
    e.max_abs = std::max(e.max_abs, d);
    diff2 += d * d;
    ref2 += want * want;
  };
  for (int b = b0; b < b1; ++b)
    for (int hv = hv0; hv < hv1; ++hv) {
      for (int t = 0; t < s.T; ++t) {
        size_t base = ((size_t(b) * s.T + t) * s.HV + hv) * s.V;
        for (int y = 0; y < s.V; ++y) add(o[base + y], o_ref[base + y]);
      }
      size_t st = (size_t(b) * s.HV + hv) * s.K * s.V;
      for (size_t i = 0; i < size_t(s.K) * s.V; ++i) add(ht[st + i], ht_ref[st + i]);
    }
  e.rel = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  if (e.non_finite) e.rel = e.max_abs = INFINITY;
  return e;
}

}  // namespace gs
