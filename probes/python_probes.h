// The steps that check the user's own Python stack (issue 6, steps 2-10): each runs one script
// from probes/python/ in the interpreter `check` found (or --python/--venv), in the probe's
// watched child. py.torch is the root: when torch is missing or sees no GPU, every other step is
// `skip` through the dependency rule, so the reason is said once.
//   py.torch -> py.bnb.load -> py.bnb.int8, py.bnb.nf4, py.transformers.bnb
//   py.torch -> py.peft.lora, py.trl.config, py.sdpa, py.matmul, py.triton
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/probe_result.h"
#include "probes/probe.h"

namespace gs {

extern const probe_spec py_torch_probe;
extern const probe_spec py_bnb_load_probe;
extern const probe_spec py_bnb_int8_probe;
extern const probe_spec py_bnb_nf4_probe;
extern const probe_spec py_transformers_bnb_probe;
extern const probe_spec py_peft_lora_probe;
extern const probe_spec py_trl_config_probe;
extern const probe_spec py_sdpa_probe;
extern const probe_spec py_triton_probe;
extern const probe_spec py_matmul_probe;  // probes/py_matmul_probe.cpp

/// The arguments a step's script gets in GPUSTACK_ARGS: device, expect_gpu, gpu_vendors, and
/// every `--set <id>.<key>=value` as key (a number when it reads as one).
nlohmann::json python_step_args(const probe_context& ctx, std::string_view id);

/// Run one step's script and turn what came back into the step's result: versions and figures
/// in data, golden vectors handled (python_vectors.cpp), and for anything that did not pass,
/// the knowledge-base findings its error text matches in finding_ids. `extra_args` (an object)
/// joins the script's arguments: what gpustack computed for it (py.matmul's shapes).
probe_result run_python_step(const probe_context& ctx, std::string_view id, std::string_view script,
                             const nlohmann::json& extra_args = nlohmann::json::object());

/// Knowledge-base ids whose match_text patterns occur in a result's detail and output_tail
/// (the same text `gpustack probe` matches for the report's findings).
std::vector<std::string> match_result_findings(const probe_result& r, const machine_facts& facts);

}  // namespace gs
