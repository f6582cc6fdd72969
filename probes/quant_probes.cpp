// quant.nf4 / quant.fp4: kernels/quant4.cu against kernels/ref/ on this device, bit for bit.
//  1. quantize (f32 input at every blocksize 32..4096; bf16 and fp16 input at 64) on 7 blocks +
//     37 elements (a partial block and an odd count), with an all-zero block (-0.0 included),
//     blocks whose absmax is exactly 1 filled with every threshold and its two float neighbours
//     (ties go to the lower code), a NaN, and +/-inf;
//  2. dequantize those codes to f32 / bf16 / fp16 with v1, v2 and v3;
//  3. double quantization of 700 absmax values (3 blocks of 256, the last partial) and its
//     reconstruction;
//  4. the 4-bit GEMV in f32 / bf16 / fp16 on 77 x 2080 (bs 64) and 33 x 8192 (bs 4096), summed
//     in the reference's order at this device's wave size;
//  5. on a GPU, the timed 8192 x 8192 dequantize and GEMV (quant_rate.cpp).
// Both sides divide with IEEE 1/absmax, so everything is exact; bitsandbytes' fast-math
// reciprocal is the golden comparer's business (src/quant/golden_compare.cpp).
#include "probes/quant_probes.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/gs_device.h"
#include "kernels/ref/double_quant_ref.h"
#include "kernels/ref/gemv4_ref.h"
#include "probes/expected_perf.h"
#include "probes/quant_probe_util.h"
#include "probes/quant_rate.h"

namespace gs {
namespace {

constexpr unsigned block_1d = 256;

// The special values every quantization check carries (see the file comment).
std::vector<float> quant_input(size_t n, int bs, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> inside(-0.99f, 0.99f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  const size_t B = size_t(bs), blocks = n / B;  // full blocks
  if (blocks > 0) {
    for (size_t i = 0; i < B; ++i) v[i] = 0.0f;
    v[1] = -0.0f;
  }
  // Ties: NF4 thresholds, FP4 thresholds of both signs, each with its float neighbours, in blocks
  // 1..4 after a leading +/-1 that makes absmax exactly 1 (so x * inv == x exactly).
  std::vector<float> ties;
  auto add = [&](float t) {
    ties.push_back(t);
    ties.push_back(std::nextafter(t, -INFINITY));
    ties.push_back(std::nextafter(t, INFINITY));
  };
  for (float t : nf4_thresholds()) add(t);
  for (float t : {0.00260417f, 0.0859375f, 0.20833333f, 0.29166667f, 0.4166667f, 0.583333f, 0.8333333f}) {
    add(t);
    add(-t);
  }
  size_t next = 0;
  for (size_t b = 1; b <= 4 && b < blocks; ++b) {
    v[b * B] = b % 2 ? 1.0f : -1.0f;
    for (size_t i = 1; i < B; ++i) v[b * B + i] = next < ties.size() ? ties[next++] : inside(rng);
  }
  if (blocks > 5) v[5 * B + 3] = std::numeric_limits<float>::quiet_NaN();
  if (blocks > 6) {
    v[6 * B + 2] = INFINITY;
    v[6 * B + 5] = -INFINITY;
  }
  return v;
}

struct q4_probe {
  gpu_session& s;
  quant_module& m;
  quant4_kind kind;
  check_log& log;
  int kind_arg() const { return kind == quant4_kind::nf4 ? 0 : 1; }

  // 1. quantize one input (f32, bf16 or fp16 on the device) and compare codes and absmax.
  bool quantize(const std::string& in_name, const std::vector<float>& wide, const void* raw, size_t raw_bytes, int bs) {
    const std::string kname = "quant4_quantize_" + in_name + "_v1";
    kernel_handle k;
    if (!m.kernel(kname, k)) return false;
    const quant4_packed want = quant4_quantize_ref(kind, wide, bs);
    guarded_buffer dx, dp, da;
    std::vector<unsigned char> rawv(static_cast<const unsigned char*>(raw), static_cast<const unsigned char*>(raw) + raw_bytes);
    if (!upload(s, dx, rawv) || !make_output(s, dp, want.packed.size()) || !make_output(s, da, want.absmax.size() * 4))
      return false;
    void *px = dx.ptr(), *pp = dp.ptr(), *pa = da.ptr();
    unsigned long long n = wide.size();
    int bsv = bs, kv = kind_arg();
    void* args[] = {&px, &pp, &pa, &n, &bsv, &kv};
    if (!launch_1d(s, k, want.absmax.size(), block_1d, args)) return false;
    s.phase("verify");
    std::vector<uint8_t> packed;
    std::vector<float> absmax;
    bool g1 = true, g2 = true;
    if (!download(s, dp, packed, g1) || !download(s, da, absmax, g2)) return false;
    bit_check c = compare_u8(fmt::format("{} bs{} codes", kname, bs), packed, want.packed);
    c.guards_ok = g1;
    log.add("quantize", c);
    bit_check a = compare_f32(fmt::format("{} bs{} absmax", kname, bs), absmax, want.absmax);
    a.guards_ok = g2;
    log.add("quantize", a);
    return true;
  }

  // 2. dequantize `q` with one kernel version to one output type.
  bool dequant(const quant4_packed& q, size_t n, int bs, const char* out, const char* ver) {
    const std::string kname = fmt::format("quant4_dequant_{}_{}", out, ver);
    kernel_handle k;
    if (!m.kernel(kname, k)) return false;
    const bool f32 = std::string(out) == "f32";
    guarded_buffer dp, da, dout;
    if (!upload(s, dp, q.packed) || !upload(s, da, q.absmax) || !make_output(s, dout, n * (f32 ? 4 : 2))) return false;
    void *pp = dp.ptr(), *pa = da.ptr(), *po = dout.ptr();
    unsigned long long nn = n;
    int bsv = bs, kv = kind_arg();
    void* args[] = {&pp, &pa, &po, &nn, &bsv, &kv};
    const std::string v(ver);
    const uint64_t threads = v == "v1" ? (n + 1) / 2 : v == "v2" ? (n + 31) / 32 : ((n + 7) / 8 + 3) / 4;
    if (!launch_1d(s, k, threads, block_1d, args)) return false;
    s.phase("verify");
    bool guards = true;
    bit_check c;
    const std::string what = fmt::format("{} bs{}", kname, bs);
    if (f32) {
      std::vector<float> got, want(n);
      if (!download(s, dout, got, guards)) return false;
      quant4_dequant_ref_f32(kind, q.packed, q.absmax, n, bs, want.data());
      c = compare_f32(what, got, want);
    } else {
      std::vector<uint16_t> got, want(n);
      if (!download(s, dout, got, guards)) return false;
      const bool bf16 = std::string(out) == "bf16";
      if (bf16) quant4_dequant_ref_bf16(kind, q.packed, q.absmax, n, bs, want.data());
      else quant4_dequant_ref_f16(kind, q.packed, q.absmax, n, bs, want.data());
      c = compare_f16ish(what, got, want, bf16);
    }
    c.guards_ok = guards;
    log.add(std::string("dequant_") + ver, c);
    return true;
  }

  // 3. double quantization of an absmax vector and its reconstruction.
  bool double_quant(uint32_t seed) {
    kernel_handle kq, kd;
    if (!m.kernel("dq8_quantize_absmax_v1", kq) || !m.kernel("dq8_absmax_dequant_v1", kd)) return false;
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(64 * 700);
    for (float& v : x) v = normal(rng);
    const std::vector<float> absmax = quant4_quantize_ref(kind, x, 64).absmax;
    const float offset = absmax_mean(absmax);
    const std::array<float, 256>& code = dynamic_map_avx2();
    const nested_absmax want = double_quant_ref(absmax, code, offset, 256);
    const std::vector<float> code_v(code.begin(), code.end());
    guarded_buffer dabs, dcode, dq, da2, dout;
    if (!upload(s, dabs, absmax) || !upload(s, dcode, code_v) || !make_output(s, dq, absmax.size()) ||
        !make_output(s, da2, want.absmax2.size() * 4))
      return false;
    void *pabs = dabs.ptr(), *pcode = dcode.ptr(), *pq = dq.ptr(), *pa2 = da2.ptr();
    float off = offset;
    unsigned long long n = absmax.size();
    int bs2 = 256;
    void* qargs[] = {&pabs, &off, &pcode, &pq, &pa2, &n, &bs2};
    if (!launch_1d(s, kq, want.absmax2.size(), 64, qargs)) return false;
    s.phase("verify");
    std::vector<uint8_t> q;
    std::vector<float> a2;
    bool g1 = true, g2 = true;
    if (!download(s, dq, q, g1) || !download(s, da2, a2, g2)) return false;
    bit_check cq = compare_u8("dq8_quantize_absmax_v1 codes", q, want.q);
    cq.guards_ok = g1;
    log.add("double_quant", cq);
    bit_check ca = compare_f32("dq8_quantize_absmax_v1 absmax2", a2, want.absmax2);
    ca.guards_ok = g2;
    log.add("double_quant", ca);

    // Reconstruct from the reference's pieces, so a quantize bug does not hide a dequant one.
    guarded_buffer rq, ra2;
    if (!upload(s, rq, want.q) || !upload(s, ra2, want.absmax2) || !make_output(s, dout, absmax.size() * 4)) return false;
    void *prq = rq.ptr(), *pra2 = ra2.ptr(), *pout = dout.ptr();
    void* dargs[] = {&prq, &pra2, &pcode, &off, &pout, &n, &bs2};
    if (!launch_1d(s, kd, absmax.size(), block_1d, dargs)) return false;
    s.phase("verify");
    std::vector<float> rec;
    bool g3 = true;
    if (!download(s, dout, rec, g3)) return false;
    bit_check cr = compare_f32("dq8_absmax_dequant_v1", rec,
                               nested_absmax_dequant_ref(want.q, want.absmax2, code, offset, 256));
    cr.guards_ok = g3;
    log.add("double_quant", cr);
    return true;
  }

  // 4. the GEMV for one type and shape.
  bool gemv(gemv_type t, int N, int K, int bs, uint32_t seed) {
    const std::string kname = fmt::format("quant4_gemv_{}_v1", gemv_type_name(t));
    kernel_handle k;
    if (!m.kernel(kname, k)) return false;
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> w(size_t(N) * K), a(static_cast<size_t>(K));
    for (float& v : w) v = normal(rng);
    for (float& v : a) v = normal(rng);
    const quant4_packed q = quant4_quantize_ref(kind, w, bs);
    std::vector<unsigned char> a_raw;
    if (t == gemv_type::f32) {
      a_raw.resize(a.size() * 4);
      std::memcpy(a_raw.data(), a.data(), a_raw.size());
    } else {
      std::vector<uint16_t> h = t == gemv_type::bf16 ? to16(a, gs_f32_to_bf16) : to16(a, gs_f32_to_f16);
      a_raw.resize(h.size() * 2);
      std::memcpy(a_raw.data(), h.data(), a_raw.size());
    }
    const size_t out_bytes = size_t(N) * (t == gemv_type::f32 ? 4 : 2);
    guarded_buffer da, db, dabs, dout;
    if (!upload(s, da, a_raw) || !upload(s, db, q.packed) || !upload(s, dabs, q.absmax) || !make_output(s, dout, out_bytes))
      return false;
    void *pa = da.ptr(), *pb = db.ptr(), *pabs = dabs.ptr(), *po = dout.ptr();
    int nv = N, kv = K, bsv = bs, kindv = kind_arg();
    void* args[] = {&pa, &pb, &pabs, &po, &nv, &kv, &bsv, &kindv};
    const unsigned W = unsigned(s.props().wave_size), block = 128, rows_per_block = block / W;
    if (!launch_1d(s, k, uint64_t((N + rows_per_block - 1) / rows_per_block) * block, block, args)) return false;
    s.phase("verify");
    std::vector<unsigned char> want(out_bytes), got;
    gemv4_ref(t, kind, a_raw.data(), q.packed, q.absmax, N, K, bs, int(W), want.data());
    bool guards = true;
    if (!download(s, dout, got, guards)) return false;
    const std::string what = fmt::format("{} {}x{} bs{}", kname, N, K, bs);
    bit_check c;
    if (t == gemv_type::f32) {
      std::vector<float> g(static_cast<size_t>(N)), wv(static_cast<size_t>(N));
      std::memcpy(g.data(), got.data(), out_bytes);
      std::memcpy(wv.data(), want.data(), out_bytes);
      c = compare_f32(what, g, wv);
    } else {
      std::vector<uint16_t> g(static_cast<size_t>(N)), wv(static_cast<size_t>(N));
      std::memcpy(g.data(), got.data(), out_bytes);
      std::memcpy(wv.data(), want.data(), out_bytes);
      c = compare_f16ish(what, g, wv, t == gemv_type::bf16);
    }
    c.guards_ok = guards;
    log.add("gemv", c);
    return true;
  }
};

}  // namespace

probe_result run_quant4_with(const probe_context& ctx, quant4_kind kind, std::unique_ptr<runtime> rt) {
  probe_result r;
  r.id = kind == quant4_kind::nf4 ? "quant.nf4" : "quant.fp4";
  gpu_session s(ctx, r);
  if (rt) s.adopt(std::move(rt));
  else if (!s.open()) return r;
  const bool cpu = s.props().backend == "cpu";
  quant_module m(s, "quant4.cu");
  if (!m.load()) return r;
  check_log log;
  q4_probe p{s, m, kind, log};
  const uint32_t seed = kind == quant4_kind::nf4 ? 4004 : 4044;

  for (int bs : quant4_blocksizes) {
    s.heartbeat();
    const size_t n = size_t(7 * bs + 37);
    const std::vector<float> x = quant_input(n, bs, seed + uint32_t(bs));
    if (!p.quantize("f32", x, x.data(), x.size() * 4, bs)) return r;
    if (bs == 64) {
      for (bool bf16 : {true, false}) {
        std::vector<uint16_t> h = bf16 ? to16(x, gs_f32_to_bf16) : to16(x, gs_f32_to_f16);
        std::vector<float> wide(h.size());
        for (size_t i = 0; i < h.size(); ++i) wide[i] = bf16 ? gs_bf16_to_f32(h[i]) : gs_f16_to_f32(h[i]);
        if (!p.quantize(bf16 ? "bf16" : "f16", wide, h.data(), h.size() * 2, bs)) return r;
      }
    }
    const quant4_packed q = quant4_quantize_ref(kind, x, bs);
    for (const char* out : {"f32", "bf16", "f16"})
      for (const char* ver : {"v1", "v2", "v3"})
        if (!p.dequant(q, n, bs, out, ver)) return r;
  }
  if (!p.double_quant(seed + 7)) return r;
  for (gemv_type t : {gemv_type::f32, gemv_type::bf16, gemv_type::f16}) {
    s.heartbeat();
    if (!p.gemv(t, 77, 2080, 64, seed + 11) || !p.gemv(t, 33, 8192, 4096, seed + 13)) return r;
  }

  quant_rate_options ro;
  ro.kind = kind;
  // Only NF4 is timed by default (the figure docs/quant.md compares with bitsandbytes).
  ro.size = int(option_int(ctx, "size", cpu || kind != quant4_kind::nf4 ? 0 : 8192));
  ro.size -= ro.size % 32;  // the GEMV takes K % 32 == 0
  ro.iters = int(option_int(ctx, "iters", 50));
  ro.blocksize = int(option_int(ctx, "blocksize", 64));
  if (!quant4_blocksize_valid(ro.blocksize)) ro.blocksize = 64;
  if (ro.size > 0) {
    nlohmann::json rate;
    if (!time_quant4(s, m, ro, rate, log)) return r;
    std::string err;
    const expected_perf& perf = builtin_expected_perf(&err);
    if (const gpu_expectation* g = perf.find_gpu(s.props().arch, s.props().name); g && g->copy_gbps > 0)
      rate["device_copy_gbps"] = g->copy_gbps;  // context: the card's measured device copy
    r.data["rate"] = rate;
  }

  r.data["checks"] = log.to_json();
  r.data["elements_checked"] = log.elements();
  if (const bit_check* f = log.first_failure()) {
    s.finish(status::fail, f->describe());
    return r;
  }
  std::string detail = fmt::format("{} checks, {} elements bit-exact (quantize, dequantize v1/v2/v3, double quant, GEMV)",
                                   log.checks(), log.elements());
  if (r.data.contains("rate")) {
    const nlohmann::json& rt_ = r.data["rate"];
    detail += fmt::format("; {}x{} dequantize to bf16 {:.0f} GB/s (v3), GEMV {:.0f} GB/s", ro.size, ro.size,
                          rt_["dequant_bf16"]["v3"]["gbps"].get<double>(), rt_["gemv_bf16"]["gbps"].get<double>());
  }
  s.finish(status::pass, detail);
  return r;
}

namespace {
probe_result run_nf4(const probe_context& ctx) { return run_quant4_with(ctx, quant4_kind::nf4, nullptr); }
probe_result run_fp4(const probe_context& ctx) { return run_quant4_with(ctx, quant4_kind::fp4, nullptr); }
probe_result run_int8(const probe_context& ctx) { return run_int8_with(ctx, nullptr); }
}  // namespace

const probe_spec quant_nf4_probe = {
    "quant.nf4", "bitsandbytes NF4 quantize / dequantize / double quant / 4-bit GEMV, bit-exact vs the CPU reference",
    {"tensor.vector_add"}, true, true, run_nf4};
const probe_spec quant_fp4_probe = {
    "quant.fp4", "bitsandbytes FP4 quantize / dequantize / double quant / 4-bit GEMV, bit-exact vs the CPU reference",
    {"tensor.vector_add"}, true, true, run_fp4};
const probe_spec quant_int8_probe = {
    "quant.int8", "LLM.int8(): row-wise int8 quant with outliers, int32 GEMM, dequant, Linear8bitLt; bit-exact",
    {"tensor.vector_add"}, true, true, run_int8};

}  // namespace gs
