// blas.bf16 / blas.fp16 (blas_probe.h): choose the GEMMs (qlora_step_gemms of --set model at
// --set tokens, ranks 8/16/64), run each library in a child of its own (blas_run.h), merge.
// Why a child per library: rocBLAS without a Tensile library for the arch aborts the process
// (GS-BLAS-001) and hipBLASLt has faulted at LoRA shapes (GS-BLAS-003); the other library's result
// must survive that, and a fork must come before the GPU is opened (a child cannot use its
// parent's GPU context), so this process never opens the GPU itself.
#include "probes/blas_probe.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <csignal>

#include <algorithm>
#include <map>

#include "models/model_registry.h"
#include "probes/blas_run.h"
#include "probes/gpu_session.h"
#include "sys/forked_call.h"
#include "watch/result_codec.h"

namespace gs {
namespace {

const std::vector<int> lora_ranks = {8, 16, 64};

// Shared memory the child writes its breadcrumb into (blas_breadcrumb); unmapped on scope exit.
class shared_crumb {
 public:
  shared_crumb() {
    void* p = mmap(nullptr, sizeof(blas_breadcrumb), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) crumb_ = new (p) blas_breadcrumb();
  }
  ~shared_crumb() {
    if (crumb_) munmap(crumb_, sizeof(blas_breadcrumb));
  }
  blas_breadcrumb* get() const { return crumb_; }

 private:
  blas_breadcrumb* crumb_ = nullptr;
};

// In the library's child: a fault inside the library must end the child with its signal (what
// the parent reports), not run a handler the parent installed (a sanitizer's), nor leave a core
// file of a process that mapped a GPU's memory.
void crash_plainly() {
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::signal(sig, SIG_DFL);
  struct rlimit no_core = {0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
}

int severity_rank(status s) {
  switch (s) {
    case status::pass: return 1;
    case status::warn: return 2;
    case status::fail: return 3;
    case status::crash: return 4;
    case status::hang: return 5;
    case status::error: return 6;
    case status::skip: return 0;
  }
  return 0;
}

// The knowledge-base findings a library's failure is an instance of (matrix/rules/blas.toml).
void attach_findings(blas_id id, const probe_result& lr, std::vector<std::string>& ids) {
  // data.no_kernel: the GEMMs without a kernel (a list), or true when handle creation said so.
  const nlohmann::json nk = lr.data.value("no_kernel", nlohmann::json());
  const bool no_kernel = nk.is_array() ? !nk.empty() : nk.is_boolean() && nk.get<bool>();
  auto add = [&](const char* f) {
    if (std::find(ids.begin(), ids.end(), f) == ids.end()) ids.push_back(f);
  };
  if (id == blas_id::rocblas && (no_kernel || lr.outcome == status::crash)) add("GS-BLAS-001");
  if (id == blas_id::hipblaslt && no_kernel) add("GS-BLAS-002");
  if (id == blas_id::hipblaslt && lr.outcome == status::crash && lr.detail.find("lora_") != std::string::npos)
    add("GS-BLAS-003");
}

// Where both libraries timed the same GEMM: the ratio, and the GEMMs one runs 2x slower than the other.
nlohmann::json compare_libraries(const nlohmann::json& libs, std::string& note) {
  if (!libs.contains("hipblaslt") || !libs.contains("rocblas")) return nullptr;
  const nlohmann::json& h = libs["hipblaslt"]["data"];
  const nlohmann::json& rb = libs["rocblas"]["data"];
  if (!h.contains("gemms") || !rb.contains("gemms")) return nullptr;
  // Keyed by name and shape: qlora_step_gemms names a shape after its first module, and two layer
  // kinds (gemma's sliding and full attention) can give one module two shapes.
  auto key = [](const nlohmann::json& g) {
    return fmt::format("{} {}x{}x{}", g["gemm"].get<std::string>(), g["m"].get<int64_t>(), g["n"].get<int64_t>(),
                       g["k"].get<int64_t>());
  };
  std::map<std::string, double> rb_ms;
  for (const auto& g : rb["gemms"]) rb_ms[key(g)] = g["ms"].get<double>();
  nlohmann::json out = nlohmann::json::array();
  int slower = 0;
  for (const auto& g : h["gemms"]) {
    auto it = rb_ms.find(key(g));
    if (it == rb_ms.end() || it->second <= 0 || g["ms"].get<double>() <= 0) continue;
    const double ratio = g["ms"].get<double>() / it->second;  // > 1: hipBLASLt slower
    out.push_back({{"gemm", it->first}, {"hipblaslt_ms", g["ms"]}, {"rocblas_ms", it->second}, {"hipblaslt_over_rocblas", ratio}});
    if (ratio > 2 || ratio < 0.5) ++slower;
  }
  if (slower) note = fmt::format("{} GEMMs run over 2x slower in one library than the other (data.comparison)", slower);
  return out;
}

}  // namespace

probe_result run_blas_with(const probe_context& ctx, blas_type type, const blas_probe_setup& setup) {
  probe_result r;
  r.id = ctx.probe_id;
  r.phase = "load";
  const std::string model_name = option_text(ctx, "model", "qwen3.5-0.8b");
  const int64_t tokens = option_int(ctx, "tokens", 2048);
  std::vector<qlora_gemm> gemms;
  if (setup.gemms) {
    gemms = *setup.gemms;
  } else {
    std::vector<std::string> close;
    const model_spec* m = find_model(builtin_model_registry(), model_name, &close);
    if (!m) {
      r.outcome = status::error;
      r.detail = fmt::format("no model '{}' in the registry{}", model_name,
                             close.empty() ? "" : fmt::format(" (did you mean {}?)", close.front()));
      return r;
    }
    gemms = qlora_step_gemms(*m, tokens, lora_ranks);
    r.data["model"] = m->name;
    r.data["tokens"] = tokens;
    r.data["ranks"] = lora_ranks;
  }
  int64_t step_flops = 0;
  for (const qlora_gemm& g : gemms) step_flops += g.flops() * g.uses_per_step;
  r.data["gemm_count"] = gemms.size();
  r.data["step_gemm_flops"] = step_flops;

  const std::string which = option_text(ctx, "library", "all");
  std::vector<blas_id> ids;
  for (blas_id id : {blas_id::cublaslt, blas_id::hipblaslt, blas_id::rocblas})
    if (which == "all" || which == blas_key(id)) ids.push_back(id);
  if (ids.empty()) {
    r.outcome = status::error;
    r.detail = fmt::format("library '{}': write cublaslt, hipblaslt, rocblas or all", which);
    return r;
  }

  nlohmann::json libs = nlohmann::json::object();
  std::vector<std::string> ran, skipped;
  status worst = status::skip;
  for (blas_id id : ids) {
    blas_run_request req;
    req.library = id, req.type = type, req.library_named = which != "all";
    req.gemms = gemms;
    req.square = int(option_int(ctx, "size", 4096));
    req.iters = int(option_int(ctx, "iters", 10));
    req.open_rt = setup.open_rt;
    shared_crumb crumb;
    req.crumb = crumb.get();
    const forked_result fr = run_forked(
        [&]() {
          crash_plainly();
          return encode_probe_result(run_blas_library(ctx, req));
        },
        double(option_int(ctx, "timeout_s", 900)));
    probe_result lr;
    std::string why;
    if (std::optional<probe_result> d = fr.ok ? decode_probe_result(fr.text, &why) : std::nullopt) {
      lr = *d;
    } else {
      lr.outcome = fr.timed_out ? status::hang : status::crash;
      lr.detail = fmt::format("{} {} while {}", blas_name(id), fr.ok ? "answered unreadably: " + why : fr.error,
                              crumb.get() ? crumb.get()->get() : "running");
    }
    attach_findings(id, lr, r.finding_ids);
    libs[blas_key(id)] = {{"outcome", to_string(lr.outcome)}, {"detail", lr.detail}, {"phase", lr.phase}, {"data", lr.data}};
    (lr.outcome == status::skip ? skipped : ran).push_back(lr.detail);
    if (severity_rank(lr.outcome) > severity_rank(worst)) worst = lr.outcome;
  }
  r.data["libraries"] = libs;
  std::string note;
  if (nlohmann::json cmp = compare_libraries(libs, note); !cmp.is_null()) r.data["comparison"] = cmp;
  r.outcome = worst;
  r.phase = "verify";
  const std::vector<std::string>& shown = ran.empty() ? skipped : ran;
  for (const std::string& d : shown) r.detail += (r.detail.empty() ? "" : " | ") + d;
  if (!note.empty()) r.detail += "; " + note;
  return r;
}

namespace {
probe_result run_bf16(const probe_context& ctx) { return run_blas_with(ctx, blas_type::bf16, {}); }
probe_result run_fp16(const probe_context& ctx) { return run_blas_with(ctx, blas_type::fp16, {}); }
}  // namespace

const probe_spec blas_bf16_probe = {
    "blas.bf16", "the vendor BLAS training loads (cuBLASLt / hipBLASLt + rocBLAS) at a QLoRA step's bf16 GEMMs: checked, timed",
    {"tensor.vector_add"}, true, true, run_bf16};
const probe_spec blas_fp16_probe = {
    "blas.fp16", "the same at fp16: every GEMM checked against the CPU reference, timed against the card",
    {"tensor.vector_add"}, true, true, run_fp16};

}  // namespace gs
