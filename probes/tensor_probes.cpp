// tensor.vector_add and tensor.reduce. Both are exact checks (tolerance 0), for reasons written
// beside each; an exact check is what lets one wrong element out of millions fail the probe.
#include "probes/tensor_probes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/ref/vector_add_ref.h"
#include "probes/gpu_session.h"
#include "probes/verify.h"

namespace gs {
namespace {

constexpr unsigned block_threads = 256;  // a multiple of both wave sizes (32, 64)

// Download an output and its guards; fold both into one check. False: the result is written.
bool read_output(gpu_session& s, const guarded_buffer& b, std::vector<float>& out, bool& guards_ok) {
  out.resize(b.bytes() / sizeof(float));
  return s.check(b.download(out.data())) && s.check(b.check_guards(guards_ok));
}

}  // namespace

probe_result run_tensor_vector_add_with(const probe_context& ctx, std::unique_ptr<runtime> rt) {
  probe_result r;
  r.id = "tensor.vector_add";
  gpu_session s(ctx, r);
  if (rt) s.adopt(std::move(rt));
  else if (!s.open()) return r;
  // 2^20 + 3: a few MiB, and not a multiple of the block, so the last block is partly idle.
  const bool cpu = s.props().backend == "cpu";
  const unsigned n = unsigned(option_int(ctx, "n", cpu ? (1 << 16) + 3 : (1 << 20) + 3));

  module_handle mod;
  kernel_handle k;
  if (!s.compile("vector_add.cu", {}, mod) || !s.kernel(mod, "vector_add_v1", k)) return r;

  s.phase("launch");
  std::mt19937 rng(20261202);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(n), b(n), want(n);
  for (unsigned i = 0; i < n; ++i) a[i] = dist(rng), b[i] = dist(rng);
  // IEEE special cases at fixed places: NaN propagates, Inf + finite = Inf, Inf + -Inf = NaN.
  const float inf = std::numeric_limits<float>::infinity();
  if (n > 17) a[7] = std::numeric_limits<float>::quiet_NaN(), a[11] = inf, b[13] = -inf, a[17] = inf, b[17] = -inf;
  vector_add_ref(a.data(), b.data(), want.data(), n);

  guarded_buffer da, db, dc;
  size_t bytes = size_t(n) * sizeof(float);
  if (!s.check(da.create(s.rt(), bytes)) || !s.check(db.create(s.rt(), bytes)) || !s.check(dc.create(s.rt(), bytes)) ||
      !s.check(da.upload(a.data())) || !s.check(db.upload(b.data())) || !s.check(dc.fill_u32(unwritten_bits)))
    return r;
  void *pa = da.ptr(), *pb = db.ptr(), *pc = dc.ptr();
  unsigned n_arg = n;
  void* args[] = {&pa, &pb, &pc, &n_arg};
  launch_dims d;
  d.grid[0] = (n + block_threads - 1) / block_threads;
  d.block[0] = block_threads;
  if (!s.check(s.rt().launch(k, d, args))) return r;
  s.phase("sync");
  if (!s.check(s.rt().synchronize())) return r;

  s.phase("verify");
  std::vector<float> got;
  bool guards_ok = false;
  if (!read_output(s, dc, got, guards_ok)) return r;
  // Tolerance 0: one fp32 addition is correctly rounded (IEEE 754) on every GPU we target, so
  // device and reference agree bit for bit; NaN and infinity positions must match too.
  f32_check c = check_f32(got, want, tolerance{0, 0});
  r.data["n"] = n;
  r.data["check"] = c.to_json();
  r.data["guards_intact"] = guards_ok;
  if (!c.ok()) s.finish(status::fail, "vector_add: " + c.describe());
  else if (!guards_ok) s.finish(status::fail, "vector_add wrote outside its output buffer (guard bytes changed)");
  else s.finish(status::pass, fmt::format("vector_add: all {} elements exact, guards intact", n));
  return r;
}

probe_result run_tensor_reduce_with(const probe_context& ctx, std::unique_ptr<runtime> rt) {
  probe_result r;
  r.id = "tensor.reduce";
  gpu_session s(ctx, r);
  if (rt) s.adopt(std::move(rt));
  else if (!s.open()) return r;
  const bool cpu = s.props().backend == "cpu";
  const unsigned n = unsigned(option_int(ctx, "n", cpu ? (1 << 18) + 5 : (1 << 22) + 5));

  module_handle mod;
  kernel_handle k;
  if (!s.compile("reduce_sum.cu", {}, mod) || !s.kernel(mod, "reduce_sum_v1", k)) return r;

  s.phase("launch");
  // Values k / 16 with integer k, |k| <= kmax, and sum |k| < 2^24: every partial sum the kernel
  // can form is a multiple of 1/16 below 2^20 in magnitude, which fp32's 24-bit significand holds
  // exactly. So any order of additions gives the exact sum, and the check can demand equality:
  // a single element dropped or added twice changes the result.
  const int kmax = int(std::min<long long>(3, ((1ll << 24) - 1) / n));
  std::mt19937 rng(4242);
  std::uniform_int_distribution<int> dist(-kmax, kmax);
  std::vector<float> x(n);
  std::vector<int> ks(n);
  for (unsigned i = 0; i < n; ++i) ks[i] = dist(rng), x[i] = float(ks[i]) / 16.0f;

  const unsigned grid = std::min<unsigned>((n + block_threads - 1) / block_threads, 1024);
  // Exact per-block sums, from the kernel's grid-stride assignment: element i is visited by
  // global thread i mod (grid * block), which lives in block (i mod (grid * block)) / block.
  std::vector<long long> block_k(grid, 0);
  long long total_k = 0;
  for (unsigned i = 0; i < n; ++i) {
    block_k[(i % (grid * block_threads)) / block_threads] += ks[i];
    total_k += ks[i];
  }
  std::vector<float> want_partial(grid);
  for (unsigned b = 0; b < grid; ++b) want_partial[b] = float(double(block_k[b]) / 16.0);
  const float want_total = float(double(total_k) / 16.0);

  guarded_buffer dx, dpartial, dtotal;
  if (!s.check(dx.create(s.rt(), size_t(n) * 4)) || !s.check(dpartial.create(s.rt(), size_t(grid) * 4)) ||
      !s.check(dtotal.create(s.rt(), 4)) || !s.check(dx.upload(x.data())) ||
      !s.check(dpartial.fill_u32(unwritten_bits)) || !s.check(dtotal.fill_u32(unwritten_bits)))
    return r;
  void *px = dx.ptr(), *ppartial = dpartial.ptr(), *ptotal = dtotal.ptr();
  unsigned n_arg = n, grid_arg = grid;
  void* args1[] = {&px, &ppartial, &n_arg};
  void* args2[] = {&ppartial, &ptotal, &grid_arg};
  launch_dims d1, d2;
  d1.grid[0] = grid;
  d1.block[0] = d2.block[0] = block_threads;
  if (!s.check(s.rt().launch(k, d1, args1)) || !s.check(s.rt().launch(k, d2, args2))) return r;
  s.phase("sync");
  if (!s.check(s.rt().synchronize())) return r;

  s.phase("verify");
  std::vector<float> partial, total;
  bool guards_partial = false, guards_total = false;
  if (!read_output(s, dpartial, partial, guards_partial) || !read_output(s, dtotal, total, guards_total)) return r;
  f32_check cp = check_f32(partial, want_partial, tolerance{0, 0});
  f32_check ct = check_f32(total, std::vector<float>{want_total}, tolerance{0, 0});
  r.data["n"] = n;
  r.data["grid"] = grid;
  r.data["block"] = block_threads;
  r.data["wave_size"] = s.props().wave_size;
  r.data["sum"] = total.empty() ? 0.0 : double(total[0]);
  r.data["expected_sum"] = double(want_total);
  r.data["partials"] = cp.to_json();
  r.data["guards_intact"] = guards_partial && guards_total;
  if (!cp.ok()) s.finish(status::fail, "reduce_sum: per-block partial sums: " + cp.describe());
  else if (!ct.ok()) s.finish(status::fail, fmt::format("reduce_sum: total {} but the exact sum is {}", total[0], want_total));
  else if (!guards_partial || !guards_total) s.finish(status::fail, "reduce_sum wrote outside its output buffers (guard bytes changed)");
  else s.finish(status::pass, fmt::format("reduce_sum of {} elements exact ({}), {} block partials exact, wave {}", n,
                                          want_total, grid, s.props().wave_size));
  return r;
}

namespace {
probe_result run_vector_add(const probe_context& ctx) { return run_tensor_vector_add_with(ctx, nullptr); }
probe_result run_reduce(const probe_context& ctx) { return run_tensor_reduce_with(ctx, nullptr); }
}  // namespace

const probe_spec tensor_vector_add_probe = {
    "tensor.vector_add", "vector add kernel: every element exact against the CPU reference, no stray writes",
    {"device.visible"}, true, true, run_vector_add};
const probe_spec tensor_reduce_probe = {
    "tensor.reduce", "warp-shuffle sum kernel: exact total and per-block partials, for the device's wave size",
    {"device.visible"}, true, true, run_reduce};

}  // namespace gs
