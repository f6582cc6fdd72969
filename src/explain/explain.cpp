// The diagnosis: environment rules over the pasted facts, error signatures over the text, then
// what stays undecided and the one thing that would decide it.
#include "explain/explain.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "container/container_facts.h"
#include "container/container_spec.h"

namespace gs {
namespace {


/// How much a line reads like the error itself, for telling the user what was not recognised
/// (0: not an error line). An exception line ("RuntimeError: ...") or a tool's "x: error: ..."
/// beats a line that only mentions failure, and a sentence about the error ("and I am getting an
/// error:") scores nothing, so the line shown is the one a maintainer would quote.
int error_score(std::string_view l) {
  size_t b = l.find_first_not_of(" \t");
  if (b == std::string_view::npos) return 0;
  std::string_view t = l.substr(b);
  std::string lower(t);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Prose about an error: starts like a sentence of the reporter's, or ends on a colon with
  // nothing of the error itself after the keyword.
  for (std::string_view w : {"i ", "i'm ", "im ", "we ", "my ", "when i ", "after ", "but ", "and ", "so ", "this ", "it "})
    if (lower.rfind(w, 0) == 0 && lower.find("error:") == std::string::npos && lower.find("exception:") == std::string::npos)
      return 0;
  if (lower.back() == ':' && lower.size() < 60 && lower.find("error: ") == std::string::npos) return 0;
  // "ValueError: ...", "torch.OutOfMemoryError: ...", "RuntimeError: CUDA error: ..."
  size_t colon = t.find(": ");
  if (colon != std::string_view::npos && colon > 0 && t.find(' ') >= colon) {
    std::string_view name = t.substr(0, colon);
    if (name.ends_with("Error") || name.ends_with("Exception") || name.ends_with("Interrupt") || name.ends_with("Fault"))
      return 5;
  }
  for (std::string_view w : {"error:", "fatal:", "fatal error", "error ", "error(", "[error", "exception"})
    if (lower.find(w) != std::string::npos) return w == "error:" || w == "fatal:" || w == "fatal error" ? 4 : 3;
  for (std::string_view w : {"segmentation fault", "core dumped", "aborted", "killed", " failed", "failed to", "cannot ",
                             "could not", "unable to", "out of memory", "not found", "no such file", "illegal"})
    if (lower.find(w) != std::string::npos) return 3;
  if (lower.rfind("traceback", 0) == 0) return 1;  // the header: the exception line below says more
  return 0;
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

/// A works/fails contrast the regression reader found without a component it knows
/// (extract_regression.cpp: "worked fine with 2.5.1 ... fails with 2.6.0"). No finding can name a
/// way back for it, yet the same machine working on one version and not the next is the strongest
/// evidence a paste can hold, and pinning the working one is the safe first move: said as undecided.
std::string unnamed_regression(const std::vector<pasted_fact>& facts) {
  std::string good, bad;
  for (const pasted_fact& f : facts) {
    if (f.key == "regression.component") return "";  // GS-REG-201 says it, with the component's way back
    if (f.key == "regression.good") good = f.value;
    if (f.key == "regression.bad") bad = f.value;
  }
  if (good.empty() || bad.empty()) return "";
  return "the paste says it works with " + good + " and fails with " + bad + ": a regression or a changed requirement in " +
         bad + "; pin " + good + " until it is fixed, and report it upstream with both versions";
}

/// The one `docker run` / `podman run` line of the paste (read as `check --container` reads one);
/// none when there is none or several (which one failed is not known).
std::optional<container_info> pasted_run_line(const paste_reading& r) {
  bool any = false;
  for (const std::string& l : r.lines) any = any || l.find(" run ") != std::string::npos;
  if (!any) return std::nullopt;
  std::string joined;
  for (const std::string& l : r.lines) joined.append(l).push_back('\n');
  container_spec spec = read_container_spec(joined, "run");
  if (!spec.error.empty() || spec.containers.size() != 1 || spec.containers.front().image.empty()) return std::nullopt;
  return spec.containers.front();
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
  std::optional<container_info> run_line = pasted_run_line(out.reading);
  if (run_line) {
    for (const auto& [key, value] : fill_image_stack(out.reading.facts, *run_line))
      out.reading.facts_read.push_back({key, value, static_cast<size_t>(run_line->line), "image of the docker run line"});
    std::stable_sort(out.reading.facts_read.begin(), out.reading.facts_read.end(),  // facts_read stays in key order
                     [](const pasted_fact& a, const pasted_fact& b) { return a.key < b.key; });
  }
  const machine_facts& facts = out.reading.facts;

  // Environment rules fire only on what the paste shows (partial facts: unknown is not false);
  // error signatures fire on the text unless the facts rule them out.
  out.findings = kb.evaluate(facts);
  if (run_line) {
    // The run line's own faults that leave the container without a usable GPU (no /dev/kfd, no GPU
    // request, an image CUDA above the driver's: the `fail` findings of `check --container`) are a
    // cause; its lints (/dev/shm, seccomp, groups) are not what a failing report is about.
    machine_facts with = facts;
    with.container = *run_line;
    for (finding& f : kb.evaluate(with))
      if (f.level == severity::fail &&
          std::none_of(out.findings.begin(), out.findings.end(), [&](const finding& g) { return g.id == f.id; }))
        out.findings.push_back(std::move(f));
  }
  for (finding& f : kb.match_error_text(out.reading.error_text, facts)) {
    auto same = std::find_if(out.findings.begin(), out.findings.end(), [&](const finding& g) { return g.id == f.id; });
    if (same == out.findings.end()) {
      out.findings.push_back(std::move(f));
    } else if (same->evidence.find("error text matched") == std::string::npos) {
      same->evidence += "; " + f.evidence.substr(f.evidence.find("error text matched"));
    }
  }
  kb.drop_superseded(out.findings);  // a text finding may supersede an environment one, or back
  kb.drop_last_resorts(out.findings);  // a cause found by either pass outranks a context answer
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
  if (std::string cue = unnamed_regression(out.reading.facts_read); !cue.empty()) out.undecided.push_back(cue);
  for (const finding& f : out.findings)
    for (const std::string& applied : already_applied(f.remediation, facts))
      out.undecided.push_back(f.id + ": its fix (" + applied +
                              ") is already set in the paste; if it still fails, it did not reach the process or the cause is elsewhere");

  int best = 0;
  for (const std::string& l : out.reading.lines)
    if (int score = error_score(l); score > best) {
      best = score;
      out.first_error_line = l.substr(0, 300);
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
