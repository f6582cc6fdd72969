// The (backend, stage) steps of `gpustack probe fla`: each is a probe_spec with id
// fla.<backend>.stages<N>, run in its own watched child by the probe runner. The child reads its
// stage and shape from probe_context::options (keys below), so one run function serves every
// stage. Result data: compile_ms, run_ms, max_abs_err, rel_err, num_warps, stage, shape, backend.
#pragma once
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "fla/fla_options.h"
#include "probes/probe.h"
#include "python/script_runner.h"

namespace gs {

/// Tolerance of the native kernel (GPU or CPU chunked path, fp32) against the fp64 recurrence,
/// norm-wise over o and the final state, and per element. docs/fla.md gives the reasoning.
inline constexpr double fla_native_rel_tol = 1e-4;
inline constexpr double fla_native_abs_tol = 1e-4;

/// probe_context::options for one step: fla.stage, fla.B, fla.T, fla.H, fla.HV, fla.K, fla.V,
/// fla.seed, fla.backward, fla.spin, fla.dtype, fla.default_timing.
std::map<std::string, std::string> fla_step_options(const fla_settings& s, int stage);

/// The probe_spec for a backend ("native", "triton", "fla") at a stage; the id string lives in
/// `ids` (the spec keeps a pointer to it).
probe_spec fla_step_spec(const std::string& backend, int stage, std::deque<std::string>& ids);

/// `--compile-only`: the triton backend's kernels compiled by Triton for the option fla.target
/// (fla.kernels: a comma list of prep, state, out) at a depth, in a fresh interpreter, no GPU;
/// id fla.triton.stages<N>, data.compile_only = true, data.kernels one entry per kernel.
probe_spec fla_compile_step_spec(int stage, std::deque<std::string>& ids);

/// GPUSTACK_ARGS of the Python backends (docs/fla.md "Python side").
nlohmann::json fla_python_args(const probe_context& ctx);

/// The depth at which this fla step saw FLA refuse its gated backward as FLA#640, else 0. That
/// refusal depends on the GPU and the Triton version, not on the depth, so probe fla passes it
/// to the later depths (option fla.backward_refused_at) and they report it without re-running.
int fla_backward_refused_stage(const probe_result& r);

/// The probe result of a Python backend from its outcome: the script's status, detail and data
/// (compile_ms, run_ms, max_abs_err, rel_err, num_warps, num_stages_seen, versions, arch,
/// backward), with backend, stage and shape added. Tests feed recorded outputs through it.
probe_result fla_python_result(const std::string& backend, int stage, const nlohmann::json& shape,
                               const python_probe_outcome& out);

/// The native step's body (exposed for tests: it runs on the cpu backend in-process).
probe_result run_fla_native(const probe_context& ctx);

}  // namespace gs
