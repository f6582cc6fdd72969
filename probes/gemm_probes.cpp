// gemm.fp32 / gemm.bf16 / gemm.fp16. Two runs per probe:
//  1. correctness: 301 x 259 x 173, sizes that are no multiple of any tile (16, 128, 8), so every
//     edge path of the kernel runs; every element checked against the CPU reference.
//  2. rate: S x S x S (4096 on a GPU: 137 GFLOP, a few ms), timed over `iters` launches; eight
//     rows are checked against the reference and every element is checked for having been written.
#include "probes/gemm_probes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "kernels/gs_device.h"
#include "kernels/ref/gemm_ref.h"
#include "probes/expected_perf.h"
#include "probes/gemm_inputs.h"
#include "probes/gemm_rate.h"
#include "probes/gpu_session.h"
#include "probes/verify.h"

namespace gs {
namespace {

struct gemm_kind {
  const char* id;          // probe id
  const char* kernel_tag;  // gemm_<tag>_v1 / _v2
  const char* peak_key;    // the card's tensor/matrix figure for this input type, for context
};

gemm_kind kind_of(gemm_type t) {
  switch (t) {
    case gemm_type::fp32: return {"gemm.fp32", "f32", "fp32_tflops"};
    case gemm_type::bf16: return {"gemm.bf16", "bf16", "bf16_tflops"};
    case gemm_type::fp16: return {"gemm.fp16", "f16", "fp16_tflops"};
    case gemm_type::fp8_e4m3fn:
    case gemm_type::fp8_e4m3fnuz: break;  // no CUDA-core fp8 kernel: gemm.mma.fp8 only
  }
  return {"gemm.fp32", "f32", "fp32_tflops"};
}

// The bound for C[row][col] (B is K x N here); gemm_inputs.h says why it holds.
double element_bound(const std::vector<float>& A, const std::vector<float>& B, int N, int K, int row, int col) {
  double abs_sum = 0;
  for (int k = 0; k < K; ++k) abs_sum += std::fabs(double(A[size_t(row) * K + k]) * B[size_t(k) * N + col]);
  return gemm_error_bound(K, abs_sum);
}

struct gemm_run {
  int M, N, K;
  bool all_rows;  // check every row, else a sample of 8
};

// Upload, launch once, download; check the chosen rows against the reference and every element
// for having been written. Fills `check` and `guards_ok`; false when a runtime call failed.
bool run_and_check(gpu_session& s, gemm_type t, kernel_handle k, bool tiled, const gemm_run& g, uint32_t seed,
                   f32_check& check, bool& guards_ok, std::function<bool(launch_dims&, void**)> timed) {
  matrix_input a = random_matrix(t, size_t(g.M) * g.K, seed), b = random_matrix(t, size_t(g.K) * g.N, seed + 1);
  guarded_buffer da, db, dc;
  size_t c_n = size_t(g.M) * g.N;
  if (!s.check(da.create(s.rt(), a.raw.size())) || !s.check(db.create(s.rt(), b.raw.size())) ||
      !s.check(dc.create(s.rt(), c_n * 4)) || !s.check(da.upload(a.raw.data())) || !s.check(db.upload(b.raw.data())) ||
      !s.check(dc.fill_u32(unwritten_bits)))
    return false;
  void *pa = da.ptr(), *pb = db.ptr(), *pc = dc.ptr();
  int M = g.M, N = g.N, K = g.K;
  void* args[] = {&pa, &pb, &pc, &M, &N, &K};
  launch_dims d;
  if (tiled) {
    const gemm_tiling& tl = gemm_v2_tiling;
    d.block[0] = unsigned(tl.threads_x()), d.block[1] = unsigned(tl.threads_y());
    d.grid[0] = unsigned((N + tl.bn - 1) / tl.bn), d.grid[1] = unsigned((M + tl.bm - 1) / tl.bm);
  } else {
    d.block[0] = d.block[1] = gemm_v1_block;
    d.grid[0] = unsigned((N + gemm_v1_block - 1) / gemm_v1_block), d.grid[1] = unsigned((M + gemm_v1_block - 1) / gemm_v1_block);
  }
  s.phase("launch");
  if (!s.check(s.rt().launch(k, d, args))) return false;
  s.phase("sync");
  if (!s.check(s.rt().synchronize())) return false;
  if (timed && !timed(d, args)) return false;

  s.phase("verify");
  std::vector<float> got(c_n);
  if (!s.check(dc.download(got.data())) || !s.check(dc.check_guards(guards_ok))) return false;
  check = check_gemm_rows(
      got, M, N, g.all_rows, seed, [&](int r, int c) { return gemm_ref_element(a.wide.data(), b.wide.data(), N, K, r, c); },
      [&](int r, int c) { return element_bound(a.wide, b.wide, N, K, r, c); }, [&] { s.heartbeat(); });
  return true;
}

}  // namespace

probe_result run_gemm_with(const probe_context& ctx, gemm_type type, std::unique_ptr<runtime> rt) {
  const gemm_kind kind = kind_of(type);
  probe_result r;
  r.id = kind.id;
  gpu_session s(ctx, r);
  if (rt) s.adopt(std::move(rt));
  else if (!s.open()) return r;
  const device_props& p = s.props();
  const bool cpu = p.backend == "cpu";
  const std::string version = option_text(ctx, "kernel", "v2") == "v1" ? "v1" : "v2";
  const bool tiled = version == "v2";
  const int S = int(option_int(ctx, "size", cpu ? 128 : 4096));
  const int iters = int(option_int(ctx, "iters", cpu ? 1 : 5));
  const std::string kernel_name = fmt::format("gemm_{}_{}", kind.kernel_tag, version);

  const gemm_tiling& tl = gemm_v2_tiling;
  std::vector<std::string> defines = {fmt::format("GS_GEMM_BM={}", tl.bm), fmt::format("GS_GEMM_BN={}", tl.bn),
                                      fmt::format("GS_GEMM_BK={}", tl.bk), fmt::format("GS_GEMM_TM={}", tl.tm),
                                      fmt::format("GS_GEMM_TN={}", tl.tn)};
  module_handle mod;
  kernel_handle k;
  if (!s.compile("gemm.cu", defines, mod) || !s.kernel(mod, kernel_name, k)) return r;
  r.data["kernel"] = kernel_name;

  // 1. Correctness on awkward sizes, every element.
  f32_check small;
  bool guards_small = false;
  if (!run_and_check(s, type, k, tiled, {301, 259, 173, true}, 1001, small, guards_small, nullptr)) return r;
  r.data["correctness"] = small.to_json();
  r.data["correctness"]["shape"] = {301, 259, 173};
  if (!small.ok() || !guards_small) {
    s.finish(status::fail, kernel_name + " 301x259x173: " + (small.ok() ? "wrote outside C (guard bytes changed)" : small.describe()));
    return r;
  }

  // 2. Rate on S x S x S.
  double ms = 0;
  auto timed = timed_gemm_launches(s, k, iters, ms);
  f32_check big;
  bool guards_big = false;
  if (!run_and_check(s, type, k, tiled, {S, S, S, false}, 2002, big, guards_big, timed)) return r;
  r.data["rate_run"] = big.to_json();
  r.data["rate_run"]["shape"] = {S, S, S};
  if (!big.ok() || !guards_big) {
    s.finish(status::fail, fmt::format("{} {}^3: {}", kernel_name, S, big.ok() ? "wrote outside C (guard bytes changed)" : big.describe()));
    return r;
  }

  // Context only: the card's tensor/matrix-core peak is what a library reaches; this kernel uses CUDA-core FMAs.
  rate_verdict v = judge_gemm_rate(r, p, "gemm_" + version, kind.peak_key, S, iters, ms,
                                   "GPU clocks or power capped (nvidia-smi -q -d CLOCK,POWER / amd-smi metric), another "
                                   "process on the GPU, or a kernel built for a different arch than the device's");
  s.finish(v.outcome, fmt::format("{}: max rel err {:.2g} within bound; {}^3 at {}", kernel_name,
                                  std::max(small.max_rel_err, big.max_rel_err), S, v.detail));
  return r;
}

namespace {
probe_result run_fp32(const probe_context& ctx) { return run_gemm_with(ctx, gemm_type::fp32, nullptr); }
probe_result run_bf16(const probe_context& ctx) { return run_gemm_with(ctx, gemm_type::bf16, nullptr); }
probe_result run_fp16(const probe_context& ctx) { return run_gemm_with(ctx, gemm_type::fp16, nullptr); }
}  // namespace

const probe_spec gemm_fp32_probe = {
    "gemm.fp32", "fp32 GEMM kernel: checked against the CPU reference, TFLOP/s against what it reaches on this card",
    {"tensor.vector_add"}, true, true, run_fp32};
const probe_spec gemm_bf16_probe = {
    "gemm.bf16", "bf16-input GEMM kernel (fp32 accumulate): checked against the CPU reference, TFLOP/s judged",
    {"tensor.vector_add"}, true, true, run_bf16};
const probe_spec gemm_fp16_probe = {
    "gemm.fp16", "fp16-input GEMM kernel (fp32 accumulate): checked against the CPU reference, TFLOP/s judged",
    {"tensor.vector_add"}, true, true, run_fp16};

}  // namespace gs
