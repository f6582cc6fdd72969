// code_judge.h.
#include "inspect/code_judge.h"

#include <algorithm>
#include <set>

namespace gs {
namespace {

/// "sm_90a" -> {90, "a"}; sm 0 when not a number.
std::pair<int, std::string> split_sm(std::string_view n) {
  std::string variant;
  while (!n.empty() && (n.back() == 'a' || n.back() == 'f')) {
    variant.insert(variant.begin(), n.back());
    n.remove_suffix(1);
  }
  int v = 0;
  for (char c : n) {
    if (c < '0' || c > '9' || v > 100000) return {0, ""};
    v = v * 10 + (c - '0');
  }
  return {v, variant};
}

int code_rank(const std::string& c) {
  if (c.starts_with("sm_")) return 0;
  if (c.starts_with("compute_")) return 1;
  return 2;
}

}  // namespace

const char* verdict_name(code_verdict v) {
  switch (v) {
    case code_verdict::runs: return "runs";
    case code_verdict::jit: return "jit";
    case code_verdict::partial: return "partial";
    case code_verdict::none: return "none";
    case code_verdict::no_gpu_code: return "no-gpu-code";
    case code_verdict::unknown: return "unknown";
    case code_verdict::error: return "error";
  }
  return "unknown";
}

bool code_runs(const gpu_target& gpu, const std::string& code, bool* jit) {
  if (jit) *jit = false;
  if (code.starts_with("sm_")) {
    auto [sm, variant] = split_sm(std::string_view(code).substr(3));
    return nvidia_code_runs(gpu, false, sm, variant, jit);
  }
  if (code.starts_with("compute_")) {
    auto [sm, variant] = split_sm(std::string_view(code).substr(8));
    return nvidia_code_runs(gpu, true, sm, variant, jit);
  }
  if (code.starts_with("gfx")) return amd_code_runs(gpu, code);
  return false;
}

std::vector<std::string> all_codes(const device_code_library& lib) {
  std::set<std::string> s;
  for (const device_code_unit& u : lib.units) s.insert(u.codes.begin(), u.codes.end());
  std::vector<std::string> v(s.begin(), s.end());
  std::stable_sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
    if (code_rank(a) != code_rank(b)) return code_rank(a) < code_rank(b);
    auto [sa, va] = split_sm(std::string_view(a).substr(a.find('_') == std::string::npos ? 0 : a.find('_') + 1));
    auto [sb, vb] = split_sm(std::string_view(b).substr(b.find('_') == std::string::npos ? 0 : b.find('_') + 1));
    if (code_rank(a) < 2 && sa != sb) return sa < sb;
    return a < b;
  });
  return v;
}

code_judgement judge_library(const device_code_library& lib, const gpu_target& gpu) {
  code_judgement j;
  std::set<std::string> runnable, missing_examples;
  for (const device_code_unit& u : lib.units) {
    j.units += u.count;
    bool native = false, via_jit = false;
    for (const std::string& c : u.codes) {
      bool jit = false;
      if (!code_runs(gpu, c, &jit)) continue;
      runnable.insert(c);
      (jit ? via_jit : native) = true;
    }
    if (native) j.units_native += u.count;
    else if (via_jit) j.units_jit += u.count;
    else if (missing_examples.size() < 4) missing_examples.insert(u.codes.begin(), u.codes.end());
  }
  j.runnable.assign(runnable.begin(), runnable.end());
  if (gpu.vendor.empty()) {
    j.verdict = lib.units.empty() ? (lib.error.empty() ? code_verdict::no_gpu_code : code_verdict::error) : code_verdict::unknown;
    return j;
  }
  if (j.units == 0) {
    j.verdict = lib.error.empty() ? code_verdict::no_gpu_code : code_verdict::error;
    j.detail = lib.error;
    return j;
  }
  int ok = j.units_native + j.units_jit;
  if (ok == 0) {
    j.verdict = code_verdict::none;
    std::string have;
    for (const std::string& c : all_codes(lib)) have += (have.empty() ? "" : " ") + c;
    j.detail = "nothing for " + gpu.text + " (has " + have + ")";
  } else if (ok < j.units) {
    j.verdict = code_verdict::partial;
    std::string ex;
    for (const std::string& c : missing_examples) ex += (ex.empty() ? "" : " ") + c;
    j.detail = std::to_string(j.units - ok) + " of " + std::to_string(j.units) + " code units carry nothing for " +
               gpu.text + " (they hold " + ex + ")";
  } else if (j.units_jit > 0) {
    j.verdict = code_verdict::jit;
    j.detail = std::to_string(j.units_jit) + " of " + std::to_string(j.units) + " code units run only through the PTX JIT";
  } else {
    j.verdict = code_verdict::runs;
  }
  return j;
}

}  // namespace gs
