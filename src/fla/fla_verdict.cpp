// The verdict of `gpustack probe fla`; see fla_verdict.h and docs/fla.md.
#include "fla/fla_verdict.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/version.h"

namespace gs {
namespace {

bool ran_ok(status s) { return s == status::pass || s == status::warn; }

std::string join(const std::vector<int>& v) { return fmt::format("{}", fmt::join(v, ",")); }

std::string triton_finding(const fla_verdict_context& ctx) {
  if (ctx.gpu_vendor == "amd") return ctx.gpu_arch.rfind("gfx12", 0) == 0 ? "GS-TRITON-001" : "GS-TRITON-002";
  return "GS-TRITON-003";
}

}  // namespace

bool fla_backward_refusal_is_known(const fla_verdict_context& ctx, const std::string& detail) {
  if (detail.find("3.7.1") != std::string::npos || detail.find("#640") != std::string::npos ||
      detail.find("issues/640") != std::string::npos)
    return true;
  if (ctx.gpu_arch.rfind("sm_90", 0) != 0 || ctx.triton_version.empty()) return false;
  std::optional<version> v = version::parse(ctx.triton_version);
  std::optional<version_range> known = version_range::parse(">=3.4.0,<3.7.1");
  return v && known && known->contains(*v);
}

fla_verdict decide_fla_verdict(const std::vector<probe_result>& results, const fla_verdict_context& ctx) {
  fla_verdict v;
  std::map<std::string, std::map<int, const probe_result*>> by;  // backend -> stage -> result
  for (const probe_result& r : results)
    if (r.data.contains("backend") && r.data.contains("stage"))
      by[r.data["backend"].get<std::string>()][r.data["stage"].get<int>()] = &r;

  for (const char* name : {"native", "triton", "fla"}) {
    if (!by.count(name)) continue;
    fla_backend_verdict b;
    b.backend = name;
    bool broken = false;
    for (const auto& [stage, r] : by[name]) {
      if (r->outcome == status::skip) {
        b.skipped.push_back(stage);
        if (b.skip_reason.empty()) b.skip_reason = r->detail;
        continue;
      }
      if (ran_ok(r->outcome)) {
        b.passed.push_back(stage);
        if (!broken) b.highest_safe = stage;
      } else {
        b.failed.push_back(stage);
        if (!broken && b.highest_safe < 0) b.highest_safe = 0;
        broken = true;
      }
    }
    v.backends.push_back(b);
  }

  // Triton's fault: the native kernel, pipelined to depth N, passes, and a Triton backend fails
  // at the same N. Where native fails too, the card, driver or runtime is suspect first.
  auto at = [&](const std::string& backend, int stage) -> const probe_result* {
    auto it = by.find(backend);
    if (it == by.end()) return nullptr;
    auto jt = it->second.find(stage);
    return jt == it->second.end() ? nullptr : jt->second;
  };
  int cap = -1;
  for (const fla_backend_verdict& b : v.backends) {
    if (b.backend == "native") {
      v.native_fault = !b.failed.empty();
      continue;
    }
    for (int s : b.failed) {
      const probe_result* n = at("native", s);
      if (n && ran_ok(n->outcome)) {
        v.triton_fault = true;
        if (std::find(v.fault_stages.begin(), v.fault_stages.end(), s) == v.fault_stages.end()) v.fault_stages.push_back(s);
      }
    }
    if (!b.failed.empty()) cap = cap < 0 ? b.highest_safe : std::min(cap, b.highest_safe);
  }
  std::sort(v.fault_stages.begin(), v.fault_stages.end());

  for (const fla_backend_verdict& b : v.backends) {
    if (b.highest_safe < 0)
      v.lines.push_back(b.backend + ": not run" + (b.skip_reason.empty() ? "" : " (" + b.skip_reason + ")"));
    else if (b.failed.empty() && b.skipped.empty())
      v.lines.push_back(b.backend + ": every stage passed (" + join(b.passed) + "); highest safe num_stages " +
                        std::to_string(b.highest_safe));
    else if (b.failed.empty())  // an interrupted run, or a stage that could not run: no claim about it
      v.lines.push_back(b.backend + ": passed at num_stages " + join(b.passed) + "; not run at " + join(b.skipped) +
                        (b.skip_reason.empty() ? "" : " (" + b.skip_reason + ")"));
    else
      v.lines.push_back(b.backend + ": fails at num_stages " + join(b.failed) + "; highest safe num_stages " +
                        (b.highest_safe == 0 ? std::string("none") : std::to_string(b.highest_safe)));
  }
  if (v.triton_fault) {
    v.finding_id = triton_finding(ctx);
    v.lines.push_back("Triton's fault: the native pipelined kernel passes at num_stages " + join(v.fault_stages) +
                      " where Triton fails (a Triton compiler bug, not the driver or the card)");
  } else if (v.native_fault) {
    v.lines.push_back("the native kernel fails too: suspect the driver, the runtime or the card before Triton");
  }
  if (cap > 0) {
    v.cap = cap;
    v.fix = "gpustack fix triton-stages --max " + std::to_string(cap);
    v.lines.push_back("fix: " + v.fix + " (a shim that caps every Triton launch's num_stages at " +
                      std::to_string(cap) + "; survives reinstalling packages, removable)");
  } else if (cap == 0) {
    v.fix = ctx.gpu_vendor == "amd" ? "pip install 'triton==3.5.1' with torch 2.9.1 (no num_stages works with this Triton)"
                                    : "install a Triton release known to work with this GPU (no num_stages works with this one)";
    v.lines.push_back("fix: " + v.fix);
  }

  // FLA's backward: a refusal on Hopper with Triton < 3.7.1 is the known issue, not a failure.
  for (const auto& [stage, r] : by["fla"]) {
    if (!r->data.contains("backward") || !r->data["backward"].is_object()) continue;
    const nlohmann::json& bw = r->data["backward"];
    std::string st = bw.value("status", ""), detail = bw.value("detail", "");
    if ((st == "skip" || st == "fail" || st == "error") && fla_backward_refusal_is_known(ctx, detail)) {
      v.backward_refused = true;
      if (v.finding_id.empty()) v.finding_id = "GS-FLA-001";
    }
  }
  if (v.backward_refused)
    v.lines.push_back("fla backward: refused on Hopper with Triton " +
                      (ctx.triton_version.empty() ? std::string("< 3.7.1") : ctx.triton_version) +
                      ": the known issue GS-FLA-001 (fla-org/flash-linear-attention#640), not a crash");
  return v;
}

nlohmann::json fla_verdict::to_json() const {
  nlohmann::json j;
  nlohmann::json safe = nlohmann::json::object();
  for (const fla_backend_verdict& b : backends) {
    nlohmann::json e = {{"highest_safe_num_stages", b.highest_safe < 0 ? nlohmann::json(nullptr) : nlohmann::json(b.highest_safe)},
                        {"passed", b.passed}, {"failed", b.failed}, {"skipped", b.skipped}};
    if (!b.skip_reason.empty()) e["skip_reason"] = b.skip_reason;
    safe[b.backend] = e;
  }
  j["backends"] = safe;
  j["tritons_fault"] = triton_fault;
  j["fault_stages"] = fault_stages;
  j["native_fault"] = native_fault;
  j["finding"] = finding_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(finding_id);
  j["fix"] = fix.empty() ? nlohmann::json(nullptr) : nlohmann::json(fix);
  if (cap > 0) j["num_stages_cap"] = cap;
  j["backward_refused_known_issue"] = backward_refused;
  j["summary"] = lines;
  return j;
}

}  // namespace gs
