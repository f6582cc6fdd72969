// gemm.mma.bf16 / gemm.mma.fp16 / gemm.mma.fp8: kernels/gemm_mma.cu, the GPU's matrix unit (tensor
// cores, WMMA, MFMA) on nn.Linear's operand layout (y = x W^T), in two runs as gemm.* does:
//  1. correctness: 301 x 259 x 173, no multiple of any tile (128, 256, 32, 16); K is padded with
//     zero columns to 176 because the kernel copies 16-byte row pieces; every element checked;
//  2. rate: S^3 (4096 on a GPU: 137 GFLOP, ~0.2 ms at the H200's dense peak), timed over `iters`
//     launches; eight rows checked against the reference, every element checked for being written.
// On cc 9.0 the kernel is gemm_mma.cu's sm_90a path (TMA + wgmma, 384 threads, two tensor maps in
// place of A and Bt; option wgmma=0 keeps mma.sync for a side-by-side rate); `path` in the data
// names the path that ran ("wgmma", "mma.sync", "gs_mma16 waves", "cpu reference").
// fp8 (E4M3, fp32 C) where the arch has an fp8 matrix instruction we build (fp8_unit_for): sm_90's
// wgmma, mma.sync m16n8k32 on sm_89 and sm_120, MI300's MFMA (FNUZ codes), RDNA4's WMMA (OCP codes); K is padded to a multiple of 16, the
// inputs are the encoding's finite codes (gemm_inputs.h) and the bound is gemm_fp8_error_bound.
// The band comes from the card: its dense matrix peak for the input type (expected_perf.toml)
// times the [[kernel]] fraction; gemm.*'s CUDA-core kernels stay as the controls beside it.
#include "probes/gemm_mma_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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

// The sm number of "sm_90", or 0.
int sm_number(const std::string& arch) { return arch.starts_with("sm_") ? std::atoi(arch.c_str() + 3) : 0; }

}  // namespace

std::string matrix_unit_for(const device_props& p) {
  // Mirrors the lowering choice at the top of kernels/gs_mma.h (the gfx build check in CI reads
  // the instructions actually emitted).
  if (p.backend == "cpu") return "cpu reference";
  if (p.backend == "cuda") return sm_number(p.arch) >= 80 ? "mma.sync.m16n8k16" : "";
  const std::string& a = p.arch;
  if (a == "gfx90a" || a == "gfx940" || a == "gfx941" || a == "gfx942" || a == "gfx950") return "mfma_f32_16x16x16";
  if (a == "gfx1200" || a == "gfx1201") return "wmma_f32_16x16x16 (gfx12)";
  if (a.starts_with("gfx110") || a.starts_with("gfx115")) return "wmma_f32_16x16x16 (gfx11)";
  return "";
}

bool wgmma_path_for(const device_props& p) { return p.backend == "cuda" && p.arch == "sm_90"; }

std::string fp8_unit_for(const device_props& p, std::string& why_not) {
  const std::string& a = p.arch;
  if (p.backend == "cpu") return "cpu reference";
  if (p.backend == "cuda") {
    // Mirrors gs_mma.h's GS_MMA_FP8: mma.sync.m16n8k32 .e4m3 (PTX ISA "mma", sm_89+) where it is the
    // arch's fp8 path (Ada, consumer Blackwell); Hopper's is wgmma; sm_100-110's is tcgen05.
    const int sm = sm_number(a);
    if (wgmma_path_for(p)) return "wgmma.mma_async.m64n256k32.e4m3 (TMA, sm_90a)";
    if (sm == 89 || sm >= 120) return "mma.sync.m16n8k32.e4m3";
    if (sm >= 100) why_not = a + "'s fp8 matrix path is tcgen05, which kernels/gemm_mma.cu does not build";
    else if (sm >= 89) why_not = a + ": no fp8 lowering in kernels/gs_mma.h";
    else why_not = a + " has no fp8 tensor-core instruction (fp8 mma.sync arrives with sm_89, wgmma fp8 with sm_90a)";
    return "";
  }
  if (a == "gfx940" || a == "gfx941" || a == "gfx942") return "mfma_f32_16x16x32_fp8_fp8 (FNUZ e4m3)";
  if (a == "gfx1200" || a == "gfx1201") return "wmma_f32_16x16x16_fp8_fp8 (gfx12, OCP e4m3)";
  if (a == "gfx950")
    why_not = "gfx950's fp8 MFMA reads OCP codes (MI300's read FNUZ); kernels/gs_mma.h does not build it (its clang-19 "
              "checks cover gfx942 and gfx1201)";
  else if (a == "gfx90a" || a.starts_with("gfx90") || a.starts_with("gfx10") || a.starts_with("gfx11") ||
           a.starts_with("gfx115"))
    why_not = a + " has no fp8 matrix instruction (MFMA fp8 arrives with gfx940, WMMA fp8 with gfx12)";
  else why_not = a + ": no fp8 matrix lowering in kernels/gs_mma.h";
  return "";
}

gemm_type fp8_type_for(const device_props& p) {
  const std::string& a = p.arch;
  return p.backend == "hip" && (a == "gfx940" || a == "gfx941" || a == "gfx942") ? gemm_type::fp8_e4m3fnuz
                                                                                  : gemm_type::fp8_e4m3fn;
}

std::array<tensor_map_2d, 2> gemm_wgmma_maps(void* a, void* bt, tensor_elem elem, int M, int N, int K) {
  const gemm_wgmma_tiling& t = gemm_wgmma_tile;
  const unsigned bytes = tensor_elem_bytes(elem);
  auto map = [&](void* base, int rows, int box_rows) {
    tensor_map_2d m;
    m.base = base;
    m.elem = elem;
    m.cols = uint64_t(K), m.rows = uint64_t(rows);
    m.row_stride_bytes = uint64_t(K) * bytes;
    m.box_cols = uint32_t(t.bk_for(int(bytes))), m.box_rows = uint32_t(box_rows);
    m.swizzle_bytes = 128;  // = box_cols x element bytes: one k-tile row is one swizzle row
    return m;
  };
  return {map(a, M, t.bm), map(bt, N, t.bn)};
}

std::vector<std::string> gemm_mma_defines(bool wgmma, int stages) {
  if (wgmma) return {"GS_MMA_WGMMA=1", fmt::format("GS_WG_STAGES={}", stages)};
  return {fmt::format("GS_MMA_STAGES={}", stages)};
}

namespace {

struct mma_kind {
  const char* id;
  const char* kernel;       // extern "C" name in gemm_mma.cu
  const char* expect_name;  // [[kernel]] entry of expected_perf.toml
  const char* peak_key;     // the card's dense matrix figure for this input type
};

mma_kind mma_kind_of(gemm_type t) {
  if (t == gemm_type::fp16) return {"gemm.mma.fp16", "gemm_mma_f16", "gemm_mma_f16", "fp16_tflops"};
  if (gemm_type_is_fp8(t)) return {"gemm.mma.fp8", "gemm_mma_fp8", "gemm_mma_fp8", "fp8_tflops"};
  return {"gemm.mma.bf16", "gemm_mma_bf16", "gemm_mma_bf16", "bf16_tflops"};
}

// A (M x K) and Bt (N x K) with K padded to 16 bytes (8 16-bit or 16 fp8 elements) by zero
// columns: the padding adds exact zeros to every sum, so the reference over the padded K is the
// reference of the product.
struct nt_inputs {
  int K = 0;  // padded
  std::vector<unsigned char> a, bt;  // as uploaded: elem bytes each
  std::vector<float> a_wide, bt_wide;
};

nt_inputs make_nt_inputs(gemm_type t, int M, int N, int K, uint32_t seed) {
  nt_inputs in;
  const size_t e = gemm_elem_bytes(t);
  const int k_mult = gemm_mma_tile.k_multiple_for(int(e));
  in.K = (K + k_mult - 1) / k_mult * k_mult;
  auto fill = [&](int rows, uint32_t s, std::vector<unsigned char>& raw, std::vector<float>& wide) {
    matrix_input m = random_matrix(t, size_t(rows) * K, s);
    raw.assign(size_t(rows) * in.K * e, 0);
    wide.assign(size_t(rows) * in.K, 0.0f);
    for (int r = 0; r < rows; ++r)
      for (int k = 0; k < K; ++k) {
        const size_t from = size_t(r) * K + k, to = size_t(r) * in.K + k;
        std::copy_n(&m.raw[from * e], e, &raw[to * e]);
        wide[to] = m.wide[from];
      }
  };
  fill(M, seed, in.a, in.a_wide);
  fill(N, seed + 1, in.bt, in.bt_wide);
  return in;
}

struct mma_run {
  int M, N, K;
  bool all_rows;
};

struct mma_launch {
  kernel_handle k;
  unsigned shared_bytes = 0;
  bool wgmma = false;  // the sm_90a entries: tensor maps in place of A and Bt, 384 threads
};

// Upload, launch once (then `timed`, if given), download; compare the chosen rows with the
// reference and count poison left anywhere in C. False when a runtime call failed.
template <class Timed>
bool run_nt_and_check(gpu_session& s, gemm_type t, const mma_launch& kl, const mma_run& g, uint32_t seed,
                      f32_check& check, bool& guards_ok, Timed timed) {
  nt_inputs in = make_nt_inputs(t, g.M, g.N, g.K, seed);
  guarded_buffer da, db, dc;
  const size_t c_n = size_t(g.M) * g.N;
  if (!s.check(da.create(s.rt(), in.a.size())) || !s.check(db.create(s.rt(), in.bt.size())) ||
      !s.check(dc.create(s.rt(), c_n * 4)) || !s.check(da.upload(in.a.data())) || !s.check(db.upload(in.bt.data())) ||
      !s.check(dc.fill_u32(unwritten_bits)))
    return false;
  void *pa = da.ptr(), *pb = db.ptr(), *pc = dc.ptr();
  int M = g.M, N = g.N, K = in.K;
  void* args[] = {&pa, &pb, &pc, &M, &N, &K};
  tensor_map_bytes maps[2];
  if (kl.wgmma) {
    const tensor_elem elem = gemm_type_is_fp8(t) ? tensor_elem::u8 : t == gemm_type::fp16 ? tensor_elem::f16 : tensor_elem::bf16;
    const std::array<tensor_map_2d, 2> tm = gemm_wgmma_maps(pa, pb, elem, M, N, K);
    if (!s.check(s.rt().encode_tensor_map(tm[0], maps[0])) || !s.check(s.rt().encode_tensor_map(tm[1], maps[1])))
      return false;
    args[0] = &maps[0], args[1] = &maps[1];
  }
  const gemm_mma_tiling& tl = gemm_mma_tile;
  launch_dims d;
  d.block[0] = unsigned(kl.wgmma ? gemm_wgmma_tile.threads : tl.threads);
  d.grid[0] = unsigned((N + tl.bn - 1) / tl.bn), d.grid[1] = unsigned((M + tl.bm - 1) / tl.bm);
  static_assert(gemm_mma_tile.bm == gemm_wgmma_tile.bm && gemm_mma_tile.bn == gemm_wgmma_tile.bn, "one grid for both paths");
  d.shared_bytes = kl.shared_bytes;
  s.phase("launch");
  if (!s.check(s.rt().launch(kl.k, d, args))) return false;
  s.phase("sync");
  if (!s.check(s.rt().synchronize())) return false;
  if (!timed(d, args)) return false;

  s.phase("verify");
  std::vector<float> got(c_n);
  if (!s.check(dc.download(got.data())) || !s.check(dc.check_guards(guards_ok))) return false;
  check = check_gemm_rows(
      got, M, N, g.all_rows, seed,
      [&](int r, int c) { return gemm_nt_ref_element(in.a_wide.data(), in.bt_wide.data(), K, r, c); },
      [&](int r, int c) {
        if (gemm_type_is_fp8(t)) return gemm_fp8_error_bound(&in.a_wide[size_t(r) * K], &in.bt_wide[size_t(c) * K], K);
        double abs_sum = 0;
        for (int k = 0; k < K; ++k) abs_sum += std::fabs(double(in.a_wide[size_t(r) * K + k]) * in.bt_wide[size_t(c) * K + k]);
        return gemm_error_bound(K, abs_sum);
      },
      [&] { s.heartbeat(); });
  return true;
}

}  // namespace

probe_result run_gemm_mma_with(const probe_context& ctx, gemm_type type, std::unique_ptr<runtime> rt) {
  const mma_kind kind = mma_kind_of(type);
  const bool fp8 = gemm_type_is_fp8(type);
  probe_result r;
  r.id = kind.id;
  gpu_session s(ctx, r);
  if (rt) s.adopt(std::move(rt));
  else if (!s.open()) return r;
  const device_props& p = s.props();
  const bool cpu = p.backend == "cpu";
  std::string why_no_fp8;
  const std::string unit = fp8 ? fp8_unit_for(p, why_no_fp8) : matrix_unit_for(p);
  if (fp8) {
    if (unit.empty()) {
      s.finish(status::skip, fmt::format("no fp8 matrix path here: {}", why_no_fp8));
      return r;
    }
    if (wgmma_path_for(p) && option_int(ctx, "wgmma", 1, 0, 1) == 0) {
      s.finish(status::skip, "wgmma=0 on sm_90: fp8 runs on the wgmma path only (mma.sync e4m3 is not Hopper's fp8 "
                             "path; gs_mma.h builds no fp8 entry for sm_90)");
      return r;
    }
    type = fp8_type_for(p);  // the encoding this arch's instruction reads
    r.data["fp8_encoding"] = type == gemm_type::fp8_e4m3fnuz ? "e4m3fnuz" : "e4m3fn (OCP)";
  }
  if (unit.empty()) {
    s.finish(status::skip, fmt::format("kernels/gs_mma.h has no matrix-unit lowering for {} (bf16/fp16 mma.sync needs "
                                       "sm_80+, WMMA gfx11/gfx12, MFMA gfx90a/gfx94x/gfx950); gemm.bf16 covers its ALUs",
                                       p.arch));
    return r;
  }
  const int S = int(option_int(ctx, "size", cpu ? 128 : 4096));
  const int iters = int(option_int(ctx, "iters", cpu ? 1 : 5));

  // The tiling's stage count (gemm_ref.h), fewer when the device offers less shared memory.
  mma_launch kl;
  kl.wgmma = wgmma_path_for(p) && option_int(ctx, "wgmma", 1, 0, 1) == 1;
  const gemm_mma_tiling& tl = gemm_mma_tile;
  const gemm_wgmma_tiling& tw = gemm_wgmma_tile;
  auto shared_for = [&](int n) { return kl.wgmma ? tw.shared_bytes(n) : unsigned(n) * tl.stage_bytes(); };
  int stages = kl.wgmma ? tw.stages : tl.stages(p.backend == "cuda");
  while (stages > 2 && p.max_shared_bytes && shared_for(stages) > p.max_shared_bytes) --stages;
  kl.shared_bytes = shared_for(stages);
  if (p.max_shared_bytes && kl.shared_bytes > p.max_shared_bytes) {
    s.finish(status::skip, fmt::format("{} offers {} bytes of shared memory per block; the kernel's two stages need {}",
                                       p.name, p.max_shared_bytes, kl.shared_bytes));
    return r;
  }
  module_handle mod;
  if (!s.compile("gemm_mma.cu", gemm_mma_defines(kl.wgmma, stages), mod, kl.wgmma) || !s.kernel(mod, kind.kernel, kl.k)) return r;
  const std::string path = kl.wgmma ? "wgmma" : p.backend == "cuda" ? "mma.sync" : cpu ? "cpu reference" : "gs_mma16 waves";
  const std::string unit_used = kl.wgmma && !fp8 ? "wgmma.mma_async.m64n256k16 (TMA, sm_90a)" : unit;
  r.data["kernel"] = kind.kernel;
  r.data["path"] = path;
  r.data["matrix_unit"] = unit_used;
  r.data["stages"] = stages;
  r.data["shared_bytes"] = kl.shared_bytes;

  auto untimed = [](launch_dims&, void**) { return true; };
  f32_check small;
  bool guards_small = false;
  if (!run_nt_and_check(s, type, kl, {301, 259, 173, true}, 1001, small, guards_small, untimed)) return r;
  r.data["correctness"] = small.to_json();
  r.data["correctness"]["shape"] = {301, 259, 173};
  if (!small.ok() || !guards_small) {
    s.finish(status::fail, fmt::format("{} 301x259x173: {}", kind.kernel,
                                       small.ok() ? "wrote outside C (guard bytes changed)" : small.describe()));
    return r;
  }

  double ms = 0;
  auto timed = timed_gemm_launches(s, kl.k, iters, ms);
  f32_check big;
  bool guards_big = false;
  if (!run_nt_and_check(s, type, kl, {S, S, S, false}, 2002, big, guards_big, timed)) return r;
  r.data["rate_run"] = big.to_json();
  r.data["rate_run"]["shape"] = {S, S, S};
  if (!big.ok() || !guards_big) {
    s.finish(status::fail, fmt::format("{} {}^3: {}", kind.kernel, S, big.ok() ? "wrote outside C (guard bytes changed)" : big.describe()));
    return r;
  }

  rate_verdict v = judge_gemm_rate(r, p, kind.expect_name, kind.peak_key, S, iters, ms,
                                   "GPU clocks or power capped (nvidia-smi -q -d CLOCK,POWER / amd-smi metric), another "
                                   "process on the GPU, or the matrix unit not used (a kernel built for another arch)");
  s.finish(v.outcome, fmt::format("{} on {}: max rel err {:.2g} within bound; {}^3 at {}", kind.kernel, unit_used,
                                  std::max(small.max_rel_err, big.max_rel_err), S, v.detail));
  return r;
}

namespace {
probe_result run_mma_bf16(const probe_context& ctx) { return run_gemm_mma_with(ctx, gemm_type::bf16, nullptr); }
probe_result run_mma_fp16(const probe_context& ctx) { return run_gemm_mma_with(ctx, gemm_type::fp16, nullptr); }
probe_result run_mma_fp8(const probe_context& ctx) { return run_gemm_mma_with(ctx, gemm_type::fp8_e4m3fn, nullptr); }
}  // namespace

const probe_spec gemm_mma_bf16_probe = {
    "gemm.mma.bf16", "bf16 GEMM on the matrix unit (tensor cores / WMMA / MFMA): checked, TFLOP/s against the card's peak",
    {"tensor.vector_add"}, true, true, run_mma_bf16};
const probe_spec gemm_mma_fp16_probe = {
    "gemm.mma.fp16", "fp16 GEMM on the matrix unit (tensor cores / WMMA / MFMA): checked, TFLOP/s against the card's peak",
    {"tensor.vector_add"}, true, true, run_mma_fp16};
const probe_spec gemm_mma_fp8_probe = {
    "gemm.mma.fp8",
    "fp8 (E4M3) GEMM on the matrix unit (Hopper wgmma, MI300 MFMA, RDNA4 WMMA; skip elsewhere): checked against the "
    "fp8 accumulator's bound, TFLOP/s against the card's dense fp8 peak",
    {"tensor.vector_add"}, true, true, run_mma_fp8};

}  // namespace gs
