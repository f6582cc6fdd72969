// See gemm_rate.h.
#include "probes/gemm_rate.h"

namespace gs {

std::function<bool(launch_dims&, void**)> timed_gemm_launches(gpu_session& s, kernel_handle k, int iters, double& ms) {
  return [&s, k, iters, &ms](launch_dims& d, void** args) {
    s.phase("sync");
    return s.check(s.rt().time_ms(
        [&]() {
          for (int i = 0; i < iters; ++i)
            if (runtime_status st = s.rt().launch(k, d, args); !st.ok) return st;
          return runtime_status::success();
        },
        ms));
  };
}

rate_verdict judge_gemm_rate(probe_result& r, const device_props& p, const std::string& expect_name, const char* peak_key,
                             int S, int iters, double ms, const char* causes) {
  const double tflops = ms > 0 ? 2.0 * double(S) * S * S * iters / (ms * 1e9) : 0.0;
  const device_expectation e = builtin_expectation(p.arch, p.name, expect_name);
  rate_verdict v = judge_rate(tflops, e.expected, e.perf->gemm_warn_below, "TFLOP/s", causes);
  r.data["iters"] = iters;
  r.data["achieved_tflops"] = tflops;
  r.data["expected_tflops"] = e.expected;
  r.data["expected_basis"] = e.basis;
  if (e.gpu) {
    const double peak = e.gpu->figure(peak_key);
    r.data["card_peak_tflops"] = peak;
    if (peak > 0) r.data["fraction_of_card_peak"] = tflops / peak;
    if (e.gpu->bf16_library_tflops > 0) r.data["card_library_bf16_tflops"] = e.gpu->bf16_library_tflops;
  }
  return v;
}

}  // namespace gs
