// See py_matmul_judge.h.
#include "probes/py_matmul_judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "kernels/ref/gemm_ref.h"
#include "probes/expected_perf.h"
#include "probes/gemm_inputs.h"
#include "probes/verify.h"

namespace gs {

// Integer steps only (+, *, &, ^, >>) on values below 2^31, so every product stays below 2^62:
// the script runs the same lines on torch int64 tensors and on Python ints, and nothing wraps.
int py_matmul_hash(uint32_t seed, uint64_t index) {
  constexpr uint64_t m31 = 0x7fffffffu;
  const uint64_t s = uint64_t(seed) & m31;
  uint64_t h = (index + s) & m31;
  h = (h * 1103515245u + 12345u) & m31;
  h ^= (h >> 13) ^ s;  // the seed twice: seeds s and s + 1 are not one sequence shifted by one
  h = (h * 1664525u + 1013904223u) & m31;
  h ^= h >> 16;
  return int((h >> 8) & 255u) - 128;
}

namespace {

// The sampled rows (gemm_sample_rows: ends, thirds, middle, one seeded) or, for columns, those
// plus 24 evenly spaced ones, inside [0, n), sorted, each once.
std::vector<int> py_matmul_samples(int64_t n, uint32_t seed, int spread) {
  std::set<int> s;
  for (int i : gemm_sample_rows(int(n), seed))
    if (i >= 0 && i < n) s.insert(i);
  for (int j = 0; j < spread; ++j) s.insert(int(n * j / spread + seed % std::max<int64_t>(1, n / spread)) % int(n));
  return {s.begin(), s.end()};
}

}  // namespace

std::vector<py_matmul_case> py_matmul_plan(const model_spec& model, int64_t tokens, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<py_matmul_case> plan;
  for (qlora_gemm& g : qlora_step_gemms(model, tokens, {8, 16, 64})) {
    py_matmul_case c;
    c.seed_a = rng() & 0x7fffffffu;  // far-apart seeds: no operand is a shifted copy of another
    c.seed_b = rng() & 0x7fffffffu;
    c.rows = py_matmul_samples(g.m, seed, 0);
    c.cols = py_matmul_samples(g.n, seed + 1, 24);
    c.gemm = std::move(g);
    plan.push_back(std::move(c));
  }
  return plan;
}

nlohmann::json py_matmul_shapes_json(const std::vector<py_matmul_case>& plan) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const py_matmul_case& c : plan)
    shapes.push_back({{"name", c.gemm.name}, {"m", c.gemm.m}, {"n", c.gemm.n}, {"k", c.gemm.k},
                      {"trans_a", c.gemm.trans_a}, {"trans_b", c.gemm.trans_b}, {"seed_a", c.seed_a},
                      {"seed_b", c.seed_b}, {"rows", c.rows}, {"cols", c.cols}});
  return shapes;
}

py_matmul_expected py_matmul_reference(const py_matmul_case& c, double out_unit_roundoff) {
  const qlora_gemm& g = c.gemm;
  const int K = int(g.k);
  // Row r of op(A) and column j of op(B) as K-vectors, read from storage the way torch's
  // transposed views read it: A is stored k x m when trans_a, B n x k when trans_b.
  std::vector<float> a(c.rows.size() * K), bt(c.cols.size() * K);
  for (size_t i = 0; i < c.rows.size(); ++i)
    for (int k = 0; k < K; ++k) {
      uint64_t idx = g.trans_a ? uint64_t(k) * g.m + c.rows[i] : uint64_t(c.rows[i]) * K + k;
      a[i * K + k] = py_matmul_value(c.seed_a, idx);
    }
  for (size_t j = 0; j < c.cols.size(); ++j)
    for (int k = 0; k < K; ++k) {
      uint64_t idx = g.trans_b ? uint64_t(c.cols[j]) * K + k : uint64_t(k) * g.n + c.cols[j];
      bt[j * K + k] = py_matmul_value(c.seed_b, idx);
    }
  py_matmul_expected e;
  for (size_t i = 0; i < c.rows.size(); ++i)
    for (size_t j = 0; j < c.cols.size(); ++j) {
      float ref = gemm_nt_ref_element(a.data(), bt.data(), K, int(i), int(j));
      double abs_sum = 0;
      for (int k = 0; k < K; ++k) abs_sum += std::fabs(double(a[i * K + k]) * bt[j * K + k]);
      double acc = gemm_error_bound(K, abs_sum);
      e.ref.push_back(ref);
      e.bound.push_back(acc + out_unit_roundoff * (std::fabs(ref) + acc));
    }
  return e;
}

namespace {

// The two backends torch can be told to prefer, by the library each is on this platform.
std::string backend_label(const std::string& backend, bool hip) {
  if (backend == "cublaslt") return hip ? "hipBLASLt" : "cuBLASLt";
  if (backend == "cublas") return hip ? "rocBLAS" : "cuBLAS";
  return backend;
}

// Below this roofline time a GEMM is launch-bound (a launch and its ramp cost a few us before
// any work), so its rate says nothing about the BLAS: reported, never judged. At 10 us of work a
// healthy BLAS still reaches well over the 30 % warn line; the rank-8 LoRA GEMMs of a 0.8B
// model at 2048 tokens are ~1-5 us of work, its base GEMMs 15-30 us on an H200.
constexpr double judged_floor_ms = 0.01;
// One backend taking this much longer than the other over the step's GEMMs is worth a line.
constexpr double backend_gap = 1.5;

const char* slow_causes =
    "likely causes: the BLAS chose an untuned kernel for this shape on this arch (try the other backend, or "
    "PYTORCH_TUNABLEOP_ENABLED=1), clocks or power capped, or another process on the GPU";

struct step_total {
  double ms = 0, floor_ms = 0;
  int cases = 0, bad = 0;
};

}  // namespace

void judge_py_matmul(probe_result& r, const std::vector<py_matmul_case>& plan) {
  nlohmann::json cases = std::move(r.data["cases"]);
  r.data.erase("cases");
  if (!cases.is_array()) {
    if (r.outcome == status::pass) {
      r.outcome = status::error;
      r.detail = "the script sent no cases to judge";
    }
    return;
  }
  const bool hip = r.data.contains("blas") && r.data["blas"].is_object() && r.data["blas"].value("hip", false);
  std::map<std::string, const py_matmul_case*> by_name;
  for (const py_matmul_case& c : plan) by_name[c.gemm.name] = &c;
  std::map<std::string, py_matmul_expected> refs;  // one reference per shape serves both dtypes

  const expected_perf& perf = builtin_expected_perf();
  const gpu_expectation* gpu = perf.find_gpu(r.data.value("arch", ""), r.data.value("device", ""));

  nlohmann::json judged = nlohmann::json::array();
  std::vector<std::string> bad, slow;
  std::map<std::string, step_total> totals;  // "bf16 cuBLASLt" -> the step's GEMM time
  std::set<std::string> reported;
  for (const nlohmann::json& c : cases) {
    const std::string name = c.value("shape", ""), dtype = c.value("dtype", "");
    const std::string backend = backend_label(c.value("backend", ""), hip);
    const std::string label = fmt::format("{} {} {}", name, dtype, backend);
    auto it = by_name.find(name);
    if (it == by_name.end() || (dtype != "bf16" && dtype != "fp16")) {
      bad.push_back(label + ": not a shape or dtype gpustack asked for");
      continue;
    }
    const qlora_gemm& g = it->second->gemm;
    reported.insert(name + " " + dtype);
    nlohmann::json out = {{"shape", name}, {"dtype", dtype}, {"backend", backend}, {"m", g.m}, {"n", g.n},
                          {"k", g.k}, {"uses_per_step", g.uses_per_step}};
    step_total& tot = totals[dtype + " " + backend];
    ++tot.cases;
    if (c.contains("error")) {
      out["ok"] = false;
      const std::string what = c["error"].is_string() ? c["error"].get<std::string>() : c["error"].dump();
      out["error"] = what;
      bad.push_back(label + " raised " + what);
      ++tot.bad;
      judged.push_back(std::move(out));
      continue;
    }
    if (!refs.count(name)) refs[name] = py_matmul_reference(*it->second, 0);
    const py_matmul_expected& e = refs[name];
    const double u_out = dtype == "bf16" ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
    std::vector<double> bound(e.bound.size());
    for (size_t i = 0; i < bound.size(); ++i) bound[i] = e.bound[i] + u_out * (std::fabs(e.ref[i]) + e.bound[i]);
    std::vector<float> got;
    for (const nlohmann::json& v : c.value("samples", nlohmann::json::array()))
      got.push_back(v.is_number() ? v.get<float>() : NAN);  // "nan"/"inf" strings: not finite
    f32_check chk;
    if (got.size() != e.ref.size()) {
      chk.bad = 1;
      out["error"] = fmt::format("{} samples sent, {} asked for", got.size(), e.ref.size());
    } else {
      chk = check_f32(got, e.ref, bound);
    }
    const int64_t nan = c.value("nan", int64_t(0)), inf = c.value("inf", int64_t(0));
    const bool ok = chk.ok() && nan == 0 && inf == 0;
    out["ok"] = ok;
    out["max_abs_err"] = chk.max_abs_err;
    out["max_rel_err"] = chk.max_rel_err;
    out["checked"] = chk.checked;
    if (nan || inf) out["nonfinite"] = {{"nan_or_unwritten", nan}, {"inf", inf}};
    if (!ok) {
      ++tot.bad;
      bad.push_back(label + ": " + (nan || inf ? fmt::format("{} NaN/unwritten and {} Inf elements of {}", nan, inf, g.m * g.n)
                                                : out.contains("error") ? out["error"].get<std::string>() : chk.describe()));
    }
    const double ms = c.value("ms", 0.0);
    if (ms > 0) {
      out["ms"] = ms;
      out["tflops"] = double(g.flops()) / ms / 1e9;
      double peak = gpu ? gpu->figure(dtype == "bf16" ? "bf16_tflops" : "fp16_tflops") : 0;
      double hbm = gpu ? gpu->hbm_peak_gbps : 0;
      if (peak > 0 && hbm > 0) {
        // The roofline: no GEMM beats the card's dense matrix peak nor reads its operands faster
        // than HBM. A 2048 x 1024 x 8 LoRA GEMM is all bytes; a 2048 x 21504 x 5376 one all flops.
        double floor_ms = std::max(double(g.flops()) / (peak * 1e9), double(g.min_bytes(2)) / (hbm * 1e6));
        out["roofline_ms"] = floor_ms;
        out["roofline_fraction"] = floor_ms / ms;
        tot.ms += ms * g.uses_per_step;
        tot.floor_ms += floor_ms * g.uses_per_step;
        if (floor_ms >= judged_floor_ms && floor_ms / ms < perf.gemm_warn_below)
          slow.push_back(fmt::format("{} at {:.0f}% of its roofline ({:.3f} ms, floor {:.3f} ms)", label,
                                     100 * floor_ms / ms, ms, floor_ms));
      } else {
        tot.ms += ms * g.uses_per_step;
      }
    }
    judged.push_back(std::move(out));
  }
  for (const py_matmul_case& c : plan)
    for (const char* dt : {"bf16", "fp16"})
      if (!reported.count(c.gemm.name + " " + dt) && r.outcome == status::pass)
        bad.push_back(fmt::format("{} {}: no result from the script", c.gemm.name, dt));
  r.data["cases"] = std::move(judged);
  r.data["reference"] = "gpustack kernels/ref gemm_nt_ref_element (fp32 fma chain) on sampled elements; bound "
                        "gemm_error_bound(K, sum|a b|) plus one rounding to the output type";

  // The step's GEMM time per (dtype, backend), each shape counted uses_per_step times.
  nlohmann::json steps = nlohmann::json::object();
  for (const auto& [key, t] : totals)
    steps[key] = {{"ms", t.ms}, {"roofline_ms", t.floor_ms}, {"cases", t.cases}, {"bad", t.bad}};
  r.data["step_gemm_ms"] = steps;

  // Backends side by side (the same dtype): one wrong where the other is right, or much slower.
  std::vector<std::string> gaps;
  // A slower backend matters when it is the one the user's process starts on (training runs there);
  // when torch already starts on the faster one, the gap is reported, not warned about.
  const std::string start = r.data.contains("blas") && r.data["blas"].is_object()
                                ? backend_label(r.data["blas"].value("preferred_at_start", ""), hip)
                                : std::string();
  bool slow_start = false;
  for (const char* dt : {"bf16", "fp16"}) {
    std::vector<std::pair<std::string, step_total>> per;
    for (const auto& [key, t] : totals)
      if (key.starts_with(std::string(dt) + " ")) per.emplace_back(key.substr(5), t);
    if (per.size() != 2) continue;
    auto& [na, ta] = per[0];
    auto& [nb, tb] = per[1];
    if ((ta.bad == 0) != (tb.bad == 0)) {
      const auto& [wrong, right] = ta.bad ? std::pair(na, nb) : std::pair(nb, na);
      gaps.push_back(fmt::format("{} {} fails {} shape(s) where {} passes every one", dt, wrong, std::max(ta.bad, tb.bad), right));
    } else if (ta.ms > 0 && tb.ms > 0 && std::max(ta.ms, tb.ms) > backend_gap * std::min(ta.ms, tb.ms)) {
      const bool a_slow = ta.ms > tb.ms;
      slow_start = slow_start || start.empty() || start == "default" || start == (a_slow ? na : nb);
      gaps.push_back(fmt::format("{} {} takes {:.1f}x {}'s time over the step's GEMMs ({:.2f} vs {:.2f} ms)", dt,
                                 a_slow ? na : nb, std::max(ta.ms, tb.ms) / std::min(ta.ms, tb.ms), a_slow ? nb : na,
                                 std::max(ta.ms, tb.ms), std::min(ta.ms, tb.ms)));
    }
  }
  if (!gaps.empty()) r.data["backend_difference"] = gaps;
  if (!slow.empty()) r.data["below_roofline"] = slow;

  if (r.outcome != status::pass) return;  // the script's own fail/skip/error stands
  const std::string which = hip ? "TORCH_BLAS_PREFER_HIPBLASLT=0 (rocBLAS) or =1 (hipBLASLt)"
                                : "TORCH_BLAS_PREFER_CUBLASLT=1 (cuBLASLt) or unset (cuBLAS)";
  if (!bad.empty()) {
    r.outcome = status::fail;
    r.detail = fmt::format("{} of {} GEMM runs wrong; first: {}", bad.size(), cases.size(), bad.front());
    if (!gaps.empty()) r.detail += "; " + gaps.front() + " (pick the other with " + which + ")";
    return;
  }
  std::string figures;
  for (const auto& [key, t] : totals)
    figures += fmt::format("{}{} {:.2f} ms", figures.empty() ? "" : ", ", key, t.ms) +
               (t.floor_ms > 0 ? fmt::format(" ({:.0f}% of roofline)", 100 * t.floor_ms / t.ms) : "");
  r.detail = fmt::format("{} GEMM runs of the step within gpustack's reference bound; step GEMM time {}", cases.size(), figures);
  if (!gaps.empty() && slow_start) {
    r.outcome = status::warn;
    r.detail = gaps.front() + " (pick the other with " + which + "); " + r.detail;
  } else if (!gaps.empty()) {
    r.detail += fmt::format("; {} (torch starts on {}, the faster one here)", gaps.front(), start);
  }
  if (!slow.empty()) {
    r.outcome = status::warn;
    r.detail += fmt::format("; {} shape(s) far below the roofline band, first {}; {}", slow.size(), slow.front(), slow_causes);
  }
}

}  // namespace gs
