// The Python stack steps (python_probes.h): one table row and one script each. What is common
// lives in run_python_step: find the interpreter, run the script under the protocol, keep the
// versions it used, hand golden vectors to the comparer, and name the findings a failure matches.
#include "probes/python_probes.h"

#include <algorithm>
#include <cstdlib>

#include "probes/python_vectors.h"
#include "python/script_runner.h"
#include "rules/error_findings.h"

namespace gs {
namespace {

nlohmann::json option_value(const std::string& v) {
  if (v == "true" || v == "false") return v == "true";
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (!v.empty() && end && *end == '\0') {
    if (d == static_cast<double>(static_cast<long long>(d)) && v.find_first_of(".eE") == std::string::npos)
      return static_cast<long long>(d);
    return d;
  }
  return v;
}

probe_result skipped(std::string_view id, std::string why) {
  return make_result(std::string(id), status::skip, std::move(why));
}

#define GS_PY_STEP(fn, id, script) \
  probe_result fn(const probe_context& ctx) { return run_python_step(ctx, id, script); }

GS_PY_STEP(run_torch, "py.torch", "probes/python/torch_basic.py")
GS_PY_STEP(run_bnb_load, "py.bnb.load", "probes/python/bnb_load.py")
GS_PY_STEP(run_bnb_int8, "py.bnb.int8", "probes/python/bnb_int8.py")
GS_PY_STEP(run_bnb_nf4, "py.bnb.nf4", "probes/python/bnb_nf4.py")
GS_PY_STEP(run_hf_bnb, "py.transformers.bnb", "probes/python/hf_bnb_config.py")
GS_PY_STEP(run_peft, "py.peft.lora", "probes/python/peft_lora.py")
GS_PY_STEP(run_trl, "py.trl.config", "probes/python/trl_config.py")
GS_PY_STEP(run_sdpa, "py.sdpa", "probes/python/sdpa.py")
GS_PY_STEP(run_triton, "py.triton", "probes/python/triton_smoke.py")
#undef GS_PY_STEP

}  // namespace

nlohmann::json python_step_args(const probe_context& ctx, std::string_view id) {
  nlohmann::json a = nlohmann::json::object();
  a["device"] = ctx.device;
  bool any_gpu = ctx.facts && !ctx.facts->gpus.empty();
  a["expect_gpu"] = any_gpu;
  nlohmann::json vendors = nlohmann::json::array();
  if (ctx.facts)
    for (const gpu_info& g : ctx.facts->gpus) vendors.push_back(g.vendor);
  a["gpu_vendors"] = vendors;
  std::string prefix = std::string(id) + ".";
  for (const auto& [k, v] : ctx.options)
    if (k.size() > prefix.size() && k.compare(0, prefix.size(), prefix) == 0) a[k.substr(prefix.size())] = option_value(v);
  return a;
}

std::vector<std::string> match_result_findings(const probe_result& r, const machine_facts& facts) {
  std::vector<std::string> ids;
  for (const finding& f : failure_findings(builtin_knowledge_base(), r, facts)) ids.push_back(f.id);
  return ids;
}

probe_result run_python_step(const probe_context& ctx, std::string_view id, std::string_view script,
                             const nlohmann::json& extra_args) {
  if (!ctx.facts) return skipped(id, "no machine facts: cannot tell which Python to use");
  std::string why;
  if (!probe_interpreter(*ctx.facts, &why)) return skipped(id, why);
  python_probe_request req;
  req.script = std::string(script);
  req.args = python_step_args(ctx, id);
  if (extra_args.is_object()) req.args.update(extra_args);
  ctx.phase("start");
  python_probe_outcome out = run_python_script(ctx, req);
  probe_result r = to_probe_result(std::string(id), out);
  const python_info& py = ctx.facts->python;
  r.data["python"] = {{"interpreter", py.interpreter}, {"version", py.version}, {"env_kind", py.env_kind}};
  if (r.data.contains("golden")) handle_golden_vectors(ctx, r);
  if (r.outcome != status::pass && r.outcome != status::skip) r.finding_ids = match_result_findings(r, *ctx.facts);
  return r;
}

// Every step runs Python (isolated: a broken import can hang or crash) and all but py.trl.config
// touch the GPU through torch (uses_gpu: a hang there may leave the GPU unusable). The last field
// is how each may use the run's warm worker (docs/watchdog.md "Warm workers"): the modules its
// interpreter imports ahead, and `true` for the steps that import bitsandbytes (directly, or
// through peft and trl), which initialises the GPU at import (measured on the H200): those run
// inside the worker's shared interpreter, which has those imports done; the rest run forked from
// the fork server, which imports only what leaves the GPU uninitialised (torch, transformers,
// triton) and gives each step a process of its own, isolated as before. py.trl.config touches no
// GPU; it shares the interpreter only for its imports (trl pulls in peft and so bitsandbytes:
// 15 s in a fresh interpreter on the H200).
const probe_spec py_torch_probe = {
    "py.torch", "torch imports, sees the GPU through its own CUDA/HIP build, and a tensor op matches the CPU",
    {}, true, true, run_torch, warm_python{{"torch"}, false}};
const probe_spec py_bnb_load_probe = {
    "py.bnb.load", "bitsandbytes imports and loaded its native GPU library, not the CPU fallback",
    {"py.torch"}, true, true, run_bnb_load, warm_python{{"torch", "bitsandbytes"}, true}};
const probe_spec py_bnb_int8_probe = {
    "py.bnb.int8", "bitsandbytes LLM.int8: Linear8bitLt forward and the int8 pieces against gpustack's reference",
    {"py.bnb.load"}, true, true, run_bnb_int8, warm_python{{"torch", "bitsandbytes"}, true}};
const probe_spec py_bnb_nf4_probe = {
    "py.bnb.nf4", "bitsandbytes NF4: quantize_4bit bytes/absmax bit for bit, Linear4bit vs dequantize (bnb#2087)",
    {"py.bnb.load"}, true, true, run_bnb_nf4, warm_python{{"torch", "bitsandbytes"}, true}};
const probe_spec py_transformers_bnb_probe = {
    "py.transformers.bnb", "transformers BitsAndBytesConfig (NF4, double quant, bf16) quantizes a tiny model",
    {"py.bnb.load"}, true, true, run_hf_bnb, warm_python{{"torch", "transformers", "bitsandbytes"}, true}};
const probe_spec py_peft_lora_probe = {
    "py.peft.lora", "PEFT LoraConfig + get_peft_model on a tiny model; backward reaches the adapters",
    {"py.torch"}, true, true, run_peft, warm_python{{"torch", "transformers", "peft"}, true}};
const probe_spec py_trl_config_probe = {
    "py.trl.config", "TRL SFTConfig builds with QLoRA-style settings", {"py.torch"}, true, false, run_trl, warm_python{{"torch", "transformers", "trl"}, true}};
const probe_spec py_sdpa_probe = {
    "py.sdpa", "SDPA backends (flash, efficient, cuDNN, math): available, numerics vs math, which torch picks",
    {"py.torch"}, true, true, run_sdpa, warm_python{{"torch"}, false}};
const probe_spec py_triton_probe = {
    "py.triton", "Triton compiles and runs a vector add and a pipelined matmul; reports its target arch",
    {"py.torch"}, true, true, run_triton, warm_python{{"torch", "triton"}, false}};

}  // namespace gs
