// The (backend, stage) steps of `gpustack probe fla`; see fla_probes.h and docs/fla.md.
#include "fla/fla_probes.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>

#include "core/assets.h"
#include "core/text_scan.h"
#include "kernels/gdn_v2_layout.h"
#include "kernels/ref/gdn_ref.h"
#include "kernels/ref/gdn_v2_ref.h"
#include "probes/gpu_session.h"
#include "probes/verify.h"

namespace gs {
namespace {

using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

gdn_shape shape_from(const probe_context& ctx) {
  gdn_shape s;
  s.B = int(option_int(ctx, "fla.B", s.B, 1, 1 << 16));
  s.T = int(option_int(ctx, "fla.T", s.T, 1, 1 << 24));
  s.H = int(option_int(ctx, "fla.H", s.H, 1, 1024));
  s.HV = int(option_int(ctx, "fla.HV", s.HV, 1, 4096));
  s.K = int(option_int(ctx, "fla.K", s.K, 1, 256));
  s.V = int(option_int(ctx, "fla.V", s.V, 1, 1024));
  return s;
}

nlohmann::json shape_json(const gdn_shape& s) {
  return {{"B", s.B}, {"T", s.T}, {"H", s.H}, {"HV", s.HV}, {"K", s.K}, {"V", s.V}, {"chunk", gdn_chunk_len}};
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

probe_result run_python_backend(const probe_context& ctx, const std::string& backend) {
  const int stage = int(option_int(ctx, "fla.stage", 1, 1, fla_max_stage));
  nlohmann::json shape = shape_json(shape_from(ctx));
  const std::string script = "probes/python/fla_" + backend + ".py";
  const std::string id = "fla." + backend + ".stages" + std::to_string(stage);
  auto skipped = [&](std::string why) {
    probe_result r = make_result(id, status::skip, std::move(why));
    r.data = {{"backend", backend}, {"stage", stage}, {"shape", shape}};
    return r;
  };
  if (!find_asset(script)) return skipped(script + " is not in this build of gpustack");
  if (!ctx.facts) return skipped("no machine facts: cannot tell which Python to use");
  std::string why;
  if (!probe_interpreter(*ctx.facts, &why)) return skipped(why);
  python_probe_request req;
  req.script = script;
  // The helpers the scripts import, placed beside them (whichever this build embeds).
  for (const char* extra : {"kernels/triton/gdn_chunk.py", "kernels/triton/gdn_ref.py", "probes/python/fla_args.py",
                            "probes/python/gpustack_triton_stages.py"})
    if (find_asset(extra)) req.extra_assets.push_back(extra);
  req.args = fla_python_args(ctx);
  ctx.phase("start");
  python_probe_outcome out = run_python_script(ctx, req);
  probe_result r = fla_python_result(backend, stage, shape, out);
  const python_info& py = ctx.facts->python;
  r.data["python"] = {{"interpreter", py.interpreter}, {"version", py.version}};
  return r;
}

probe_result run_triton_step(const probe_context& ctx) { return run_python_backend(ctx, "triton"); }

/// --compile-only: the triton backend's kernels through Triton's compiler for fla.target, no GPU.
probe_result run_triton_compile_step(const probe_context& ctx) {
  const int stage = int(option_int(ctx, "fla.stage", 1, 1, fla_max_stage));
  const std::string id = "fla.triton.stages" + std::to_string(stage);
  const gdn_shape s = shape_from(ctx);
  const std::string target = option_text(ctx, "fla.target", "");
  auto skipped = [&](std::string why) {
    probe_result r = make_result(id, status::skip, std::move(why));
    r.data = {{"backend", "triton"}, {"stage", stage}, {"compile_only", true}, {"target", target}};
    return r;
  };
  const char* script = "probes/python/fla_triton_compile.py";
  if (!find_asset(script)) return skipped(std::string(script) + " is not in this build of gpustack");
  if (!ctx.facts) return skipped("no machine facts: cannot tell which Python to use");
  std::string why;
  if (!probe_interpreter(*ctx.facts, &why)) return skipped(why);
  python_probe_request req;
  req.script = script;
  for (const char* extra : {"kernels/triton/gdn_chunk.py", "kernels/triton/gdn_compile.py"})
    if (find_asset(extra)) req.extra_assets.push_back(extra);
  nlohmann::json kernels = nlohmann::json::array();
  const std::string chosen = option_text(ctx, "fla.kernels", "prep,state,out");  // the views below point into it
  for (std::string_view k : scan::split_nonempty(chosen, ','))
    kernels.push_back(std::string(k));
  req.args = {{"stage", stage}, {"target", target}, {"kernels", kernels}, {"K", s.K}, {"V", s.V}};
  ctx.phase("start");
  python_probe_outcome out = run_python_script(ctx, req);
  probe_result r = to_probe_result(id, out);
  if (!r.data.is_object()) r.data = nlohmann::json::object();
  r.data["backend"] = "triton";
  r.data["stage"] = stage;
  r.data["compile_only"] = true;
  r.data["target"] = target;
  const python_info& py = ctx.facts->python;
  r.data["python"] = {{"interpreter", py.interpreter}, {"version", py.version}};
  return r;
}
probe_result run_fla_step(const probe_context& ctx) { return run_python_backend(ctx, "fla"); }

}  // namespace

std::map<std::string, std::string> fla_step_options(const fla_settings& s, int stage) {
  return {{"fla.stage", std::to_string(stage)},
          {"fla.B", std::to_string(s.shape.B)},
          {"fla.T", std::to_string(s.shape.T)},
          {"fla.H", std::to_string(s.shape.H)},
          {"fla.HV", std::to_string(s.shape.HV)},
          {"fla.K", std::to_string(s.shape.K)},
          {"fla.V", std::to_string(s.shape.V)},
          {"fla.seed", std::to_string(s.seed)},
          {"fla.native_kernel", s.native_kernel},
          {"fla.dtype", s.dtype},
          {"fla.backward", s.backward ? "true" : "false"},
          {"fla.spin", s.spin_stage == stage ? "true" : "false"},
          {"fla.target", s.compile_target},
          {"fla.kernels", s.compile_kernels},
          // FLA at its own num_stages is timed once, at the first depth: its re-autotune costs
          // tens of seconds and the figure does not depend on the depth being forced.
          {"fla.default_timing", !s.stages.empty() && stage == s.stages.front() ? "true" : "false"}};
}

// The Python backends skip the imports of torch, Triton and transformers (5.7 s on the H200), then
// torch._dynamo + torch._inductor, which FLA's ops pull in (4.2 s), through the run's warm worker.
// The triton backend runs forked from its fork server (none of those initialises the GPU), so each
// depth has a process and a GPU context of its own. The fla backend runs in the worker's shared
// interpreter instead: FLA itself (fla.utils 0.8 s, fla.ops 4.0 s) initialises the GPU at import
// (fla.utils asks Triton's driver for the device), so a fork server cannot hold it, and importing
// it once instead of at each of four depths saves ~15 s of a warm `probe fla`. What a depth must
// not inherit from the one before is undone: fla_fla.py drops every autotune result
// (reset_autotuners), the worker restores Triton's patched entry points, gpustack's modules and the
// environment, and an interpreter whose step failed (an illegal address poisons the context) is
// replaced before the next depth. `--fresh` still gives every depth a new interpreter.
const std::vector<std::string> fla_preload = {"torch", "triton", "transformers", "torch._dynamo", "torch._inductor"};
const warm_python fla_triton_warm{fla_preload, false};
const warm_python fla_fla_warm{fla_preload, true};

probe_spec fla_compile_step_spec(int stage, std::deque<std::string>& ids) {
  ids.push_back("fla.triton.stages" + std::to_string(stage));
  return {ids.back().c_str(), "gpustack's Triton gated-delta-rule kernels compiled for --target at num_stages = this depth",
          {}, true, false, run_triton_compile_step};
}

probe_spec fla_step_spec(const std::string& backend, int stage, std::deque<std::string>& ids) {
  ids.push_back("fla." + backend + ".stages" + std::to_string(stage));
  const char* id = ids.back().c_str();
  if (backend == "native")
    return {id, "gated delta rule, gpustack's own chunked kernel, loads pipelined to this depth, vs fp64",
            {}, true, true, run_fla_native};
  if (backend == "triton")
    return {id, "gated delta rule as a Triton kernel launched with num_stages = this depth", {}, true, true,
            run_triton_step, fla_triton_warm};
  return {id, "flash-linear-attention's chunk_gated_delta_rule with num_stages forced to this depth", {}, true,
          true, run_fla_step, fla_fla_warm};
}

int fla_backward_refused_stage(const probe_result& r) {
  if (!r.data.is_object()) return 0;
  const auto bw = r.data.find("backward");
  if (bw == r.data.end() || !bw->is_object()) return 0;
  const auto issue = bw->find("known_issue");
  if (issue == bw->end() || !issue->is_string() || *issue != "FLA#640") return 0;
  const auto stage = r.data.find("stage");
  return stage != r.data.end() && stage->is_number_integer() ? stage->get<int>() : 0;
}

nlohmann::json fla_python_args(const probe_context& ctx) {
  gdn_shape s = shape_from(ctx);
  const int stage = int(option_int(ctx, "fla.stage", 1, 1, fla_max_stage));
  return {{"stage", stage},
          {"B", s.B}, {"T", s.T}, {"H", s.H}, {"HV", s.HV}, {"K", s.K}, {"V", s.V},
          {"chunk", gdn_chunk_len},
          {"dtype", option_text(ctx, "fla.dtype", "bf16")},
          {"seed", option_int(ctx, "fla.seed", 20261202, 0, 0xffffffffLL)},
          {"backward", option_text(ctx, "fla.backward", "false") == "true"},
          {"backward_refused_at", option_int(ctx, "fla.backward_refused_at", 0, 0, fla_max_stage)},
          {"spin", option_text(ctx, "fla.spin", "false") == "true"},
          {"default_timing", option_text(ctx, "fla.default_timing", "false") == "true"},
          {"device", ctx.device}};
}

probe_result fla_python_result(const std::string& backend, int stage, const nlohmann::json& shape,
                                const python_probe_outcome& out) {
  probe_result r = to_probe_result("fla." + backend + ".stages" + std::to_string(stage), out);
  if (!r.data.is_object()) r.data = nlohmann::json::object();
  r.data["backend"] = backend;
  r.data["stage"] = stage;
  r.data["shape"] = shape;
  // A script that ran but left figures out still has the keys, as null, so readers need not guess.
  for (const char* k : {"compile_ms", "run_ms", "max_abs_err", "rel_err", "num_warps"})
    if (!r.data.contains(k)) r.data[k] = nullptr;
  return r;
}

probe_result run_fla_native(const probe_context& ctx) {
  probe_result r;
  const int stage = int(option_int(ctx, "fla.stage", 1, 1, fla_max_stage));
  r.id = "fla.native.stages" + std::to_string(stage);
  const gdn_shape s = shape_from(ctx);
  r.data = {{"backend", "native"}, {"stage", stage}, {"shape", shape_json(s)}, {"compile_ms", nullptr},
            {"run_ms", nullptr}, {"max_abs_err", nullptr}, {"rel_err", nullptr}, {"num_warps", nullptr}};
  if (std::string bad = s.invalid(); !bad.empty()) {
    r.outcome = status::error;
    r.detail = "bad shape: " + bad;
    return r;
  }
  gpu_session sess(ctx, r);
  {
    sess.phase("load");
    runtime_status why;
    std::unique_ptr<runtime> rt = open_runtime(ctx.device, why);
    if (!rt) {
      sess.finish(status::skip, "no device could be opened for '" + ctx.device + "': " +
                                    (why.message.empty() ? why.call : why.message));
      return r;
    }
    // No GPU (CI, or --device cpu): the CPU chunked path runs through the cpu backend, with the
    // same ring of tiles at this depth, so the step still means something.
    if (rt->props().backend == "cpu" && !why.message.empty()) r.data["cpu_because"] = why.message;
    sess.adopt(std::move(rt));
  }
  const device_props& p = sess.props();
  const bool on_cpu = p.backend == "cpu";
  // Block: 4 waves (128 threads on wave32, 256 on wave64): v1's loops stride by blockDim.x, v2
  // gives each wave its own tiles; num_warps reports it as Triton would.
  const int threads = 4 * p.wave_size;
  r.data["num_warps"] = 4;

  // v2 (matrix unit, async copies) unless asked for v1, or the shape or the device's shared
  // memory rules it out; then v1 runs and the report says why.
  const bool want_v2 = option_text(ctx, "fla.native_kernel", "v2") != "v1";
  // On CUDA the ring also carries each tile's rows of U and P (async copies, ~94 KiB at depth
  // 4: every sm_80+ part opts in to that much); AMD's 64 KiB keeps them in L2.
  auto fits = [&](unsigned bytes) { return !p.max_shared_bytes || bytes <= p.max_shared_bytes; };
  const unsigned smem_prep = gdn2_prep_smem_bytes(stage);
  const bool ring_up = p.backend == "cuda" && fits(gdn2_state_smem_bytes(stage, s.K, true));
  const unsigned smem_state = gdn2_state_smem_bytes(stage, s.K, ring_up);
  std::string v1_because = want_v2 ? gdn_v2_unsupported(s) : "asked for (--native-kernel v1)";
  if (v1_because.empty() && !fits(std::max(smem_prep, smem_state)))
    v1_because = fmt::format("gdn_chunk_v2 needs {:.1f} KiB of shared memory at depth {}; the device gives {:.0f} KiB",
                             std::max(smem_prep, smem_state) / 1024.0, stage, p.max_shared_bytes / 1024.0);
  const bool v2 = v1_because.empty();
  r.data["kernel"] = v2 ? "gdn_chunk_v2" : "gdn_chunk_v1";
  if (!v2) r.data["v1_because"] = v1_because;
  constexpr int bv = 8;  // v1's value columns per block

  const auto seed = uint32_t(option_int(ctx, "fla.seed", 20261202, 0, 0xffffffffLL));
  gdn_inputs in = gdn_random_inputs(s, seed, true);
  ctx.heartbeat();

  module_handle mod;
  kernel_handle kern, kern_state;
  auto t0 = clock_type::now();
  const std::vector<std::string> defines = {"GS_STAGES=" + std::to_string(stage), "GS_DK=" + std::to_string(s.K)};
  std::vector<std::string> v2_defines = defines;
  v2_defines.push_back(std::string("GS_V2_RING_UP=") + (ring_up ? "1" : "0"));
  if (v2 ? !sess.compile("gdn_chunk_v2.cu", v2_defines, mod) || !sess.kernel(mod, "gdn_v2_prep", kern) ||
               !sess.kernel(mod, "gdn_v2_state", kern_state)
         : !sess.compile("gdn_chunk.cu",
                         {defines[0], defines[1], "GS_BV=" + std::to_string(bv), "GS_ROWS=" + std::to_string(gdn_tile_rows)},
                         mod) ||
               !sess.kernel(mod, "gdn_chunk_v1", kern))
    return r;
  r.data["compile_ms"] = ms_since(t0);

  sess.phase("run");
  runtime& rt = sess.rt();
  const unsigned gx = unsigned((s.V + bv - 1) / bv);
  const size_t blocks = size_t(gx) * s.HV * s.B;
  // v1: a 64 x 64 A and P per block; v2: the prep kernel's U, P, G, rk, rq per chunk.
  const size_t scratch_bytes = v2 ? gdn_v2_prep_floats(s) * 4 : blocks * 2 * gdn_chunk_len * gdn_chunk_len * 4;
  guarded_buffer q, k, v, g, beta, h0, o, ht, scratch;
  if (!sess.check(q.create(rt, s.qk_elems() * 2)) || !sess.check(k.create(rt, s.qk_elems() * 2)) ||
      !sess.check(v.create(rt, s.v_elems() * 2)) || !sess.check(g.create(rt, s.gate_elems() * 4)) ||
      !sess.check(beta.create(rt, s.gate_elems() * 2)) || !sess.check(h0.create(rt, s.state_elems() * 4)) ||
      !sess.check(o.create(rt, s.v_elems() * 4)) || !sess.check(ht.create(rt, s.state_elems() * 4)) ||
      !sess.check(scratch.create(rt, scratch_bytes)))
    return r;
  if (!sess.check(q.upload(in.q.data())) || !sess.check(k.upload(in.k.data())) || !sess.check(v.upload(in.v.data())) ||
      !sess.check(g.upload(in.g.data())) || !sess.check(beta.upload(in.beta.data())) ||
      !sess.check(h0.upload(in.h0.data())) || !sess.check(o.fill_u32(unwritten_bits)) ||
      !sess.check(ht.fill_u32(unwritten_bits)))
    return r;
  void *pq = q.ptr(), *pk = k.ptr(), *pv = v.ptr(), *pg = g.ptr(), *pb = beta.ptr(), *ph0 = h0.ptr(), *po = o.ptr(),
       *pht = ht.ptr(), *psc = scratch.ptr();
  int T = s.T, H = s.H, HV = s.HV, V = s.V;
  float scale = float(1.0 / std::sqrt(double(s.K)));
  void* args_v1[] = {&pq, &pk, &pv, &pg, &pb, &ph0, &po, &pht, &psc, &T, &H, &HV, &V, &scale};
  void* args_prep[] = {&pq, &pk, &pg, &pb, &psc, &T, &H, &HV, &scale};
  void* args_state[] = {&pq, &pk, &pv, &ph0, &psc, &po, &pht, &T, &H, &HV, &V};
  launch_dims d, d_state;
  if (v2) {
    d.grid[0] = unsigned((s.T + gdn_chunk_len - 1) / gdn_chunk_len);
    d.shared_bytes = smem_prep;
    d_state.grid[0] = unsigned(s.V / GDN2_BV);
    d_state.grid[1] = unsigned(s.HV);
    d_state.grid[2] = unsigned(s.B);
    d_state.block[0] = unsigned(threads);
    d_state.shared_bytes = smem_state;
    r.data["shared_bytes"] = {{"prep", smem_prep}, {"state", smem_state}};
    r.data["ring_carries_u_p"] = ring_up;
  } else {
    d.grid[0] = gx;
  }
  d.grid[1] = unsigned(s.HV);
  d.grid[2] = unsigned(s.B);
  d.block[0] = unsigned(threads);
  // v2 is two launches in order on one stream: the state kernel reads what prep wrote.
  auto launch_all = [&]() -> runtime_status {
    if (!v2) return rt.launch(kern, d, args_v1);
    if (runtime_status st = rt.launch(kern, d, args_prep); !st.ok) return st;
    return rt.launch(kern_state, d_state, args_state);
  };
  // One untimed launch (first-launch costs, and the result checked below), then the median of
  // several timed ones. On the cpu backend one launch is the whole computation: time that.
  std::vector<double> times;
  const int timed = on_cpu ? 1 : 7;
  for (int i = 0; i < (on_cpu ? 0 : 1); ++i)
    if (!sess.check(launch_all()) || !sess.check(rt.synchronize())) return r;
  for (int i = 0; i < timed; ++i) {
    double ms = 0;
    if (!sess.check(rt.time_ms(launch_all, ms))) return r;
    times.push_back(ms);
    ctx.heartbeat();
  }
  r.data["run_ms"] = median(times);
  r.data["run_ms_all"] = times;
  if (v2 && !on_cpu) {
    // Each of the two kernels alone (median of 5), so a slow one is named.
    std::vector<double> prep_times, state_times;
    for (int i = 0; i < 5; ++i) {
      double a = 0, c = 0;
      if (!sess.check(rt.time_ms([&] { return rt.launch(kern, d, args_prep); }, a)) ||
          !sess.check(rt.time_ms([&] { return rt.launch(kern_state, d_state, args_state); }, c)))
        return r;
      prep_times.push_back(a);
      state_times.push_back(c);
    }
    r.data["run_ms_by_kernel"] = {{"gdn_v2_prep", median(prep_times)}, {"gdn_v2_state", median(state_times)}};
  }

  sess.phase("verify");
  std::vector<float> got_o(s.v_elems()), got_ht(s.state_elems());
  if (!sess.check(o.download(got_o.data())) || !sess.check(ht.download(got_ht.data()))) return r;
  bool guards_o = false, guards_ht = false;
  if (!sess.check(o.check_guards(guards_o)) || !sess.check(ht.check_guards(guards_ht))) return r;
  size_t unwritten = 0, non_finite = 0;
  for (const std::vector<float>* a : {&got_o, &got_ht})
    for (float x : *a) {
      uint32_t bits;
      std::memcpy(&bits, &x, 4);
      if (bits == unwritten_bits) ++unwritten;
      else if (!std::isfinite(x)) ++non_finite;
    }
  // fp64 recurrence on the first and last value head of every sequence (a quarter of the cost
  // of all heads at HV = 8, a sixteenth at 32; every element is still checked for being written
  // and finite). Those heads use the first and last q/k heads, so grouping errors show.
  std::vector<int> heads = {0};
  if (s.HV > 1) heads.push_back(s.HV - 1);
  // One thread a head: ~0.75 s of fp64 recurrence each at the default shape (B2 T4096 K=V=128),
  // which every depth pays again; each thread holds its own [B,T,HV,V] output (134 MB there).
  std::vector<std::future<gdn_error>> checks;
  for (int hv : heads)
    checks.push_back(std::async(std::launch::async, [&, hv] {
      std::vector<double> o_ref, ht_ref;
      gdn_recurrent_ref(in, 0, o_ref, ht_ref, 0, s.B, hv, hv + 1);
      return gdn_compare(s, got_o.data(), got_ht.data(), o_ref, ht_ref, 0, s.B, hv, hv + 1);
    }));
  double max_abs = 0, rel = 0;
  for (std::future<gdn_error>& c : checks) {
    gdn_error e = c.get();
    ctx.heartbeat();
    max_abs = std::max(max_abs, e.max_abs);
    rel = std::max(rel, e.rel);
  }
  r.data["max_abs_err"] = std::isfinite(max_abs) ? nlohmann::json(max_abs) : nlohmann::json(nullptr);
  r.data["rel_err"] = std::isfinite(rel) ? nlohmann::json(rel) : nlohmann::json(nullptr);
  r.data["verified_heads"] = heads;
  r.data["tolerance"] = {{"rel", fla_native_rel_tol}, {"abs", fla_native_abs_tol}};
  r.data["threads_per_block"] = threads;
  r.data["path"] = on_cpu ? (v2 ? "cpu chunked (kernels/ref/gdn_v2_ref.cpp)" : "cpu chunked (kernels/ref/gdn_ref.cpp)")
                          : (v2 ? "gpu kernels (kernels/gdn_chunk_v2.cu)" : "gpu kernel (kernels/gdn_chunk.cu)");
  std::string timing = fmt::format("run {:.3f} ms (median of {}), compile {:.0f} ms", median(times), timed,
                                   r.data["compile_ms"].get<double>());
  if (unwritten || non_finite || !guards_o || !guards_ht) {
    sess.finish(status::fail, fmt::format("{} elements never written, {} NaN/Inf{}", unwritten, non_finite,
                                          guards_o && guards_ht ? "" : ", a guard band was overwritten"));
    return r;
  }
  bool ok = rel <= fla_native_rel_tol && max_abs <= fla_native_abs_tol;
  sess.finish(ok ? status::pass : status::fail,
              fmt::format("{} vs fp64 recurrence: rel {:.2e} (<= {:.0e}), max abs {:.2e} (<= {:.0e}); {}",
                          ok ? "matches" : "differs", rel, fla_native_rel_tol, max_abs, fla_native_abs_tol, timing));
  return r;
}

}  // namespace gs
