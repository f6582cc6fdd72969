// The diagnosis: environment rules over the pasted facts, error signatures over the text, then
// what stays undecided and the one thing that would decide it.
#include "explain/explain.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace gs {
namespace {


/// Lines that read like an error, for telling the user what was not recognised.
bool error_like(std::string_view l) {
  for (std::string_view w : {"Error:", "Error(", "error:", "ERROR", "Exception", "FAILED", "Segmentation fault",
                             "Aborted", "core dumped", "Killed", " failed", "Traceback"})
    if (l.find(w) != std::string_view::npos) return true;
  return false;
}

/// Fact keys grouped by what the user would paste to show them, most decisive first.
std::string domain_of(std::string_view key) {
  if (key.rfind("gpu.", 0) == 0 || key.rfind("gpus.", 0) == 0) return "gpu";
  if (key.rfind("pkg.", 0) == 0 || key.rfind("torch.", 0) == 0 || key.rfind("python.", 0) == 0) return "packages";
  if (key.rfind("env.", 0) == 0 || key.rfind("alloc.", 0) == 0 || key.rfind("mask.", 0) == 0) return "env";
  if (key.rfind("rocm.", 0) == 0 || key.rfind("hip.", 0) == 0) return "rocm";
  if (key.rfind("nvidia.", 0) == 0 || key.rfind("cuda.", 0) == 0) return "nvidia";
  if (key.rfind("host.", 0) == 0) return "host";
  return "machine";
}

/// The VAR=VALUE settings a fix asks for that the paste shows already set to that value.
std::vector<std::string> already_applied(const std::string& fix, const machine_facts& facts) {
  std::vector<std::string> out;
  std::string code = fix.substr(0, fix.find("  #"));  // the command, not its comment
  for (size_t eq = code.find('='); eq != std::string::npos; eq = code.find('=', eq + 1)) {
    size_t b = eq;
    while (b > 0 && (std::isupper(static_cast<unsigned char>(code[b - 1])) || std::isdigit(static_cast<unsigned char>(code[b - 1])) ||
                     code[b - 1] == '_'))
      --b;
    if (b == eq || (b > 0 && std::isalnum(static_cast<unsigned char>(code[b - 1])))) continue;
    size_t e = code.find_first_of(" ;&|'\"", eq + 1);
    std::string var = code.substr(b, eq - b), value = code.substr(eq + 1, e == std::string::npos ? std::string::npos : e - eq - 1);
    auto it = facts.env.find(var);
    if (!value.empty() && it != facts.env.end() && it->second == value) out.push_back(var + "=" + value);
  }
  return out;
}

}  // namespace

std::string how_to_show(std::string_view key) {
  std::string d = domain_of(key);
  if (d == "gpu") return "which GPU is this? paste `rocminfo` (AMD) or `nvidia-smi` (NVIDIA), or run `gpustack check --json` there";
  if (d == "packages") return "paste `pip list` (or `uv pip list`) from the environment that fails";
  if (d == "env") return "paste `env | grep -E 'HSA|HIP|ROCR|ROCM|CUDA|PYTORCH|TORCH|TRITON|BNB|HF_'`";
  if (d == "rocm") return "paste `ls -d /opt/rocm*` and `amd-smi version` (or run `gpustack check --json`)";
  if (d == "nvidia") return "paste `nvidia-smi`";
  if (d == "host") return "paste `uname -a` and `cat /etc/os-release`";
  return "run `gpustack check --json` on that machine and paste the report";
}

explain_result explain_text(std::string_view text, const knowledge_base& kb) {
  explain_result out;
  out.reading = read_paste(text);
  const machine_facts& facts = out.reading.facts;

  // Environment rules fire only on what the paste shows (partial facts: unknown is not false);
  // error signatures fire on the text unless the facts rule them out.
  out.findings = kb.evaluate(facts);
  for (finding& f : kb.match_error_text(out.reading.error_text, facts)) {
    auto same = std::find_if(out.findings.begin(), out.findings.end(), [&](const finding& g) { return g.id == f.id; });
    if (same == out.findings.end()) {
      out.findings.push_back(std::move(f));
    } else if (same->evidence.find("error text matched") == std::string::npos) {
      same->evidence += "; " + f.evidence.substr(f.evidence.find("error text matched"));
    }
  }
  std::stable_sort(out.findings.begin(), out.findings.end(),
                   [](const finding& a, const finding& b) { return severity_rank(a.level) < severity_rank(b.level); });

  // Undecided: the facts each finding could not check, grouped by what would show them.
  std::map<std::string, std::set<std::string>> missing;  // domain -> fact keys
  std::vector<std::string> order;
  for (const finding& f : out.findings)
    for (const std::string& k : f.unknown_facts) {
      std::string d = domain_of(k);
      if (!missing.count(d)) order.push_back(d);
      missing[d].insert(k);
      std::string sentence = f.id + (f.remediation.empty() ? ": the fix depends on " : ": rests on the error text; not shown: ") + k;
      if (std::find(out.undecided.begin(), out.undecided.end(), sentence) == out.undecided.end()) out.undecided.push_back(sentence);
    }
  for (const std::string& a : out.reading.ambiguities) out.undecided.push_back("the paste says this two ways: " + a);
  for (const finding& f : out.findings)
    for (const std::string& applied : already_applied(f.remediation, facts))
      out.undecided.push_back(f.id + ": its fix (" + applied +
                              ") is already set in the paste; if it still fails, it did not reach the process or the cause is elsewhere");

  for (const std::string& l : out.reading.lines)
    if (error_like(l)) {
      out.first_error_line = l.substr(0, 300);
      break;
    }

  bool gpu_known = !facts.gpus.empty();
  if (!order.empty()) {
    // The domain most findings need; the GPU first when it is among them (it decides most rules).
    std::string pick = missing.count("gpu") ? "gpu" : order.front();
    out.next_step = how_to_show(*missing[pick].begin());
  } else if (out.findings.empty()) {
    out.next_step = out.first_error_line.empty()
                        ? "paste the error itself (the last 30 lines of the traceback or log) and `gpustack check --json` from that machine"
                        : "run `gpustack check --json` on that machine (or paste `python -m torch.utils.collect_env`) so the environment rules see the whole stack";
  } else if (!gpu_known) {
    out.next_step = how_to_show("gpu.arch");
  }
  return out;
}

}  // namespace gs
