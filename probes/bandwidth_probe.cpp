// memory.bandwidth: copy a large buffer on the device with copy_v1 (naive) and copy_v2 (16-byte
// vectors), check both copies bit for bit, then time copy_v2. GB/s counts every byte twice (read
// and written), the convention of the 3.9 TB/s H200 device-copy figure it is compared with.
#include "probes/bandwidth_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "kernels/gs_device.h"
#include "probes/expected_perf.h"
#include "probes/gpu_session.h"
#include "probes/verify.h"

namespace gs {
namespace {

constexpr unsigned block_threads = 256;

// Distinct, finite, normal floats: a misplaced or dropped element changes the bits, and no NaN
// pattern is involved (a copy must not care, but a host-side float copy could quieten one).
std::vector<float> source_pattern(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t h = uint32_t(i) * 2654435761u ^ uint32_t(i >> 16);
    v[i] = gs_bits_f32((h & 0x3fffffffu) | 0x00800000u);  // exponent 1..127: normal and finite
  }
  return v;
}

// One copy with `k`, then a full bit-for-bit check of dst and its guards.
bool copy_and_check(gpu_session& s, kernel_handle k, const launch_dims& d, void** args, guarded_buffer& dst,
                    const std::vector<float>& want, const char* name, nlohmann::json& data) {
  s.phase("launch");
  if (!s.check(dst.fill_u32(unwritten_bits)) || !s.check(s.rt().launch(k, d, args))) return false;
  s.phase("sync");
  if (!s.check(s.rt().synchronize())) return false;
  s.phase("verify");
  std::vector<float> got(want.size());
  bool guards = false;
  if (!s.check(dst.download(got.data())) || !s.check(dst.check_guards(guards))) return false;
  f32_check c = check_bits(got, want);
  data[name] = c.to_json();
  if (!c.ok()) s.finish(status::fail, std::string(name) + " copy is wrong: " + c.describe());
  else if (!guards) s.finish(status::fail, std::string(name) + " wrote outside its destination (guard bytes changed)");
  return c.ok() && guards;
}

}  // namespace

probe_result run_memory_bandwidth_with(const probe_context& ctx, std::unique_ptr<runtime> rt) {
  probe_result r;
  r.id = "memory.bandwidth";
  gpu_session s(ctx, r);
  if (rt) s.adopt(std::move(rt));
  else if (!s.open()) return r;
  const device_props& p = s.props();
  const bool cpu = p.backend == "cpu";
  // 512 MiB per buffer on a GPU: 1 GiB moved per copy, ~0.3 ms at 3.9 TB/s and far beyond any
  // cache (H200 L2 is 50 MB, MI300X Infinity Cache 256 MB). Capped at an eighth of the memory.
  long long default_mib = cpu ? 16 : std::min<long long>(512, std::max<long long>(1, (long long)(p.total_memory >> 23)));
  const size_t mib = size_t(option_int(ctx, "mib", default_mib));
  const int iters = int(option_int(ctx, "iters", cpu ? 2 : 20));
  const size_t n = mib * (1 << 20) / sizeof(float);
  const size_t bytes = n * sizeof(float);

  module_handle mod;
  kernel_handle k1, k2;
  if (!s.compile("copy_bandwidth.cu", {}, mod) || !s.kernel(mod, "copy_v1", k1) || !s.kernel(mod, "copy_v2", k2)) return r;

  s.phase("launch");
  std::vector<float> src = source_pattern(n);
  guarded_buffer dsrc, ddst;
  if (!s.check(dsrc.create(s.rt(), bytes)) || !s.check(ddst.create(s.rt(), bytes)) || !s.check(dsrc.upload(src.data())))
    return r;
  void *ps = dsrc.ptr(), *pd = ddst.ptr();
  unsigned long long n_arg = n;
  void* args[] = {&ps, &pd, &n_arg};
  launch_dims d1, d2;
  d1.grid[0] = unsigned((n + block_threads - 1) / block_threads);  // v1: one element per thread
  d1.block[0] = d2.block[0] = block_threads;
  // v2 is grid-stride: 8 blocks of 256 threads per SM/CU keep enough loads in flight.
  d2.grid[0] = unsigned(std::max(1, p.compute_units) * 8);

  r.data["bytes_per_buffer"] = bytes;
  if (!copy_and_check(s, k1, d1, args, ddst, src, "copy_v1", r.data) ||
      !copy_and_check(s, k2, d2, args, ddst, src, "copy_v2", r.data))
    return r;

  // Time both versions; the verdict uses v2, v1 is reported to show what vectorising buys.
  s.phase("sync");
  double ms1 = 0, ms2 = 0;
  auto timed = [&](kernel_handle k, const launch_dims& d) {
    return [&, k, d]() {
      for (int i = 0; i < iters; ++i)
        if (runtime_status st = s.rt().launch(k, d, args); !st.ok) return st;
      return runtime_status::success();
    };
  };
  if (!s.check(s.rt().time_ms(timed(k1, d1), ms1)) || !s.check(s.rt().time_ms(timed(k2, d2), ms2))) return r;
  auto gbps = [&](double ms) { return ms > 0 ? 2.0 * double(bytes) * iters / (ms * 1e6) : 0.0; };
  const double v1_gbps = gbps(ms1), v2_gbps = gbps(ms2);

  s.phase("verify");
  const device_expectation e = builtin_expectation(p.arch, p.name, "copy_v2");
  const gpu_expectation* gpu = e.gpu;
  rate_verdict v = judge_rate(v2_gbps, e.expected, e.perf->bandwidth_warn_below, "GB/s",
                              "GPU memory clocks or power capped (nvidia-smi -q -d CLOCK,POWER / amd-smi metric), "
                              "another process using the GPU, or a device other than the one the table assumes");
  r.data["iters"] = iters;
  r.data["copy_v1_gbps"] = v1_gbps;
  r.data["copy_v2_gbps"] = v2_gbps;
  r.data["expected_gbps"] = e.expected;
  r.data["expected_basis"] = e.basis;
  if (gpu && gpu->hbm_peak_gbps > 0) r.data["spec_peak_gbps"] = gpu->hbm_peak_gbps;
  s.finish(v.outcome, "device copy " + v.detail + fmt::format(" (naive copy_v1: {:.4g} GB/s)", v1_gbps));
  return r;
}

namespace {
probe_result run_memory_bandwidth(const probe_context& ctx) { return run_memory_bandwidth_with(ctx, nullptr); }
}  // namespace

const probe_spec memory_bandwidth_probe = {
    "memory.bandwidth", "device copy GB/s, checked bit for bit, against the card's expected band",
    {"tensor.vector_add"}, true, true, run_memory_bandwidth};

}  // namespace gs
