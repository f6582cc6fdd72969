// run_blas_library (blas_run.h): one vendor BLAS at a QLoRA step's GEMMs, checked and timed.
//
// Check: C is bf16/fp16 as torch asks for it, so the bound is gemm_inputs.h's fp32-accumulation
// bound b = gemm_error_bound(K, sum |a_k b_k|) plus one rounding of the result to the output type,
// u (|want| + b), u = 2^-8 (bf16) or 2^-11 (fp16). K = 5376, inputs in [-1, 1]: |C| ~ 25,
// b ~ 0.8, u |C| ~ 0.1 (bf16); a wrong index or a lost k-tile moves an element by ~|C|.
// Cost on the host: M <= 64 rows are all compared, larger ones in gemm_sample_rows' 8 rows, so
// one GEMM costs 8 N K multiply-adds to check (the largest gemma4-31b GEMM, 8 x 21504 x 5376 =
// 0.9 G), one row per core, and every element is checked for having been written.
//
// Band: the library's own rate first, on a square GEMM (S^3, F.linear's layout) judged against
// the card's dense peak (expected_perf.toml, [[kernel]] blas_gemm_*); then each GEMM of the step
// against a roofline from that measured rate and the card's HBM peak:
//   expected_ms = max(flops / library_rate, min_bytes / hbm_peak).
// GEMMs whose roofline is under 20 us (the LoRA ones: 2 x 2048 x 16 x 1024 = 67 MFLOP, 4 MB,
// ~1 us at 4.8 TB/s) are latency-bound: a launch costs 5-10 us on either vendor, so they are
// timed and summed into the step, not judged against a roofline they cannot reach.
#include "probes/blas_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "blas/blas_search.h"
#include "core/parallel_for.h"
#include "kernels/ref/gemm_ref.h"
#include "probes/expected_perf.h"
#include "probes/gemm_inputs.h"
#include "probes/gpu_session.h"
#include "probes/verify.h"

namespace gs {

void blas_breadcrumb::set(const std::string& s) {
  const size_t n = std::min(s.size(), sizeof text - 1);
  std::memcpy(text, s.data(), n);
  text[n] = '\0';
}

std::string blas_breadcrumb::get() const { return std::string(text, strnlen(text, sizeof text)); }

namespace {

// A NaN in both bf16 (exponent 0xff, mantissa 0x3a) and fp16 (exponent 0x1f, mantissa 0x3ba): no
// arithmetic writes this payload, so an element still holding it was never written.
constexpr uint16_t unwritten16 = 0x7fba;
constexpr double latency_bound_ms = 0.020;
constexpr size_t workspace_bytes = size_t(32) << 20;  // ample: no algorithm refused for want of it

gemm_type input_type(blas_type t) { return t == blas_type::fp16 ? gemm_type::fp16 : gemm_type::bf16; }
double unit_roundoff(blas_type t) { return t == blas_type::fp16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8); }
const char* peak_key(blas_type t) { return t == blas_type::fp16 ? "fp16_tflops" : "bf16_tflops"; }
const char* expect_kernel(blas_type t) { return t == blas_type::fp16 ? "blas_gemm_f16" : "blas_gemm_bf16"; }

std::string shape_text(const qlora_gemm& g) {
  return fmt::format("{} {}x{}x{}{}{}", g.name, g.m, g.n, g.k, g.trans_a ? " A^T" : "", g.trans_b ? " B^T" : "");
}

struct gemm_outcome {
  blas_status st;         // a library call that failed (plan or run)
  f32_check check;
  bool guards_ok = true;
  std::string first_bad;  // "C[17][3] = 2.5, want 1.25 (bound 0.02)"
  double ms = 0;          // per run
  std::string algorithm;
};

// Row r of op(A) as a contiguous vector (A stored k x m when trans_a).
std::vector<float> op_a_row(const std::vector<float>& a, const qlora_gemm& g, int64_t r) {
  std::vector<float> row(size_t(g.k));
  for (int64_t l = 0; l < g.k; ++l) row[size_t(l)] = g.trans_a ? a[size_t(l * g.m + r)] : a[size_t(r * g.k + l)];
  return row;
}

// Upload seeded inputs, plan, run once, check, time `iters` runs. False when the runtime failed
// (the session holds the outcome); a library failure comes back in out.st.
bool run_gemm(gpu_session& s, blas_library& lib, const qlora_gemm& g, blas_type t, uint32_t seed, int iters,
              gemm_outcome& out) {
  const gemm_type gt = input_type(t);
  const size_t a_n = size_t(g.m * g.k), b_n = size_t(g.k * g.n), c_n = size_t(g.m * g.n);
  s.phase("load");
  matrix_input a = random_matrix(gt, a_n, seed), b = random_matrix(gt, b_n, seed + 1);
  s.heartbeat();
  guarded_buffer da, db, dc;
  if (!s.check(da.create(s.rt(), a_n * 2)) || !s.check(db.create(s.rt(), b_n * 2)) || !s.check(dc.create(s.rt(), c_n * 2)) ||
      !s.check(da.upload(a.raw.data())) || !s.check(db.upload(b.raw.data())) ||
      !s.check(dc.fill_u32(uint32_t(unwritten16) << 16 | unwritten16)))
    return false;
  blas_gemm call{g.trans_a, g.trans_b, g.m, g.n, g.k, t, da.ptr(), db.ptr(), dc.ptr()};
  std::unique_ptr<blas_plan> plan;
  if (out.st = lib.plan(call, plan); !out.st.ok()) return true;
  out.algorithm = plan->algorithm();
  s.phase("launch");
  if (out.st = plan->run(); !out.st.ok()) return true;
  s.phase("sync");
  if (!s.check(s.rt().synchronize())) return false;

  s.phase("verify");
  std::vector<uint16_t> raw(c_n);
  if (!s.check(dc.download(raw.data())) || !s.check(dc.check_guards(out.guards_ok))) return false;
  const std::vector<float> got = t == blas_type::fp16 ? widen_f16(raw.data(), c_n) : widen_bf16(raw.data(), c_n);
  std::vector<int> rows;
  if (g.m <= 64)
    for (int r = 0; r < g.m; ++r) rows.push_back(r);
  else
    rows = gemm_sample_rows(int(g.m), seed);
  const double u = unit_roundoff(t);
  // The sampled rows' references, rows spread over the host's cores: the 8-row check of one
  // 2048 x 21504 x 5376 GEMM is 0.9 G fma; a gemma4-31b step's 107 GEMMs spent 189 s of a 225 s
  // probe here on one core (H100 run of 2026-12-05), a few seconds on a 16-core host.
  std::vector<std::vector<float>> want(rows.size());
  std::vector<std::vector<double>> sums(rows.size());
  parallel_for(rows.size(), [&](size_t i) {
    const std::vector<float> arow = op_a_row(a.wide, g, rows[i]);
    want[i].resize(size_t(g.n)), sums[i].resize(size_t(g.n));
    gemm_ref_row(arow.data(), b.wide.data(), int(g.n), int(g.k), g.trans_b, want[i].data(), sums[i].data());
  });
  s.heartbeat();
  std::vector<float> got_rows, want_rows;
  std::vector<double> bounds;
  std::vector<std::pair<int64_t, int64_t>> where;
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t r = rows[i];
    for (int64_t c = 0; c < g.n; ++c) {
      const double bound = gemm_error_bound(int(g.k), sums[i][size_t(c)]);
      got_rows.push_back(got[size_t(r * g.n + c)]);
      want_rows.push_back(want[i][size_t(c)]);
      bounds.push_back(bound + u * (std::fabs(want[i][size_t(c)]) + bound));
      where.emplace_back(r, c);
    }
  }
  out.check = check_f32(got_rows, want_rows, bounds);
  if (!out.check.ok()) {
    const size_t i = size_t(out.check.first_bad);
    out.first_bad = fmt::format("C[{}][{}] = {:.6g}, want {:.6g} (bound {:.3g})", where[i].first, where[i].second,
                                got_rows[i], want_rows[i], bounds[i]);
  }
  // Rows not compared must still have been written.
  size_t unwritten = 0, first_unwritten = 0;
  for (size_t i = 0; i < c_n; ++i)
    if (raw[i] == unwritten16 && unwritten++ == 0) first_unwritten = i;
  if (unwritten && out.check.ok()) {
    out.check.bad += unwritten, out.check.unwritten += unwritten;
    out.check.first_bad = (long long)first_unwritten;
    out.first_bad = fmt::format("C[{}][{}] never written ({} elements)", first_unwritten / size_t(g.n),
                                first_unwritten % size_t(g.n), unwritten);
  }
  if (!out.check.ok() || !out.guards_ok) return true;

  s.phase("sync");
  double ms = 0;
  blas_status run_st;
  if (!s.check(s.rt().time_ms(
          [&]() {
            for (int i = 0; i < iters; ++i)
              if (run_st = plan->run(); !run_st.ok()) return run_st.st;
            return runtime_status::success();
          },
          ms))) {
    if (!run_st.ok()) out.st = run_st;  // the library's failure, not the runtime's
    return run_st.ok() ? false : true;
  }
  out.ms = ms / iters;
  return true;
}

}  // namespace

probe_result run_blas_library(const probe_context& ctx, const blas_run_request& req) {
  const char* name = blas_name(req.library);
  probe_result r;
  r.id = ctx.probe_id;
  gpu_session s(ctx, r);
  auto crumb = [&](const std::string& what) {
    if (req.crumb) req.crumb->set(what);
  };
  // The library before the runtime: a ROCm wheel's torch/lib/libhipblaslt.so brings its own
  // libamdhip64 (RPATH $ORIGIN), and the runtime's dlopen("libamdhip64.so.N") then finds that
  // already-loaded copy by its SONAME instead of loading /opt/rocm's: one HIP runtime in the
  // process, the one torch would use, so the buffers the runtime allocates are the library's.
  crumb("loading the library");
  runtime_status why;
  std::unique_ptr<blas_library> lib = open_blas(req.library, blas_candidates(req.library, ctx.facts), why);
  crumb("opening the runtime");
  if (req.open_rt) s.adopt(req.open_rt());
  else if (!s.open()) return r;
  const device_props& p = s.props();
  const std::string wants = req.library == blas_id::cublaslt ? "cuda" : "hip";
  if (p.backend != wants && !req.library_named) {
    s.finish(status::skip, fmt::format("{} serves {} devices; this one is {}", name, wants, p.backend));
    return r;
  }
  if (!lib) {
    s.finish(status::skip, fmt::format("{} not found ({} names one file): {}", name, blas_override_env(req.library),
                                       why.message));
    return r;
  }
  r.data["library"] = name;
  r.data["arch"] = p.arch;
  r.data["path"] = lib->path();
  crumb("creating the handle");
  r.data["version"] = lib->version();  // cuBLASLt and rocBLAS say it without a handle
  if (blas_status st = lib->create(); !st.ok()) {
    // Without a GPU (the cpu backend) a real library can only say why it cannot start.
    s.finish(p.backend == "cpu" ? status::skip : status::fail,
             fmt::format("{} {} ({}) {}: {}: {}", name, r.data["version"].get<std::string>(), lib->path(),
                         p.backend == "cpu" ? "loads but has no GPU to use" : "failed", st.st.call, st.st.message));
    r.data["no_kernel"] = st.no_kernel;
    return r;
  }
  const std::string version = lib->version();
  r.data["version"] = version;
  guarded_buffer workspace;
  if (!s.check(workspace.create(s.rt(), workspace_bytes))) return r;
  lib->set_workspace(workspace.ptr(), workspace_bytes);

  const device_expectation e = builtin_expectation(p.arch, p.name, expect_kernel(req.type));
  const double hbm_gbps = e.gpu ? e.gpu->hbm_peak_gbps : 0;
  const double warn_below = e.perf ? e.perf->gemm_warn_below : 0.30;
  qlora_gemm square;
  square.name = "reference.square", square.role = "reference";
  square.m = square.n = square.k = req.square;
  square.trans_b = true;  // F.linear's x W^T
  std::vector<qlora_gemm> all{square};
  all.insert(all.end(), req.gemms.begin(), req.gemms.end());

  nlohmann::json rows = nlohmann::json::array(), no_kernel = nlohmann::json::array();
  std::vector<std::string> slow;
  double library_tflops = 0, max_rel = 0;
  // A step runs the base GEMMs and one rank's LoRA GEMMs: totals per rank (the base ones under 0).
  std::map<int, double> step_ms, step_roofline_ms;
  rate_verdict square_verdict;
  uint32_t seed = 7001;
  for (const qlora_gemm& g : all) {
    crumb("GEMM " + shape_text(g));
    gemm_outcome o;
    if (!run_gemm(s, *lib, g, req.type, seed += 2, req.iters, o)) return r;
    if (!o.st.ok()) {
      if (o.st.no_kernel) {
        no_kernel.push_back({{"gemm", shape_text(g)}, {"call", o.st.st.call}, {"message", o.st.st.message}});
        continue;
      }
      s.finish(status::fail, fmt::format("{} {} at {}: {}: {}", name, version, shape_text(g), o.st.st.call, o.st.st.message));
      r.data["gemms"] = rows;
      return r;
    }
    if (!o.check.ok() || !o.guards_ok) {
      r.data["gemms"] = rows;
      r.data["first_bad"] = {{"gemm", shape_text(g)}, {"element", o.first_bad}, {"check", o.check.to_json()}};
      s.finish(status::fail, fmt::format("{} {} gives wrong results at {}: {}; {}", name, version, shape_text(g),
                                         o.guards_ok ? o.check.describe() : "wrote outside C (guard bytes changed)",
                                         o.first_bad));
      return r;
    }
    max_rel = std::max(max_rel, o.check.max_rel_err);
    const double tflops = o.ms > 0 ? double(g.flops()) / (o.ms * 1e9) : 0;
    nlohmann::json row = {{"gemm", g.name}, {"m", g.m}, {"n", g.n}, {"k", g.k}, {"trans_a", g.trans_a},
                          {"trans_b", g.trans_b}, {"uses_per_step", g.uses_per_step}, {"ms", o.ms}, {"tflops", tflops},
                          {"gbps", o.ms > 0 ? double(g.min_bytes(2)) / (o.ms * 1e6) : 0}, {"algorithm", o.algorithm},
                          {"max_rel_err", o.check.max_rel_err}};
    if (&g == &all.front()) {
      library_tflops = tflops;
      square_verdict = judge_rate(tflops, e.expected, warn_below, "TFLOP/s",
                                  "GPU clocks or power capped (nvidia-smi -q -d CLOCK,POWER / amd-smi metric), another "
                                  "process on the GPU, or a fallback kernel (the library's tuned kernels not built for this arch)");
      row["verdict"] = square_verdict.detail;
    } else if (library_tflops > 0 && hbm_gbps > 0 && o.ms > 0) {
      const double roof = std::max(double(g.flops()) / (library_tflops * 1e9), double(g.min_bytes(2)) / (hbm_gbps * 1e6));
      row["roofline_ms"] = roof;
      step_roofline_ms[g.rank] += roof * g.uses_per_step;
      if (roof < latency_bound_ms) row["judged"] = "latency-bound (roofline under 20 us): timed, not judged";
      else {
        row["fraction_of_roofline"] = roof / o.ms;
        if (roof / o.ms < warn_below) slow.push_back(fmt::format("{} at {:.0f}% of its roofline", shape_text(g), 100 * roof / o.ms));
      }
    }
    if (&g != &all.front()) step_ms[g.rank] += o.ms * g.uses_per_step;
    rows.push_back(row);
  }
  r.data["gemms"] = rows;
  r.data["library_tflops"] = library_tflops;
  // {"8": base + rank-8 LoRA, "16": ..., "64": ...}: what one step's GEMMs cost at each rank.
  std::vector<std::string> step_text;
  const double base_ms = step_ms.count(0) ? step_ms.at(0) : 0;
  const double base_roof = step_roofline_ms.count(0) ? step_roofline_ms.at(0) : 0;
  for (const auto& [rank, ms] : step_ms) {
    if (rank == 0) continue;
    r.data["step_gemm_ms"][std::to_string(rank)] = base_ms + ms;
    if (step_roofline_ms.count(rank))
      r.data["step_roofline_ms"][std::to_string(rank)] = base_roof + step_roofline_ms.at(rank);
    step_text.push_back(fmt::format("r{} {:.3g}", rank, base_ms + ms));
  }
  r.data["expected_basis"] = e.basis;
  if (e.gpu) r.data["card_peak_tflops"] = e.gpu->figure(peak_key(req.type));
  if (!no_kernel.empty()) {
    r.data["no_kernel"] = no_kernel;
    s.finish(status::fail, fmt::format("{} {} has no kernel on {} for {} of {} GEMMs (first: {}: {})", name, version, p.arch,
                                       no_kernel.size(), all.size(), no_kernel[0]["gemm"].get<std::string>(),
                                       no_kernel[0]["message"].get<std::string>()));
    return r;
  }
  const std::string summary =
      fmt::format("{} {}: {} GEMMs within bound (max rel err {:.2g}); {}^3 at {}; one step's GEMMs {} ms", name, version,
                  all.size(), max_rel, req.square, square_verdict.detail, fmt::join(step_text, ", "));
  if (square_verdict.outcome == status::warn || !slow.empty()) {
    s.finish(status::warn, summary + (slow.empty() ? "" : "; slow: " + fmt::format("{}", fmt::join(slow, ", ")) +
                                                              " (clocks or power cap, a fallback kernel for this shape)"));
    return r;
  }
  s.finish(status::pass, summary);
  return r;
}

}  // namespace gs
