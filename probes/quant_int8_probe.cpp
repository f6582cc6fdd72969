// quant.int8: kernels/int8.cu against kernels/ref/int8_ref.cpp on this device, bit for bit.
// A (37 x 300 fp16) has outliers at threshold 6.0 in three columns (one exactly 6.0: '>=' makes it
// an outlier; 5.996 just below is not), an all-zero row, a row whose only non-zeros are outliers,
// and a NaN; W (45 x 300) is quantized without decomposition. Then the int32 GEMM (also on
// 64 x 64 x 4096 full-range codes), the fp16 dequant with an fp16 bias, and the fp16 outlier
// product of Linear8bitLt. Everything here is exact arithmetic or one rounding on each side.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <random>

#include "kernels/gs_device.h"
#include "kernels/ref/int8_ref.h"
#include "probes/quant_probe_util.h"
#include "probes/quant_probes.h"

namespace gs {
namespace {

constexpr float threshold = 6.0f;

std::vector<float> from_f16(const std::vector<uint16_t>& h) {
  std::vector<float> x(h.size());
  for (size_t i = 0; i < h.size(); ++i) x[i] = gs_f16_to_f32(h[i]);
  return x;
}

struct i8_probe {
  gpu_session& s;
  quant_module& m;
  check_log& log;

  // Row-wise quantization of an fp16 matrix on the device (outlier flags first when threshold > 0).
  bool row_quant(const char* name, const std::vector<uint16_t>& a, int rows, int cols, float t, const int8_quant& want) {
    kernel_handle kf, kq;
    if (!m.kernel("int8_outlier_cols_v1", kf) || !m.kernel("int8_row_quant_v1", kq)) return false;
    guarded_buffer da, dflags, dq, dstats;
    if (!upload(s, da, a) || !make_output(s, dflags, size_t(cols)) || !make_output(s, dq, size_t(rows) * cols) ||
        !make_output(s, dstats, size_t(rows) * 4))
      return false;
    void *pa = da.ptr(), *pf = dflags.ptr(), *pq = dq.ptr(), *ps = dstats.ptr();
    int r = rows, c = cols;
    float tv = t;
    void* fargs[] = {&pa, &pf, &r, &c, &tv};
    if (!launch_1d(s, kf, uint64_t(cols), 128, fargs)) return false;
    s.phase("verify");
    std::vector<uint8_t> flags, want_flags(size_t(cols), 0);
    for (int oc : want.outlier_cols) want_flags[size_t(oc)] = 1;
    bool g0 = true;
    if (!download(s, dflags, flags, g0)) return false;
    bit_check cf = compare_u8(std::string("int8_outlier_cols_v1 ") + name, flags, want_flags);
    cf.guards_ok = g0;
    log.add("outliers", cf);

    void* qargs[] = {&pa, &pf, &pq, &ps, &r, &c, &tv};
    launch_dims d;
    d.block[0] = 256;  // a multiple of 32 and 64
    d.grid[0] = unsigned(rows);
    s.phase("launch");
    if (!s.check(s.rt().launch(kq, d, qargs))) return false;
    s.phase("sync");
    if (!s.check(s.rt().synchronize())) return false;
    s.phase("verify");
    std::vector<int8_t> q;
    std::vector<float> stats;
    bool g1 = true, g2 = true;
    if (!download(s, dq, q, g1) || !download(s, dstats, stats, g2)) return false;
    bit_check cq = compare_i8(std::string("int8_row_quant_v1 codes ") + name, q, want.q);
    cq.guards_ok = g1;
    log.add("row_quant", cq);
    bit_check cs = compare_f32(std::string("int8_row_quant_v1 absmax ") + name, stats, want.stats);
    cs.guards_ok = g2;
    log.add("row_quant", cs);
    return true;
  }

  bool gemm(const std::vector<int8_t>& a, const std::vector<int8_t>& b, int M, int N, int K) {
    kernel_handle k;
    if (!m.kernel("int8_gemm_i32_v1", k)) return false;
    guarded_buffer da, db, dc;
    if (!upload(s, da, a) || !upload(s, db, b) || !make_output(s, dc, size_t(M) * N * 4)) return false;
    void *pa = da.ptr(), *pb = db.ptr(), *pc = dc.ptr();
    int mv = M, nv = N, kv = K;
    void* args[] = {&pa, &pb, &pc, &mv, &nv, &kv};
    launch_dims d;
    d.block[0] = d.block[1] = 16;
    d.grid[0] = unsigned((N + 15) / 16), d.grid[1] = unsigned((M + 15) / 16);
    s.phase("launch");
    if (!s.check(s.rt().launch(k, d, args))) return false;
    s.phase("sync");
    if (!s.check(s.rt().synchronize())) return false;
    s.phase("verify");
    std::vector<int32_t> got;
    bool guards = true;
    if (!download(s, dc, got, guards)) return false;
    bit_check c = compare_i32(fmt::format("int8_gemm_i32_v1 {}x{}x{}", M, N, K), got, int8_gemm_i32_ref(a, b, M, N, K));
    c.guards_ok = guards;
    log.add("gemm_i32", c);
    return true;
  }

  // Dequant of acc with an fp16 bias, then the outlier product on top; both against the refs.
  bool dequant_and_linear(const std::vector<int32_t>& acc, const int8_quant& qa, const int8_quant& qw,
                          const std::vector<uint16_t>& a16, const std::vector<uint16_t>& bias16, int M, int N, int K) {
    kernel_handle kd, ko;
    if (!m.kernel("int8_mm_dequant_v1", kd) || !m.kernel("int8_outlier_addmm_v1", ko)) return false;
    std::vector<int> ocols = qa.outlier_cols;
    guarded_buffer dacc, drs, dcs, dbias, dout, da, dcw, dscw, docols;
    if (!upload(s, dacc, acc) || !upload(s, drs, qa.stats) || !upload(s, dcs, qw.stats) || !upload(s, dbias, bias16) ||
        !make_output(s, dout, size_t(M) * N * 2) || !upload(s, da, a16) || !upload(s, dcw, qw.q) ||
        !upload(s, dscw, qw.stats) || !upload(s, docols, ocols))
      return false;
    void *pacc = dacc.ptr(), *prs = drs.ptr(), *pcs = dcs.ptr(), *pb = dbias.ptr(), *po = dout.ptr();
    int mv = M, nv = N, kv = K, no = int(ocols.size());
    void* dargs[] = {&pacc, &prs, &pcs, &pb, &po, &mv, &nv};
    if (!launch_1d(s, kd, uint64_t(M) * N, 256, dargs)) return false;
    s.phase("verify");
    const std::vector<float> bias = from_f16(bias16), a = from_f16(a16);
    std::vector<uint16_t> out, want = int8_mm_dequant_ref(acc, qa.stats, qw.stats, bias, M, N);
    bool g1 = true;
    if (!download(s, dout, out, g1)) return false;
    bit_check c1 = compare_f16ish("int8_mm_dequant_v1", out, want, false);
    c1.guards_ok = g1;
    log.add("dequant", c1);

    void *pa = da.ptr(), *pcw = dcw.ptr(), *pscw = dscw.ptr(), *poc = docols.ptr();
    void* oargs[] = {&pa, &pcw, &pscw, &poc, &no, &po, &mv, &nv, &kv};
    if (!launch_1d(s, ko, uint64_t(M) * N, 256, oargs)) return false;
    s.phase("verify");
    bool g2 = true;
    if (!download(s, dout, out, g2)) return false;
    bit_check c2 = compare_f16ish("Linear8bitLt forward (int8_mm_dequant_v1 + int8_outlier_addmm_v1)", out,
                                  linear8bitlt_forward_ref(a, qw.q, qw.stats, bias, M, N, K, threshold), false);
    c2.guards_ok = g2;
    log.add("linear8bitlt", c2);
    return true;
  }
};

}  // namespace

probe_result run_int8_with(const probe_context& ctx, std::unique_ptr<runtime> rt) {
  probe_result r;
  r.id = "quant.int8";
  gpu_session s(ctx, r);
  if (rt) s.adopt(std::move(rt));
  else if (!s.open()) return r;
  quant_module m(s, "int8.cu");
  if (!m.load()) return r;
  check_log log;
  i8_probe p{s, m, log};

  const int M = 37, N = 45, K = 300;
  std::mt19937 rng(8008);
  std::normal_distribution<float> normal(0.0f, 1.5f), wnormal(0.0f, 0.5f);
  std::vector<float> a(size_t(M) * K), w(size_t(N) * K), bias(static_cast<size_t>(N));
  for (float& v : a) v = normal(rng);
  for (float& v : w) v = wnormal(rng);
  for (float& v : bias) v = wnormal(rng);
  for (float& v : a) v = std::fmax(std::fmin(v, 5.5f), -5.5f);  // outliers only where planted
  a[size_t(3) * K + 5] = 6.0f;      // exactly the threshold: an outlier ('>=')
  a[size_t(4) * K + 77] = -7.5f;
  a[size_t(9) * K + 299] = 12.0f;
  a[size_t(10) * K + 6] = 5.99609375f;  // the largest fp16 below 6: not an outlier
  for (int c = 0; c < K; ++c) a[size_t(20) * K + c] = 0.0f;  // an all-zero row
  for (int c = 0; c < K; ++c) a[size_t(21) * K + c] = 0.0f;  // only outliers in this row
  a[size_t(21) * K + 5] = -9.0f;
  a[size_t(21) * K + 77] = 6.5f;
  a[size_t(30) * K + 100] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<uint16_t> a16 = to16(a, gs_f32_to_f16), w16 = to16(w, gs_f32_to_f16), bias16 = to16(bias, gs_f32_to_f16);
  const std::vector<float> aw = from_f16(a16), ww = from_f16(w16);

  const int8_quant qa = int8_vectorwise_quant_ref(aw, M, K, threshold);
  const int8_quant qw = int8_vectorwise_quant_ref(ww, N, K, 0.0f);
  if (!p.row_quant("A (threshold 6)", a16, M, K, threshold, qa) || !p.row_quant("W (no threshold)", w16, N, K, 0.0f, qw))
    return r;
  if (!p.gemm(qa.q, qw.q, M, N, K)) return r;
  std::uniform_int_distribution<int> code(-128, 127);
  std::vector<int8_t> big_a(64 * 4096), big_b(64 * 4096);
  for (int8_t& v : big_a) v = int8_t(code(rng));
  for (int8_t& v : big_b) v = int8_t(code(rng));
  if (!p.gemm(big_a, big_b, 64, 64, 4096)) return r;
  if (!p.dequant_and_linear(int8_gemm_i32_ref(qa.q, qw.q, M, N, K), qa, qw, a16, bias16, M, N, K)) return r;

  r.data["checks"] = log.to_json();
  r.data["elements_checked"] = log.elements();
  r.data["outlier_cols"] = qa.outlier_cols;
  if (const bit_check* f = log.first_failure()) {
    s.finish(status::fail, f->describe());
    return r;
  }
  s.finish(status::pass, fmt::format("{} checks, {} elements bit-exact (outliers at threshold 6, row quant, int32 GEMM, "
                                     "fp16 dequant, Linear8bitLt)",
                                     log.checks(), log.elements()));
  return r;
}

}  // namespace gs
