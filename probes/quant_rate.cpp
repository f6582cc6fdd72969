// The timed dequantize and GEMV of quant.nf4; see quant_rate.h. Inputs are random codes (every
// byte value equally likely) and absmax in [0.5, 3): the kernels' speed does not depend on the
// values, and no 64M-element quantization has to run on the host first.
#include "probes/quant_rate.h"

#include <fmt/format.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/gs_device.h"
#include "kernels/ref/gemv4_ref.h"
#include "probes/verify.h"

namespace gs {
namespace {

struct timing {
  double us = 0;
  double gbps = 0;
};

// Average time of one launch over `iters` back-to-back launches, measured with events.
bool time_launches(gpu_session& s, kernel_handle k, const launch_dims& d, void** args, int iters, double bytes, timing& t) {
  double ms = 0;
  s.phase("launch");
  const bool ok = s.check(s.rt().time_ms(
      [&]() {
        for (int i = 0; i < iters; ++i)
          if (runtime_status st = s.rt().launch(k, d, args); !st.ok) return st;
        return runtime_status::success();
      },
      ms));
  if (!ok) return false;
  t.us = ms * 1000.0 / iters;
  t.gbps = t.us > 0 ? bytes / (t.us * 1e-6) / 1e9 : 0;
  return true;
}

launch_dims dims_1d(uint64_t threads, unsigned block) {
  launch_dims d;
  d.block[0] = block;
  d.grid[0] = unsigned((threads + block - 1) / block);
  return d;
}

}  // namespace

bool time_quant4(gpu_session& s, quant_module& m, const quant_rate_options& o, nlohmann::json& out, check_log& log) {
  const int S = o.size, bs = o.blocksize;
  const size_t n = size_t(S) * size_t(S), nblocks = (n + size_t(bs) - 1) / size_t(bs);
  const int kind = o.kind == quant4_kind::nf4 ? 0 : 1;
  std::mt19937 rng(8192);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> scale(0.5f, 3.0f);
  quant4_packed q;
  q.packed.resize(n / 2);
  for (uint8_t& b : q.packed) b = uint8_t(byte(rng));
  q.absmax.resize(nblocks);
  for (float& a : q.absmax) a = scale(rng);
  s.heartbeat();

  guarded_buffer dp, da, dout;
  if (!upload(s, dp, q.packed) || !upload(s, da, q.absmax) || !make_output(s, dout, n * 2)) return false;
  std::vector<uint16_t> want(n), got;
  quant4_dequant_ref_bf16(o.kind, q.packed, q.absmax, n, bs, want.data());
  s.heartbeat();

  const double dq_bytes = double(n) / 2 + double(nblocks) * 4 + double(n) * 2;
  out = {{"size", S}, {"blocksize", bs}, {"iters", o.iters}, {"kind", quant4_kind_name(o.kind)}};
  out["bytes"] = {{"dequant", dq_bytes}};
  void *pp = dp.ptr(), *pa = da.ptr(), *po = dout.ptr();
  unsigned long long nn = n;
  int bsv = bs, kv = kind;
  void* args[] = {&pp, &pa, &po, &nn, &bsv, &kv};
  for (const char* ver : {"v1", "v2", "v3"}) {
    const std::string kname = fmt::format("quant4_dequant_bf16_{}", ver);
    kernel_handle k;
    if (!m.kernel(kname, k)) return false;
    const std::string v(ver);
    const uint64_t threads = v == "v1" ? (n + 1) / 2 : v == "v2" ? (n + 31) / 32 : ((n + 7) / 8 + 3) / 4;
    const launch_dims d = dims_1d(threads, 256);
    if (!s.check(dout.fill_u32(unwritten_bits))) return false;
    s.phase("launch");
    if (!s.check(s.rt().launch(k, d, args))) return false;
    s.phase("sync");
    if (!s.check(s.rt().synchronize())) return false;
    s.phase("verify");
    bool guards = true;
    if (!download(s, dout, got, guards)) return false;
    bit_check c = compare_f16ish(fmt::format("{} {}x{} bs{}", kname, S, S, bs), got, want, true);
    c.guards_ok = guards;
    log.add(std::string("rate_dequant_") + ver, c);
    s.heartbeat();
    timing t;
    if (!time_launches(s, k, d, args, o.iters, dq_bytes, t)) return false;
    out["dequant_bf16"][ver] = {{"us", t.us}, {"gbps", t.gbps}};
  }

  // GEMV: the same codes as an S x S weight, A random bf16.
  kernel_handle kg;
  if (!m.kernel("quant4_gemv_bf16_v1", kg)) return false;
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint16_t> a(static_cast<size_t>(S));
  for (uint16_t& h : a) h = gs_f32_to_bf16(normal(rng));
  guarded_buffer dA, dy;
  if (!upload(s, dA, a) || !make_output(s, dy, size_t(S) * 2)) return false;
  const unsigned W = unsigned(s.props().wave_size), block = 128;
  const launch_dims d = dims_1d(uint64_t((S + block / W - 1) / (block / W)) * block, block);
  void *pA = dA.ptr(), *py = dy.ptr();
  int N = S, K = S;
  void* gargs[] = {&pA, &pp, &pa, &py, &N, &K, &bsv, &kv};
  s.phase("launch");
  if (!s.check(s.rt().launch(kg, d, gargs))) return false;
  s.phase("sync");
  if (!s.check(s.rt().synchronize())) return false;
  s.phase("verify");
  std::vector<uint16_t> y, y_want(static_cast<size_t>(S));
  bool guards = true;
  if (!download(s, dy, y, guards)) return false;
  gemv4_ref(gemv_type::bf16, o.kind, a.data(), q.packed, q.absmax, S, S, bs, int(W), y_want.data());
  bit_check c = compare_f16ish(fmt::format("quant4_gemv_bf16_v1 {}x{} bs{}", S, S, bs), y, y_want, true);
  c.guards_ok = guards;
  log.add("rate_gemv", c);
  const double gemv_bytes = double(n) / 2 + double(nblocks) * 4 + double(S) * 4;
  out["bytes"]["gemv"] = gemv_bytes;
  timing t;
  if (!time_launches(s, kg, d, gargs, o.iters, gemv_bytes, t)) return false;
  out["gemv_bf16"] = {{"us", t.us}, {"gbps", t.gbps}};
  return true;
}

}  // namespace gs
