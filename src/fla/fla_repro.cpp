// See fla_repro.h. The file is CASE (as JSON, read with json.loads so no Python literal rules
// apply), then the helper modules verbatim, then the backend's main; every part is an embedded
// asset, so the script is always the code this gpustack ran.
#include "fla/fla_repro.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/assets.h"
#include "core/text_scan.h"
#include "report/redact.h"

namespace gs {
namespace {

/// "# " before every line of `text` (at most 12 lines, each at most 200 characters).
std::string commented(std::string_view text) {
  std::string out;
  int n = 0;
  for (std::string_view line : scan::split(text, '\n')) {
    if (line.empty()) continue;
    if (++n > 12) {
      out += "#   ...\n";
      break;
    }
    out += "#   " + std::string(line.substr(0, 200)) + "\n";
  }
  return out;
}

std::string asset_or_empty(std::string_view path) {
  auto a = find_asset(path);
  return a ? std::string(*a) : std::string();
}

}  // namespace

std::optional<fla_repro> fla_repro_for(const probe_result& step, const redactor& scrub, std::string* why) {
  const nlohmann::json& d = step.data;
  const std::string backend = d.is_object() ? d.value("backend", "") : "";
  if (backend != "triton" && backend != "fla") {
    if (why)
      *why = backend == "native" ? "the native backend runs gpustack's own runtime and kernel (kernels/gdn_chunk.cu); "
                                   "`gpustack probe fla --backends native` reproduces it"
                                 : "not a step of the triton or fla backend";
    return std::nullopt;
  }
  const nlohmann::json c = d.value("case", nlohmann::json());
  const int stage = d.value("stage", d.value("num_stages", 0));
  if (!c.is_object() || !c.contains("T") || stage < 1) {
    if (why) *why = "the step stopped before it recorded its case (shape, seed): phase " + step.phase;
    return std::nullopt;
  }
  nlohmann::json cs = {{"num_stages", stage}};
  for (const char* k : {"B", "T", "H", "HV", "K", "V", "seed", "dtype"})
    if (c.contains(k)) cs[k] = c[k];
  std::vector<std::string> parts;
  std::string main_asset;
  if (backend == "triton") {
    // The warps the step used (the probe's default is 4 on wave32, 2 on wave64 CDNA).
    cs["num_warps"] = d.value("num_warps", nlohmann::json()).is_number() ? d["num_warps"].get<int>() : 4;
    const nlohmann::json smem = d.value("max_shared_mem", nlohmann::json());
    cs["small_smem"] = smem.is_number() && smem.get<double>() < 100 * 1024;
    parts = {"kernels/triton/gdn_ref.py", "kernels/triton/gdn_chunk.py", "probes/python/repro_check.py"};
    main_asset = "probes/python/repro_triton_main.py";
  } else {
    cs["repeat_qk"] = d.contains("gva");
    parts = {"kernels/triton/gdn_ref.py", "probes/python/gpustack_triton_stages.py", "probes/python/repro_check.py"};
    main_asset = "probes/python/repro_fla_main.py";
  }
  parts.push_back(main_asset);

  std::string versions;
  if (const nlohmann::json v = d.value("versions", nlohmann::json()); v.is_object())
    for (auto [k, x] : v.items())
      if (x.is_string()) versions += (versions.empty() ? "" : ", ") + k + " " + x.get<std::string>();
  std::string error = step.detail;
  if (const nlohmann::json e = d.value("error", nlohmann::json()); e.is_object() && e.value("message", nlohmann::json()).is_string())
    error = e.value("type", "") + ": " + e["message"].get<std::string>();

  fla_repro r;
  r.file_name = "repro_" + step.id;  // "repro_fla_triton_stages1.py"
  std::replace(r.file_name.begin(), r.file_name.end(), '.', '_');
  r.file_name += ".py";
  std::string& t = r.text;
  t += "#!/usr/bin/env python3\n";
  t += fmt::format("# Standalone reproducer of `gpustack probe fla` step {} ({} at phase {}), written by gpustack {}.\n",
                   step.id, to_string(step.outcome), step.phase.empty() ? "?" : step.phase, GPUSTACK_VERSION);
  t += fmt::format("# Backend {}: {}.\n", backend,
                   backend == "triton" ? "gpustack's gated-delta-rule Triton kernels at one num_stages"
                                       : "flash-linear-attention's chunk_gated_delta_rule, every launch forced to one num_stages");
  if (!d.value("arch", "").empty()) t += "# GPU arch " + d.value("arch", "") + (versions.empty() ? "" : "; " + versions) + "\n";
  else if (!versions.empty()) t += "# " + versions + "\n";
  t += "# What gpustack saw:\n" + commented(scrub.scrub(error));
  t += "# Run: python3 " + r.file_name + "   (exit 1: reproduced; 0: passed here; 2: no GPU)\n";
  t += "# Under NVIDIA's sanitizer: compute-sanitizer --tool memcheck python3 " + r.file_name + "\n";
  t += "# Exit 3: torch or triton" + std::string(backend == "fla" ? " or flash-linear-attention" : "") + " is not installed here.\n";
  t += "import json\nimport sys\n\ntry:\n    import torch  # noqa: F401\n    import triton  # noqa: F401\n";
  if (backend == "fla") t += "    import fla  # noqa: F401\n";
  t += "except ImportError as e:\n    print(\"cannot run: %s\" % e)\n    sys.exit(3)\n";
  t += "\nCASE = json.loads(r'''" + cs.dump() + "''')\n";
  for (const std::string& p : parts) {
    std::string src = asset_or_empty(p);
    if (src.empty()) {
      if (why) *why = p + " is not in this build of gpustack";
      return std::nullopt;
    }
    t += "\n\n# ---- " + p + " (gpustack) ----\n" + src;
    if (t.back() != '\n') t += '\n';
  }
  return r;
}

}  // namespace gs
