// The verdict of `gpustack probe fla`; see fla_verdict.h and docs/fla.md.
#include "fla/fla_verdict.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "core/version.h"

namespace gs {
namespace {

bool ran_ok(status s) { return s == status::pass || s == status::warn; }

std::string join(const std::vector<int>& v) { return fmt::format("{}", fmt::join(v, ",")); }

/// "hang in phase run", "fail in phase run: AcceleratorError: CUDA error: an illegal memory access ..."
std::string how_it_failed(const probe_result& r) {
  std::string out = std::string(to_string(r.outcome)) + (r.phase.empty() ? "" : " in phase " + r.phase);
  std::string first = r.detail.substr(0, r.detail.find('\n'));
  if (!first.empty() && first != to_string(r.outcome)) out += ": " + (first.size() > 90 ? first.substr(0, 87) + "..." : first);
  return out;
}

stage_pattern pattern_of(const fla_backend_verdict& b) {
  if (b.passed.empty() && b.failed.empty()) return stage_pattern::not_run;
  if (b.failed.empty()) return stage_pattern::all_pass;
  if (b.passed.empty()) return stage_pattern::all_fail;
  return b.failed.front() > b.passed.back() ? stage_pattern::fails_above : stage_pattern::isolated;
}

std::string triton_finding(const fla_verdict_context& ctx) {
  if (ctx.gpu_vendor == "amd") return ctx.gpu_arch.rfind("gfx12", 0) == 0 ? "GS-TRITON-001" : "GS-TRITON-002";
  return "GS-TRITON-003";
}

}  // namespace

const char* to_string(stage_pattern p) {
  switch (p) {
    case stage_pattern::not_run: return "not_run";
    case stage_pattern::all_pass: return "all_pass";
    case stage_pattern::fails_above: return "fails_above";
    case stage_pattern::isolated: return "isolated";
    case stage_pattern::all_fail: return "all_fail";
  }
  return "not_run";
}

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
    if (r.data.contains("backend") && r.data.contains("stage") && r.data["stage"].is_number_integer())
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
        b.how[stage] = how_it_failed(*r);
        if (!broken && b.highest_safe < 0) b.highest_safe = 0;
        broken = true;
      }
    }
    b.pattern = pattern_of(b);
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
  int cap = -1;          // the lowest highest-pass among backends whose failures sit above their passes
  bool no_depth = false; // a Triton backend with no passing depth at all
  int lowest_failed = 0;  // the lowest depth such a backend ran: above 1, a lower one may still work
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
    if (b.pattern == stage_pattern::fails_above) cap = cap < 0 ? b.passed.back() : std::min(cap, b.passed.back());
    if (b.pattern == stage_pattern::all_fail) {
      no_depth = true;
      if (!b.failed.empty()) lowest_failed = std::max(lowest_failed, *std::min_element(b.failed.begin(), b.failed.end()));
    }
    if (b.pattern == stage_pattern::isolated)
      for (int s : b.failed)
        if (std::find(v.avoid.begin(), v.avoid.end(), s) == v.avoid.end()) v.avoid.push_back(s);
  }
  std::sort(v.fault_stages.begin(), v.fault_stages.end());
  std::sort(v.avoid.begin(), v.avoid.end());

  // The depths the user's own training uses: FLA at its own configs, as the fla backend saw it.
  std::set<int> own;
  for (const auto& [stage, r] : by["fla"])
    if (r->data.contains("fla_default_stages_seen") && r->data["fla_default_stages_seen"].is_array())
      for (const nlohmann::json& s : r->data["fla_default_stages_seen"])
        if (s.is_number_integer()) own.insert(s.get<int>());
  v.fla_own_stages.assign(own.begin(), own.end());
  std::vector<int> triton_failures;  // every depth a Triton backend failed at
  for (const fla_backend_verdict& b : v.backends)
    if (b.backend != "native")
      for (int s : b.failed) triton_failures.push_back(s);
  std::vector<int> hit;
  for (int s : triton_failures)
    if (own.count(s) && std::find(hit.begin(), hit.end(), s) == hit.end()) hit.push_back(s);
  std::sort(hit.begin(), hit.end());
  if (!own.empty() && !triton_failures.empty()) v.fla_affected = !hit.empty();

  for (const fla_backend_verdict& b : v.backends) {
    std::string how;
    for (const auto& [stage, text] : b.how) how += (how.empty() ? "" : "; ") + std::to_string(stage) + ": " + text;
    std::string not_run = b.skipped.empty() ? "" : "; not run at " + join(b.skipped);
    switch (b.pattern) {
      case stage_pattern::not_run:
        v.lines.push_back(b.backend + ": not run" + (b.skip_reason.empty() ? "" : " (" + b.skip_reason + ")"));
        break;
      case stage_pattern::all_pass:
        if (b.skipped.empty())
          v.lines.push_back(b.backend + ": every stage passed (" + join(b.passed) + "); highest safe num_stages " +
                            std::to_string(b.highest_safe));
        else  // an interrupted run, or a stage that could not run: no claim about it
          v.lines.push_back(b.backend + ": passed at num_stages " + join(b.passed) + not_run +
                            (b.skip_reason.empty() ? "" : " (" + b.skip_reason + ")"));
        break;
      case stage_pattern::fails_above:
        v.lines.push_back(b.backend + ": passes at num_stages " + join(b.passed) + ", fails at " + join(b.failed) +
                          not_run + " (" + how + "); highest safe num_stages " + std::to_string(b.passed.back()));
        break;
      case stage_pattern::isolated:
        v.lines.push_back(b.backend + ": passes at num_stages " + join(b.passed) + ", fails at " + join(b.failed) +
                          not_run + " (" + how + "): avoid num_stages " + join(b.failed) +
                          "; a cap cannot help, deeper pipelines pass");
        break;
      case stage_pattern::all_fail:
        v.lines.push_back(b.backend + ": fails at every num_stages that ran (" + join(b.failed) + not_run + "; " + how + ")");
        break;
    }
  }
  if (v.triton_fault) {
    v.finding_id = triton_finding(ctx);
    v.lines.push_back("Triton's fault: the native pipelined kernel passes at num_stages " + join(v.fault_stages) +
                      " where Triton fails (a Triton compiler bug, not the driver or the card)");
  } else if (v.native_fault) {
    v.lines.push_back("the native kernel fails too: suspect the driver, the runtime or the card before Triton");
  }
  if (v.fla_affected.has_value())
    v.lines.push_back(*v.fla_affected ? "FLA's own kernels compile with num_stages " + join(v.fla_own_stages) +
                                            " here, including the failing " + join(hit) + ": your training is affected"
                                      : "FLA's own kernels compile with num_stages " + join(v.fla_own_stages) +
                                            " here, none of them failing: your FLA training is not affected");

  // The fix follows the pattern: a cap only when failures sit above the passes and that cap
  // keeps every passing depth the user needs; a Triton version when nothing passes; otherwise
  // avoiding the depths, which only matters where the user's code uses them.
  if (no_depth && lowest_failed > 1) {
    // Only depths from lowest_failed up ran: saying "no num_stages works" (and naming another
    // Triton) would claim what was not tested.
    v.fix = "gpustack probe fla --stages 1.." + std::to_string(lowest_failed) +
            " (only num_stages " + std::to_string(lowest_failed) + " and up ran; a lower depth may work)";
    v.lines.push_back("fix: " + v.fix);
  } else if (no_depth) {
    v.fix = ctx.gpu_vendor == "amd" ? "pip install 'triton==3.5.1' with torch 2.9.1 (no num_stages works with this Triton)"
                                    : "install a Triton release known to work with this GPU (no num_stages works with this one)";
    v.lines.push_back("fix: " + v.fix);
  } else if (cap > 0 && v.fla_affected != std::optional<bool>(false)) {
    v.cap = cap;
    v.fix = "gpustack fix triton-stages --max " + std::to_string(cap);
    v.lines.push_back("fix: " + v.fix + " (a shim that caps every Triton launch's num_stages at " +
                      std::to_string(cap) + "; survives reinstalling packages, removable)");
  } else if (!v.avoid.empty() && v.fla_affected == std::optional<bool>(true)) {
    v.fix = "keep FLA off num_stages " + join(hit) + " (its autotuner picks among " + join(v.fla_own_stages) +
            "): report the failing depth to Triton with this report, and pin the last Triton that passes meanwhile";
    v.lines.push_back("fix: " + v.fix);
  } else if (!v.avoid.empty() || cap > 0) {
    v.lines.push_back(std::string("no fix needed for FLA as installed") +
                      (v.fla_affected.has_value() ? "" : " if it does not use num_stages " + join(triton_failures) +
                                                             " (run with --backends fla to see the depths it uses)") +
                      "; kernels of your own should avoid num_stages " + join(v.avoid.empty() ? triton_failures : v.avoid));
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
                        {"passed", b.passed}, {"failed", b.failed}, {"skipped", b.skipped}, {"pattern", to_string(b.pattern)}};
    nlohmann::json how = nlohmann::json::object();
    for (const auto& [stage, text] : b.how) how[std::to_string(stage)] = text;
    if (!how.empty()) e["how"] = how;
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
  j["avoid_num_stages"] = avoid;
  j["fla_own_num_stages"] = fla_own_stages;
  j["fla_affected"] = fla_affected ? nlohmann::json(*fla_affected) : nlohmann::json(nullptr);
  j["backward_refused_known_issue"] = backward_refused;
  j["summary"] = lines;
  return j;
}

}  // namespace gs
