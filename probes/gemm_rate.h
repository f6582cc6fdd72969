// The rate half of the GEMM probes (gemm.* on the CUDA cores, gemm.mma.* on the matrix unit):
// the timed launches of the S^3 run and its verdict against the card's expectation, with the data
// fields both report. One home, so a change of band or of what is reported reaches both.
#pragma once
#include <functional>
#include <string>

#include "probes/expected_perf.h"
#include "probes/gpu_session.h"

namespace gs {

/// The launcher for a rate run: `iters` launches of `k` back to back inside one timed span, whose
/// milliseconds land in `ms`; false when a launch or the timing failed (the session says why).
std::function<bool(launch_dims&, void**)> timed_gemm_launches(gpu_session& s, kernel_handle k, int iters, double& ms);

/// The verdict on an S x S x S GEMM run `iters` times in `ms` against `expect_name`'s band for this
/// card (expected_perf.toml), and the data it rests on: iters, achieved/expected TFLOP/s and the
/// basis, the card's figure for `peak_key` (and the fraction of it reached). `causes` are what a
/// result below the band likely means for this kernel family.
rate_verdict judge_gemm_rate(probe_result& r, const device_props& p, const std::string& expect_name, const char* peak_key,
                             int S, int iters, double ms, const char* causes);

}  // namespace gs
