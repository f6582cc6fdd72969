// py.matmul (issue 17): the GEMMs of a QLoRA step of a registry model through the user's torch,
// in bf16 and fp16, under each BLAS backend torch can be told to prefer (hipBLASLt and rocBLAS on
// ROCm, cuBLASLt and cuBLAS on CUDA), judged against gpustack's reference (py_matmul_judge.h).
// The shapes come from models/qlora_gemms.h; the script (probes/python/matmul.py) only runs them.
//
// Cost at the defaults (qwen3.5-0.8b, 2048 tokens, 10 timed calls): ~50 shapes x 2 dtypes x 2
// backends x 12 calls of at most a 2048 x 3584 x 1024 GEMM (15 GFLOP, ~20 us on an H200): a few
// seconds of GPU, mostly launch overhead and input generation; the reference here, 256 sampled
// elements per shape, K <= 3584: ~50 M multiply-adds, tens of ms.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/model_registry.h"
#include "probes/gpu_session.h"
#include "probes/py_matmul_judge.h"
#include "probes/python_probes.h"

namespace gs {
namespace {

probe_result run_py_matmul(const probe_context& ctx) {
  const std::string id = "py.matmul";
  const std::string model_name = option_text(ctx, "model", "qwen3.5-0.8b");
  const int64_t tokens = option_int(ctx, "tokens", 2048);
  const uint32_t seed = uint32_t(option_int(ctx, "seed", 20261205));
  std::vector<std::string> near;
  const model_spec* model = find_model(builtin_model_registry(), model_name, &near);
  if (!model)
    return make_result(id, status::error,
                       fmt::format("no model {} in the registry{}", model_name,
                                   near.empty() ? "" : fmt::format(" (did you mean {}?)", fmt::join(near, ", "))));
  std::vector<py_matmul_case> plan = py_matmul_plan(*model, tokens, seed);
  // The script indexes operands with 31-bit integers (py_matmul_hash): every operand must fit.
  for (const py_matmul_case& c : plan) {
    const qlora_gemm& g = c.gemm;
    if (std::max(g.m * g.k, g.k * g.n) >= (int64_t(1) << 31))
      return make_result(id, status::error,
                         fmt::format("{} at {} tokens has an operand of {} x {} elements, more than 2^31: use fewer tokens",
                                     g.name, tokens, g.m, g.k));
  }
  nlohmann::json extra = {{"model", model->name}, {"tokens", tokens}, {"shapes", py_matmul_shapes_json(plan)}};
  probe_result r = run_python_step(ctx, id, "probes/python/matmul.py", extra);
  const status before = r.outcome;
  r.data["model"] = model->name;
  r.data["tokens"] = tokens;
  r.data["ranks"] = {8, 16, 64};
  if (r.outcome == status::pass || r.data.contains("cases")) judge_py_matmul(r, plan);
  if (r.outcome != before && r.outcome != status::pass && ctx.facts) r.finding_ids = match_result_findings(r, *ctx.facts);
  return r;
}

}  // namespace

// Forked from the fork server like py.sdpa: torch only, its own GPU context.
const probe_spec py_matmul_probe = {
    "py.matmul", "the GEMMs of a QLoRA step (base + LoRA r8/16/64, bf16/fp16) through torch's BLAS backends vs gpustack's reference",
    {"py.torch"}, true, true, run_py_matmul, warm_python{{"torch"}, false}};

}  // namespace gs
