// gdn_chunk_v2's CPU reference; see gdn_v2_ref.h and kernels/gdn_chunk_v2.cu for the maths.
#include "kernels/ref/gdn_v2_ref.h"

#include <algorithm>
#include <cmath>

#include "kernels/gdn_v2_layout.h"
#include "kernels/gs_device.h"

namespace gs {

namespace {

constexpr int L = GDN2_CHUNK;

float bf(uint16_t h) { return gs_bf16_to_f32(h); }
float hi(float x) { return gs_bf16_to_f32(gs_f32_to_bf16(x)); }
float lo(float x) { return gs_bf16_to_f32(gs_f32_to_bf16(x - hi(x))); }
uint16_t hi_bits(float x) { return gs_f32_to_bf16(x); }
uint16_t lo_bits(float x) { return gs_f32_to_bf16(x - hi(x)); }
/// a * b as the kernel's matrix unit forms it from split operands: hi*hi + hi*lo + lo*hi.
float split3(float ah, float al, float b) { return ah * hi(b) + ah * lo(b) + al * hi(b); }

int chunks(const gdn_shape& s) { return (s.T + L - 1) / L; }

}  // namespace

size_t gdn_v2_prep_floats(const gdn_shape& s) {
  return size_t(s.B) * s.HV * chunks(s) * gdn2_prep_floats_per_chunk();
}

std::string gdn_v2_unsupported(const gdn_shape& s) {
  if (s.K % GDN2_KS != 0 || s.K > 128) return "gdn_chunk_v2 needs head-dim-k a multiple of 32 and at most 128";
  if (s.V % GDN2_BV != 0) return "gdn_chunk_v2 needs head-dim-v a multiple of 16";
  return "";
}

void gdn_v2_prep_cpu(const gdn_shape& s, const uint16_t* q, const uint16_t* k, const float* g, const uint16_t* beta,
                     float scale, float* prep) {
  if (scale <= 0) scale = float(1.0 / std::sqrt(double(s.K)));
  const int NT = chunks(s), K = s.K;
  std::vector<float> G(L), bet(L), rk(L), rq(L), A(L * L), Tm(L * L), KK(L * L), QK(L * L);
  for (int b = 0; b < s.B; ++b)
    for (int hv = 0; hv < s.HV; ++hv)
      for (int c = 0; c < NT; ++c) {
        const int h = hv / (s.HV / s.H);
        float* out = prep + ((size_t(b) * s.HV + hv) * NT + c) * gdn2_prep_floats_per_chunk();
        auto qrow = [&](int i) -> const uint16_t* {
          long long row = (long long)c * L + i;
          return row < s.T ? q + ((size_t(b) * s.T + row) * s.H + h) * K : nullptr;
        };
        auto krow = [&](int i) -> const uint16_t* {
          long long row = (long long)c * L + i;
          return row < s.T ? k + ((size_t(b) * s.T + row) * s.H + h) * K : nullptr;
        };
        for (int i = 0; i < L; ++i) {
          long long row = (long long)c * L + i;
          size_t gi = (size_t(b) * s.T + (row < s.T ? row : 0)) * s.HV + hv;
          float gv = row < s.T ? g[gi] : 0.0f;
          G[i] = i == 0 ? gv : G[i - 1] + gv;
          bet[i] = row < s.T ? bf(beta[gi]) : 0.0f;
          float ssq = 0, ssk = 0;
          const uint16_t *qi = qrow(i), *ki = krow(i);
          for (int x = 0; x < K; ++x) {
            float a = qi ? bf(qi[x]) : 0.0f, e = ki ? bf(ki[x]) : 0.0f;
            ssq += a * a;
            ssk += e * e;
          }
          rk[i] = 1.0f / std::sqrt(ssk + 1e-6f);
          rq[i] = scale / std::sqrt(ssq + 1e-6f);
        }
        for (int i = 0; i < L; ++i)
          for (int j = 0; j <= i; ++j) {
            const uint16_t *qi = qrow(i), *ki = krow(i), *kj = krow(j);
            float kk = 0, qk = 0;
            for (int x = 0; x < K && kj; ++x) {
              if (ki) kk += bf(ki[x]) * bf(kj[x]);
              if (qi) qk += bf(qi[x]) * bf(kj[x]);
            }
            KK[i * L + j] = kk;
            QK[i * L + j] = qk;
          }
        uint16_t* planes = reinterpret_cast<uint16_t*>(out);  // U_hi, U_lo, P_hi, P_lo
        for (int i = 0; i < L; ++i)
          for (int j = 0; j < L; ++j) {
            float decay = j <= i ? std::exp(G[i] - G[j]) : 0.0f;
            A[i * L + j] = j < i ? bet[i] * KK[i * L + j] * rk[i] * rk[j] * decay : 0.0f;
            const float p = j <= i ? QK[i * L + j] * rq[i] * rk[j] * decay : 0.0f;
            planes[GDN2_P_HI + i * L + j] = hi_bits(p);
            planes[GDN2_P_LO + i * L + j] = lo_bits(p);
          }
        for (int col = 0; col < L; ++col)
          for (int i = 0; i < L; ++i) {
            float x = i == col ? 1.0f : 0.0f;
            if (i > col) {
              x = -A[i * L + col];
              for (int j = col + 1; j < i; ++j) x -= A[i * L + j] * Tm[j * L + col];
            }
            Tm[i * L + col] = x;
          }
        for (int i = 0; i < L; ++i)
          for (int j = 0; j < L; ++j) {
            const float u = Tm[i * L + j] * bet[j];
            planes[GDN2_U_HI + i * L + j] = hi_bits(u);
            planes[GDN2_U_LO + i * L + j] = lo_bits(u);
          }
        float* scal = out + GDN2_SCAL;
        for (int i = 0; i < L; ++i) {
          scal[i] = G[i];
          scal[L + i] = rk[i];
          scal[2 * L + i] = rq[i];
        }
      }
}

void gdn_v2_state_cpu(const gdn_shape& s, const uint16_t* q, const uint16_t* k, const uint16_t* v, const float* h0,
                      const float* prep, float* o, float* ht) {
  const int NT = chunks(s), K = s.K, BV = GDN2_BV, TR = GDN2_TR;
  const long long tiles = (s.T + TR - 1) / TR;
  std::vector<float> S(size_t(K) * BV), dS(size_t(K) * BV), Sh(S.size()), Sl(S.size()), rhs(L * BV), vn(L * BV),
      acc(TR * BV), Wh(TR * BV), Wl(TR * BV);
  for (int b = 0; b < s.B; ++b)
    for (int hv = 0; hv < s.HV; ++hv)
      for (int v0 = 0; v0 < s.V; v0 += BV) {
        const int h = hv / (s.HV / s.H);
        const float* head = prep + (size_t(b) * s.HV + hv) * NT * gdn2_prep_floats_per_chunk();
        const size_t state_base = (size_t(b) * s.HV + hv) * K * s.V;
        for (int x = 0; x < K; ++x)
          for (int y = 0; y < BV; ++y) S[x * BV + y] = h0 ? h0[state_base + size_t(x) * s.V + v0 + y] : 0.0f;
        std::fill(dS.begin(), dS.end(), 0.0f);
        for (long long t = 0; t < tiles; ++t) {
          const long long c = t / (L / TR);
          const int r0 = int(t % (L / TR)) * TR;
          const float* cp = head + c * gdn2_prep_floats_per_chunk();
          const uint16_t* planes = reinterpret_cast<const uint16_t*>(cp);
          auto plane = [&](int which, int i, int j) { return bf(planes[which + i * L + j]); };
          const float *Gc = cp + GDN2_SCAL, *rk = Gc + L, *rq = rk + L;
          auto row_of = [&](int i) { return t * TR + i; };
          auto qk_at = [&](const uint16_t* base, int i, int x) {
            long long row = row_of(i);
            return row < s.T ? bf(base[((size_t(b) * s.T + row) * s.H + h) * K + x]) : 0.0f;
          };
          // The splits, once per tile (the kernel splits at each fragment load: same values).
          for (size_t e = 0; e < S.size(); ++e) {
            Sh[e] = hi(S[e]);
            Sl[e] = lo(S[e]);
          }
          // 1. k S -> rhs', q S -> the o accumulator.
          for (int i = 0; i < TR; ++i)
            for (int y = 0; y < BV; ++y) {
              float ks = 0, qs = 0;
              for (int x = 0; x < K; ++x) {
                const float kv = qk_at(k, i, x), qv = qk_at(q, i, x);
                ks += kv * Sh[x * BV + y] + kv * Sl[x * BV + y];
                qs += qv * Sh[x * BV + y] + qv * Sl[x * BV + y];
              }
              long long row = row_of(i);
              float vv = row < s.T ? bf(v[((size_t(b) * s.T + row) * s.HV + hv) * s.V + v0 + y]) : 0.0f;
              rhs[(r0 + i) * BV + y] = vv - std::exp(Gc[r0 + i]) * rk[r0 + i] * ks;
              acc[i * BV + y] = qs * (std::exp(Gc[r0 + i]) * rq[r0 + i]);
            }
          // 2. vn = U rhs' over the chunk's rows so far (fp32 x fp32: three products).
          for (int i = 0; i < TR; ++i)
            for (int y = 0; y < BV; ++y) {
              float x = 0;
              for (int j = 0; j < r0 + TR; ++j)
                x += split3(plane(GDN2_U_HI, r0 + i, j), plane(GDN2_U_LO, r0 + i, j), rhs[j * BV + y]);
              vn[(r0 + i) * BV + y] = x;
            }
          // 3. o = acc + P vn; dS += k^T diag(rk exp(G_L - G)) vn.
          const float GL = Gc[L - 1];
          for (int i = 0; i < TR; ++i)
            for (int y = 0; y < BV; ++y) {
              float x = acc[i * BV + y];
              for (int j = 0; j < r0 + TR; ++j)
                x += split3(plane(GDN2_P_HI, r0 + i, j), plane(GDN2_P_LO, r0 + i, j), vn[j * BV + y]);
              long long row = row_of(i);
              if (row < s.T) o[((size_t(b) * s.T + row) * s.HV + hv) * s.V + v0 + y] = x;
            }
          for (int i = 0; i < TR; ++i)
            for (int y = 0; y < BV; ++y) {
              const float w = rk[r0 + i] * std::exp(GL - Gc[r0 + i]) * vn[(r0 + i) * BV + y];
              Wh[i * BV + y] = hi(w);
              Wl[i * BV + y] = lo(w);
            }
          for (int x = 0; x < K; ++x)
            for (int y = 0; y < BV; ++y) {
              float d = dS[x * BV + y];
              for (int i = 0; i < TR; ++i) {
                const float kv = qk_at(k, i, x);
                d += kv * Wh[i * BV + y] + kv * Wl[i * BV + y];
              }
              dS[x * BV + y] = d;
            }
          // 4. The chunk's end.
          if (r0 + TR == L || t == tiles - 1) {
            const float eL = std::exp(GL);
            for (size_t e = 0; e < S.size(); ++e) S[e] = eL * S[e] + dS[e];
            std::fill(dS.begin(), dS.end(), 0.0f);
          }
        }
        for (int x = 0; x < K; ++x)
          for (int y = 0; y < BV; ++y) ht[state_base + size_t(x) * s.V + v0 + y] = S[x * BV + y];
      }
}

void gdn_v2_cpu(const gdn_inputs& in, double scale, std::vector<float>& o, std::vector<float>& ht) {
  const gdn_shape& s = in.shape;
  std::vector<float> prep(gdn_v2_prep_floats(s));
  gdn_v2_prep_cpu(s, in.q.data(), in.k.data(), in.g.data(), in.beta.data(), float(scale), prep.data());
  o.assign(s.v_elems(), 0.0f);
  ht.assign(s.state_elems(), 0.0f);
  gdn_v2_state_cpu(s, in.q.data(), in.k.data(), in.v.data(), in.h0.empty() ? nullptr : in.h0.data(), prep.data(),
                   o.data(), ht.data());
}

}  // namespace gs
