// A regression told in prose: the reporter says one version of a component works and another
// fails ("works with b1292, fails with b1293", "worked on kernel 6.8, broke after updating to
// 6.9", "after updating the driver from 566.36 to 572.16 it crashes", a bulleted "- 6.8.12: works
// / - 6.9.3: memory fault"). Both versions of one component, each in a clause that says it works
// or fails, make the facts regression.component/.good/.bad (GS-REG-201 turns them into "stay on
// the good one, report it upstream with both"). A line that only lists versions has no contrast
// and gives nothing.
//
// Only the newer version failing counts: an upgrade that fixed it is no regression. When no
// working version is named but the failure came with an upgrade ("after upgrading vLLM to 0.9.0
// it crashes"), the good one is "the release before" it; an upgrade tried as a fix ("I upgraded
// to 0.9.0 but still the same error") is not one. Components: the system pieces (kernel, driver,
// ROCm, CUDA, Mesa), the apps (Ollama, llama.cpp, KoboldCpp) and the Python packages fine-tuning
// stacks pin (torch, Triton, bitsandbytes, transformers, vLLM, ...); nightlies keep their date.
// llama.cpp's issue form answers it outright: its "First Bad Commit" field. A contrast in a strict
// sentence form with no component it knows gives only regression.good/.bad (explain says it as
// undecided).
//
// Cost: a line is looked at only when it holds a digit and a works/fails word (a few finds);
// the per-clause scan is linear in the line.
#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/text_scan.h"
#include "explain/paste_scan.h"

namespace gs {
namespace {

enum class verdict { none, works, fails };

/// One version named in a clause, with the component it belongs to and what the clause says.
struct version_mention {
  std::string component;  // "kernel", "nvidia-driver", "llama.cpp", ...
  std::string version;
  verdict said = verdict::none;
  bool upgraded_to = false;  // "after upgrading vLLM to 0.9.0 it fails": the failing one, the good one unnamed
};

// A clause that says it was fixed by a version ("downgrading to 566.36 fixed it") names a good
// one even though it mentions the crash; checked before the failure words.
constexpr std::string_view kFixedBy[] = {"fixed", "fixes", "solved", "solves", "resolved", "downgrad", "revert", "roll back",
                                         "rolled back", "rolling back", "went back", "go back", "last good", "last working"};
constexpr std::string_view kFails[] = {"fail", "broke", "crash", "segfault", "error", "doesn't work", "does not work",
                                       "don't work", "didn't work", "not working", "stopped working", "no longer work",
                                       "regress", "hang", "freez", "memory fault", "core dump", "after updat", "after upgrad",
                                       "since updat", "since upgrad", "garbage", "wrong output"};
constexpr std::string_view kWorks[] = {"works", "worked", "working", "runs fine", "ran fine", "fine", " ok", "no issue",
                                       "no problem"};

bool has_any(std::string_view t, std::initializer_list<std::string_view> ws) {
  for (std::string_view w : ws)
    if (t.find(w) != std::string_view::npos) return true;
  return false;
}
template <size_t N>
bool has_any(std::string_view t, const std::string_view (&ws)[N]) {
  for (std::string_view w : ws)
    if (t.find(w) != std::string_view::npos) return true;
  return false;
}

/// A works word as a word of its own: "frameworks", "workspace" and "undefined" hold "works" and
/// "fine" without saying anything works.
bool says_works(std::string_view t) {
  auto letter = [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)) != 0; };
  for (std::string_view w : kWorks)
    for (size_t p = t.find(w); p != std::string_view::npos; p = t.find(w, p + 1)) {
      const size_t e = p + w.size();
      if ((p == 0 || !letter(t[p - 1]) || w.front() == ' ') && (e == t.size() || !letter(t[e]))) return true;
    }
  return false;
}

verdict clause_verdict(std::string_view c) {
  if (has_any(c, kFixedBy) || has_any(c, {"without error", "no error", "without crash", "no crash"})) return verdict::works;
  // "this issue does not occur with JAX v0.5.3", "(not present in v0.5.3)": a denied failure
  if (has_any(c, {"not occur", "n't occur", "not present in", "not happen", "n't happen", "no such issue", "no such error"}))
    return verdict::works;
  if (has_any(c, kFails)) return verdict::fails;
  if (says_works(c)) return verdict::works;
  return verdict::none;
}

/// The component a keyword just before a version names ("kernel 6.9", "driver 572.16", "ROCm
/// 6.3", "llama.cpp b1293", "bitsandbytes==0.45.3"); "b1293" names a llama.cpp/ggml build by
/// itself. The keyword that ends nearest the version wins, the longer one on a tie, so
/// "pytorch-triton-rocm 3.2.0" is Triton, not ROCm; a keyword must start a word ("ctrl" is not
/// trl). Empty: none named.
std::string component_before(std::string_view lower, size_t at) {
  std::string window(lower.substr(at > 28 ? at - 28 : 0, at > 28 ? 28 : at));
  // "jax[cuda12]==0.6.2", "vllm[rocm] 0.9": the version is the package's, not its extra's
  if (size_t tail = window.find_last_not_of(" =<>~!`'\"v"); tail != std::string::npos && window[tail] == ']')
    if (size_t open = window.rfind('[', tail); open != std::string::npos) window.erase(open, tail + 1 - open);
  std::string_view before = window;
  // A package name counts only right before its version ("bitsandbytes==0.45.3",
  // "flash_attn-2.7.4", "triton 3.2.0"): in "the only torch which works for flash_attn is 2.6.0"
  // the version is torch's, and a package's name is too often the sentence's object.
  struct kw { std::string_view word, component; bool tight = false; };
  static constexpr kw kws[] = {
      {"kernel", "kernel"},          {"linux", "kernel"},         {"driver", "driver"},
      {"adrenalin", "driver"},       {"rocm", "rocm"},            {"hip sdk", "rocm"},
      {"cuda", "cuda"},              {"torch", "torch"},          {"pytorch", "torch"},
      {"ollama", "ollama"},          {"vllm", "vllm"},            {"mesa", "mesa"},
      {"llama.cpp", "llama.cpp"},    {"koboldcpp", "koboldcpp"},  {"build", "llama.cpp"},
      // Python packages: their way back is pip's (regressions_prose.toml)
      {"triton", "triton", true},    {"pytorch-triton-rocm", "triton", true}, {"bitsandbytes", "bitsandbytes", true},
      {"transformers", "transformers", true}, {"flash-attn", "flash-attn", true}, {"flash_attn", "flash-attn", true},
      {"flash-attention", "flash-attn", true}, {"xformers", "xformers", true}, {"peft", "peft", true},
      {"trl", "trl", true},          {"accelerate", "accelerate", true}, {"deepspeed", "deepspeed", true},
      {"jax", "jax", true},          {"jaxlib", "jax", true},     {"tensorflow", "tensorflow", true},
      {"diffusers", "diffusers", true}, {"unsloth", "unsloth", true}, {"onnxruntime", "onnxruntime", true},
      {"sglang", "sglang", true},    {"flash-linear-attention", "flash-linear-attention", true},
      {"llama-cpp-python", "llama-cpp-python", true}, {"llama_cpp_python", "llama-cpp-python", true}};
  auto adjacent = [&](size_t end) {
    std::string_view gap = before.substr(end);
    return gap.size() <= 3 && gap.find_first_not_of(" =-_:v`'\"") == std::string_view::npos;
  };
  size_t best_end = 0, best_len = 0;
  std::string_view comp;
  for (const kw& k : kws)
    for (size_t p = before.rfind(k.word); p != std::string_view::npos; p = p ? before.rfind(k.word, p - 1) : std::string_view::npos) {
      if (p > 0 && std::isalnum(static_cast<unsigned char>(before[p - 1]))) continue;  // inside a word
      // nor may a letter follow it, but a plural's s: "rocminfo", "torchvision" name no version of
      // ROCm or torch ("rocm6.2", "drivers 566.36" do)
      if (const size_t after = p + k.word.size();
          after < before.size() && std::isalpha(static_cast<unsigned char>(before[after])) && before[after] != 's')
        continue;
      const size_t end = p + k.word.size();
      if (k.tight && !adjacent(end)) break;
      if (end > best_end || (end == best_end && k.word.size() > best_len)) best_end = end, best_len = k.word.size(), comp = k.component;
      break;
    }
  return std::string(comp);
}

/// Splits a lower-cased line into clauses at sentence and contrast boundaries.
std::vector<std::string_view> clauses(std::string_view l) {
  std::vector<std::string_view> out;
  size_t start = 0;
  auto cut = [&](size_t end, size_t skip) {
    if (end > start) out.push_back(l.substr(start, end - start));
    start = end + skip;
  };
  for (size_t i = 0; i < l.size(); ++i) {
    char c = l[i];
    if (c == '(') {
      // a closing parenthetical is a clause of its own ("... with jax 0.6.1 (not present in 0.5.3)");
      // one inside the sentence ("CUDA 12 llama.cpp (Windows) v2.27.1") is not
      size_t close = l.find(')', i);
      size_t after = close == std::string_view::npos ? close : l.find_first_not_of(' ', close + 1);
      bool closes = close != std::string_view::npos &&
                    (after == std::string_view::npos || std::string_view(",;.!?|").find(l[after]) != std::string_view::npos);
      if (closes) {
        cut(i, 1);
        cut(close, 1);
        i = close;
      }
      continue;
    }
    if (c == ';' || c == ',' || c == '|' || ((c == '.' || c == '!' || c == '?') && (i + 1 == l.size() || l[i + 1] == ' ')))
      cut(i, 1);
    else
      for (std::string_view w : {" but ", " while ", " whereas ", " however ", " and then ", " yet "})
        if (l.compare(i, w.size(), w) == 0) {
          cut(i, w.size());
          i += w.size() - 1;
          break;
        }
  }
  cut(l.size(), 0);
  return out;
}

/// The llama.cpp build numbers a paste names with their "b" ("b8143"), so that a bare number
/// beside them in the reporter's prose ("8142 works") reads as a build too.
using known_builds = std::vector<long>;

/// A bare integer is a build only within 1000 of one the paste names as b<N> (llama.cpp tags a
/// few builds a day: 1000 is months apart); a year, a port or a size is not that close.
bool near_known_build(std::string_view digits, const known_builds& builds) {
  if (digits.size() < 3 || digits.size() > 6) return false;
  const long n = std::atol(std::string(digits).c_str());
  return std::any_of(builds.begin(), builds.end(), [n](long b) { return n != b ? std::labs(n - b) <= 1000 : true; });
}

/// A version token at `p` of a clause: "b1293", "6.9", "572.16", "0.6.2", "6.8.0-49"; not a
/// size ("16gb"), a count ("2 gpus") or a bare integer (unless it is near a build the paste names).
std::optional<std::string> version_at(std::string_view c, size_t p, bool& build, const known_builds& builds) {
  build = false;
  if (p > 0 && (std::isalnum(static_cast<unsigned char>(c[p - 1])) || c[p - 1] == '.' || c[p - 1] == '_')) return std::nullopt;
  size_t q = p;
  if (c[q] == 'b' && q + 1 < c.size() && scan::is_digit(c[q + 1])) {
    build = true;
    ++q;
  } else if (c[q] == 'v' && q + 1 < c.size() && scan::is_digit(c[q + 1])) {
    ++q;
  }
  if (!scan::is_digit(c[q])) return std::nullopt;
  size_t e = q;
  while (e < c.size() && (scan::is_digit(c[e]) || (c[e] == '.' && e + 1 < c.size() && scan::is_digit(c[e + 1])))) ++e;
  // A nightly's date stays with its release: "2.6.0.dev20241112" (torch, Triton and vLLM nightlies)
  // is a version of its own, ordered by its date, not 2.6.0.
  if (c.compare(e, 4, ".dev") == 0 && e + 4 < c.size() && scan::is_digit(c[e + 4]))
    for (e += 4; e < c.size() && scan::is_digit(c[e]);) ++e;
  std::string_view v = c.substr(q, e - q);
  if (e < c.size() && std::isalpha(static_cast<unsigned char>(c[e]))) return std::nullopt;  // 16gb, 7900xtx, 2x
  if (build) return v.size() >= 3 ? std::optional<std::string>("b" + std::string(v)) : std::nullopt;
  if (v.find('.') == std::string_view::npos) {
    if (c[p] != 'v' && near_known_build(v, builds)) {
      build = true;
      return "b" + std::string(v);
    }
    return std::nullopt;
  }
  return std::string(v);
}

/// True when the words just before the version at `p` say the failure began there: "starting
/// with", "starting from", "since", "as of", "beginning with", each optionally followed by
/// "build", "version", "release" or "commit" and the component's name.
bool starts_failing_at(std::string_view c, size_t p) {
  std::string_view before = c.substr(0, p);
  while (!before.empty() && before.back() == ' ') before.remove_suffix(1);
  for (std::string_view noun : {"build", "version", "release", "llama.cpp", "vllm", "ollama", "torch", "rocm", "driver", "kernel"})
    if (before.size() >= noun.size() && before.substr(before.size() - noun.size()) == noun) {
      before.remove_suffix(noun.size());
      while (!before.empty() && before.back() == ' ') before.remove_suffix(1);
      break;
    }
  for (std::string_view w : {"starting with", "starting from", "starting at", "beginning with", "since", "as of"})
    if (before.size() >= w.size() && before.substr(before.size() - w.size()) == w &&
        (before.size() == w.size() || !std::isalnum(static_cast<unsigned char>(before[before.size() - w.size() - 1])))) {
      // "broken since 0.9.0" dates the failure; "using vLLM since 0.9.0 and it crashes" dates the use
      if (w == "since" || w == "as of") return has_any(before.substr(0, before.size() - w.size()), kFails);
      return true;
    }
  return false;
}

/// Every version in a line, each with its component (named just before it, else the line's
/// previous one) and the verdict of its clause. "from A to B" after an update: A works, B fails.
std::vector<version_mention> mentions_in(std::string_view lower, std::string& last_component, const known_builds& builds) {
  std::vector<version_mention> out;
  bool update_line = has_any(lower, {"updat", "upgrad"});
  for (std::string_view c : clauses(lower)) {
    verdict v = clause_verdict(c);
    size_t from = c.find("from "), to = c.find(" to ");
    for (size_t p = 0; p < c.size(); ++p) {
      bool build = false;
      auto ver = version_at(c, p, build, builds);
      if (!ver) continue;
      size_t abs = static_cast<size_t>(c.data() - lower.data()) + p;
      std::string comp = build ? "llama.cpp" : component_before(lower, abs);
      if (comp.empty()) comp = last_component;
      if (comp.empty()) {
        p += ver->size();
        continue;
      }
      last_component = comp;
      verdict said = v;
      // "versions after b10215 just throw errors": the named one is the last that worked
      bool after_it = false;
      for (std::string_view w : {"versions after ", "version after ", "builds after ", "releases after ", "anything after ",
                                 "everything after ", "newer than "})
        after_it = after_it || (p >= w.size() && c.compare(p - w.size(), w.size(), w) == 0);
      // "any release b8391 or later, crashes": the failing range starts there, said in another clause
      size_t end = p + 1;  // just past the token as written ("v0.6.1", "b8391", a bare "8142")
      while (end < c.size() && (scan::is_digit(c[end]) || c[end] == '.')) ++end;
      bool and_later = false;
      for (std::string_view w : {" or later", " or newer", " and later", " and newer", " onwards", " and up", " and above"})
        and_later = and_later || c.compare(end, w.size(), w) == 0;
      if (and_later && v == verdict::none && has_any(lower, kFails)) said = verdict::fails;
      if (after_it && v == verdict::fails) {
        out.push_back({comp, *ver, verdict::works});
        out.push_back({comp, "after " + *ver, verdict::fails});
        p += ver->size();
        continue;
      }
      // "updated the driver from 566.36 to 572.16 and now it crashes": the old one worked
      bool upgraded_to = false;
      // "segfaults starting with build b139", "broken since 0.9.0", "as of b5000 it crashes": the
      // failure began at this one, the one before it is the last good
      if (said == verdict::fails && starts_failing_at(c, p)) upgraded_to = true;
      if (update_line && from != std::string_view::npos && to != std::string_view::npos && from < to)
        said = p < to ? verdict::works : verdict::fails;
      else if (update_line && said == verdict::fails && to != std::string_view::npos && to < p &&
               !has_any(lower, {"still", "same error", "same issue", "same problem", "tried", "didn't help", "did not help",
                                "doesn't help", "does not help", "no luck", "fixed", "solved", "resolved"}))
        upgraded_to = true;  // an upgrade tried as a fix that did not help is no regression
      out.push_back({comp, *ver, said, upgraded_to});
      p += ver->size();
    }
  }
  return out;
}

/// NVIDIA's driver branches are 3xx-9xx.y; AMD's Adrenalin releases yy.m.n with yy 19-40.
std::string driver_kind(const std::string& v) {
  int major = std::atoi(v.c_str());
  if (major >= 300 && major < 1000) return "nvidia-driver";
  if (major >= 19 && major <= 40 && std::count(v.begin(), v.end(), '.') == 2) return "amd-driver";
  return "driver";
}

/// The dotted numbers of a version as written ("b1293" -> 1293, "after b10215" -> 10215 and a
/// bit more, "6.17.9" -> 6,17,9), for telling which of two is the newer.
std::vector<long> version_numbers(std::string_view v) {
  std::vector<long> out;
  bool after = v.rfind("after ", 0) == 0;
  for (size_t i = 0; i < v.size();) {
    if (!scan::is_digit(v[i])) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < v.size() && scan::is_digit(v[e])) ++e;
    out.push_back(std::atol(std::string(v.substr(i, e - i)).c_str()));
    i = e;
  }
  if (after) out.push_back(1);  // "after b10215" is newer than b10215
  return out;
}

/// A heading over a bulleted list that says how the listed versions fare: "Was working with:",
/// "but not with:", "Broken on:". Only a short line that ends in ':' and names no version.
verdict heading_verdict(std::string_view t) {
  if (t.size() > 60 || t.back() != ':' || std::any_of(t.begin(), t.end(), [](char c) { return scan::is_digit(c); }))
    return verdict::none;
  if (has_any(t, kFails) || has_any(t, {"but not", "not with", "not on"})) return verdict::fails;
  if (says_works(t)) return verdict::works;
  return verdict::none;
}

bool bullet(std::string_view t) { return !t.empty() && (t[0] == '-' || t[0] == '*' || t[0] == '+'); }

/// A commit hash token: 7-40 hex digits with at least one letter (a bare number is no hash).
bool is_commit_hash(std::string_view v) {
  return v.size() >= 7 && v.size() <= 40 && std::all_of(v.begin(), v.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }) &&
         std::any_of(v.begin(), v.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

/// A bisection told outside the form: git bisect's own verdict ("706fbd8ab6... is the first bad
/// commit") or the reporter's words for it ("I tracked it down to the commit that broke it:
/// https://github.com/ggml-org/llama.cpp/commit/706fbd8", "bisected to 5f0db95"), the hash on
/// that line or the next. The component is the repository of a commit link when it is one the
/// regression rule knows; else none (explain then says it as undecided).
struct told_bisection {
  std::string commit, component;
  size_t line = 0;
};
/// `lower` is line `i` lower-cased (the caller has it).
std::optional<told_bisection> bisection_in(const paste_scan& s, size_t i, std::string_view lower) {
  if (lower.size() > 400) return std::nullopt;
  const bool git_says = lower.find("is the first bad commit") != std::string::npos;
  const bool told = git_says || has_any(lower, {"bisect", "tracked it down", "tracked down", "narrowed it down", "traced it to",
                                                "commit that broke", "commit which broke", "commit that introduced",
                                                "commit that caused", "offending commit", "culprit commit", "first bad commit"});
  if (!told) return std::nullopt;
  // a denial ("could not bisect", "haven't bisected") names no commit
  if (has_any(lower, {"not bisect", "n't bisect", "unable to bisect", "no time to bisect", "will bisect", "try to bisect", "can bisect"}))
    return std::nullopt;
  static const std::regex commit_link(R"(github\.com/([\w.-]+)/([\w.-]+)/commit/([0-9a-f]{7,40}))");
  static const std::regex hash_word(R"((?:^|[\s`(:])([0-9a-f]{7,40})(?=$|[\s`).,:]))");
  for (size_t j = i; j < s.lines.size() && j <= i + 1; ++j) {
    const std::string l = j == i ? std::string(lower) : lower_copy(s.lines[j]);
    std::smatch m;
    if (std::regex_search(l, m, commit_link) && is_commit_hash(m[3].str())) {
      const std::string repo = m[2].str();
      std::string comp;
      if (repo == "llama.cpp" || repo == "ggml" || repo == "whisper.cpp") comp = "llama.cpp";
      else if (repo == "vllm" || repo == "ollama" || repo == "koboldcpp" || repo == "triton" || repo == "bitsandbytes" ||
               repo == "transformers" || repo == "xformers" || repo == "peft" || repo == "trl" || repo == "accelerate" ||
               repo == "deepspeed" || repo == "diffusers" || repo == "sglang")
        comp = repo;
      else if (repo == "pytorch") comp = "torch";
      else if (repo == "mesa") comp = "mesa";
      return told_bisection{m[3].str().substr(0, 12), comp, j};
    }
    // a bare hash counts on git's own line, or on the told line and the next
    if (std::regex_search(l, m, hash_word) && is_commit_hash(m[1].str())) return told_bisection{m[1].str().substr(0, 12), "", j};
    if (git_says) break;
  }
  return std::nullopt;
}

/// llama.cpp's (and ggml's) issue form asks for the "First Bad Commit" (issue_form.cpp labels the
/// answer): a commit hash or a build number there is the reporter's bisection, the one before it
/// the last good; "_No response_", "n/a" or prose give none. `t` is the trimmed, lower-cased line.
struct first_bad {
  std::string value;  // "5f0db95", "b4501"; empty: none
  bool build = false;
};
first_bad first_bad_commit(std::string_view t) {
  constexpr std::string_view kLabel = "first bad commit:";
  if (t.rfind(kLabel, 0) != 0) return {};
  std::string v = trim_copy(t.substr(kLabel.size()));
  while (!v.empty() && (v.back() == '`' || v.back() == '.')) v.pop_back();
  while (!v.empty() && v.front() == '`') v.erase(0, 1);
  const bool hash = is_commit_hash(v);
  const bool build = v.size() >= 4 && v[0] == 'b' && std::all_of(v.begin() + 1, v.end(), [](char c) { return scan::is_digit(c); });
  if (!hash && !build) return {};
  return {v, !hash};  // a hash spelled like a build ("b1234567") stays a commit
}

/// An empty `component`: a contrast of something the rule does not know, said as undecided.
void propose_regression(paste_scan& s, const std::string& component, const std::string& good, size_t good_line,
                        const std::string& bad, size_t bad_line) {
  if (!component.empty()) s.propose("regression.component", component, bad_line, "text", weight::prose);
  s.propose("regression.good", good, good_line, "text", weight::prose);
  s.propose("regression.bad", bad, bad_line, "text", weight::prose);
}


/// A contrast told without a component the keywords know ("It worked fine with 2.5.1", "fails
/// with 2.6.0", "There is no such issue in KoboldCPP 1.91"): the strict sentence forms only, each
/// read as the (up to two) words before the version and the version. Proposed as
/// regression.good/.bad without a component: explain says it as undecided, no rule acts on it.
void scan_unnamed_contrast(paste_scan& s) {
  // Both word orders: "worked fine with HIP SDK 6.4.2" and "with HIP SDK 6.4.2 it works".
  static constexpr const char* kVersion = R"(((?:[A-Za-z][\w.+-]* ){0,2})v?(\d+\.\d+(?:\.\d+)*))";
  static constexpr const char* kSubject = R"(,? (?:it |this |that |everything |all |the app |the model )?)";
  static const std::regex worked_then_version(
      std::string(R"((?:worked|works|working|ran|runs)(?: fine| well| perfectly| ok| great)? (?:with|on|using|under) )") + kVersion,
      std::regex::icase);
  static const std::regex version_then_worked(
      std::string(R"((?:with|on|using|under) )") + kVersion + kSubject + R"((?:works|worked|ran|runs|was fine|is fine))",
      std::regex::icase);
  static const std::regex failed_then_version(
      std::string(R"((?:fails?|failing|broke|broken|stopped working|(?:doesn'?t|does not|won'?t) work|crash(?:es)?) )"
                  R"((?:with|on|after|since|from) (?:updating to |upgrading to |the update to )?)") + kVersion,
      std::regex::icase);
  static const std::regex version_then_failed(
      std::string(R"((?:with|on|after updating to|after upgrading to|since) )") + kVersion + kSubject +
          R"((?:fails|crashes|breaks|broke|doesn'?t work|does not work|stopped working|no longer works))",
      std::regex::icase);
  // "There is no such issue in KoboldCPP 1.91", "does not happen with 0.5.7"; "any model in 1.92.1 ... ends with an error".
  static const std::regex no_issue_then_version(
      std::string(R"((?:no such (?:issue|problem|error|crash)|(?:does not|doesn'?t|did not|didn'?t) happen|was fine|no problems?) )"
                  R"((?:in|on|with|using|under) )") + kVersion,
      std::regex::icase);
  static const std::regex version_then_error(
      std::string(R"(\bin )") + kVersion + R"([^.]{0,80}? (?:ends with an error|errors out|fails|crashes|breaks))",
      std::regex::icase);
  auto read = [](const std::string& l, std::initializer_list<const std::regex*> res) {
    std::smatch m;
    for (const std::regex* re : res)
      if (std::regex_search(l, m, *re)) return m[1].str() + m[2].str();
    return std::string();
  };
  std::string good, bad;
  size_t good_line = 0, bad_line = 0;
  for (size_t i = 0; i < s.lines.size(); ++i) {
    const std::string& l = s.lines[i];
    if (l.size() > 400 || (l.find("ork") == std::string::npos && l.find("rok") == std::string::npos &&
                           l.find("ail") == std::string::npos && l.find("ran ") == std::string::npos &&
                           l.find("runs ") == std::string::npos && l.find("rash") == std::string::npos &&
                           l.find("fine") == std::string::npos && l.find("reak") == std::string::npos &&
                           l.find("ssue") == std::string::npos && l.find("appen") == std::string::npos &&
                           l.find("rror") == std::string::npos))
      continue;  // cheap keyword gate: a 1 MB log must not pay for six regexes a line
    if (good.empty() && !(good = read(l, {&worked_then_version, &version_then_worked, &no_issue_then_version})).empty()) good_line = i;
    if (bad.empty() && !(bad = read(l, {&failed_then_version, &version_then_failed, &version_then_error})).empty()) bad_line = i;
  }
  if (good.empty() || bad.empty() || good == bad) return;
  s.propose("regression.good", good, good_line, "text", weight::prose);
  s.propose("regression.bad", bad, bad_line, "text", weight::prose);
}

}  // namespace

/// The b<N> builds the paste names anywhere ("b8143" in a title), for bare numbers beside them.
known_builds builds_named(const paste_scan& s) {
  known_builds out;
  for (const std::string& l : s.lines) {
    if (l.size() > 600) continue;
    for (size_t p = l.find('b'); p != std::string::npos && out.size() < 16; p = l.find('b', p + 1)) {
      if (p > 0 && (std::isalnum(static_cast<unsigned char>(l[p - 1])) || l[p - 1] == '_' || l[p - 1] == '/' || l[p - 1] == '-')) continue;
      size_t e = p + 1;
      while (e < l.size() && scan::is_digit(l[e])) ++e;
      if (e - p - 1 < 3 || e - p - 1 > 6 || (e < l.size() && (std::isalnum(static_cast<unsigned char>(l[e])) || l[e] == '.'))) continue;
      out.push_back(std::atol(l.substr(p + 1, e - p - 1).c_str()));
    }
  }
  return out;
}

void scan_regressions(paste_scan& s) {
  const known_builds builds = builds_named(s);
  std::vector<version_mention> all;
  std::vector<size_t> line_of;
  verdict heading = verdict::none;  // of the bulleted list under way
  first_bad bisected;  // llama.cpp's "First Bad Commit" answer, if any
  size_t bisected_line = 0;
  std::optional<told_bisection> told;  // a bisection told in prose or by git bisect
  for (size_t i = 0; i < s.lines.size(); ++i) {
    const std::string& l = s.lines[i];
    if (l.size() > 600) continue;
    std::string lower = lower_copy(l);
    std::string t = trim_copy(lower);
    if (bisected.value.empty() && !(bisected = first_bad_commit(t)).value.empty()) bisected_line = i;
    if (!told && bisected.value.empty()) told = bisection_in(s, i, lower);
    if (verdict h = t.empty() ? verdict::none : heading_verdict(t); h != verdict::none) {
      heading = h;
      continue;
    }
    if (!bullet(t)) heading = verdict::none;
    if (std::none_of(l.begin(), l.end(), [](char c) { return scan::is_digit(c); })) continue;
    // A log or tool line ("[2025-01-01 ...] error", "  File ...") is not the reporter's contrast.
    if (t.empty() || t[0] == '[' || t[0] == '#' || t.rfind("file ", 0) == 0 || t.find("error:") == 0) continue;
    std::string last;
    for (version_mention& m : mentions_in(lower, last, builds)) {
      if (m.said == verdict::none) m.said = heading;
      if (m.said == verdict::none) continue;
      if (m.component == "driver") m.component = driver_kind(m.version);
      all.push_back(m);
      line_of.push_back(i);
    }
  }
  // The first failing version, against the last working one of its component before it (the
  // newest good release the reporter names), else any working one.
  for (size_t b = 0; b < all.size(); ++b) {
    if (all[b].said != verdict::fails) continue;
    size_t good = all.size();
    for (size_t a = 0; a < all.size(); ++a)
      // a regression is the newer one failing; "fails on 6.2, works on 6.3" is a fix, not this
      if (all[a].said == verdict::works && all[a].component == all[b].component && all[a].version != all[b].version &&
          version_numbers(all[a].version) < version_numbers(all[b].version) &&
          (good == all.size() || (a < b && (good > b || a > good))))
        good = a;
    if (good == all.size()) continue;
    propose_regression(s, all[b].component, all[good].version, line_of[good], all[b].version, line_of[b]);
    return;
  }
  // No working version named, but the reporter says the failure came with an upgrade to this one.
  for (size_t b = 0; b < all.size(); ++b)
    if (all[b].upgraded_to) {
      const bool is_build = all[b].version.size() > 1 && all[b].version[0] == 'b' && scan::is_digit(all[b].version[1]);
      propose_regression(s, all[b].component, (is_build ? "the build before " : "the release before ") + all[b].version, line_of[b],
                         all[b].version, line_of[b]);
      return;
    }
  // The reporter's bisection from llama.cpp's form, read in the pass above.
  if (!bisected.value.empty()) {
    propose_regression(s, "llama.cpp", (bisected.build ? "the build before " : "the commit before ") + bisected.value,
                       bisected_line, bisected.value, bisected_line);
    return;
  }
  if (told) {  // a commit of a repository the rule does not know has no component: said as undecided
    propose_regression(s, told->component, "the commit before " + told->commit, told->line, told->commit, told->line);
    return;
  }
  scan_unnamed_contrast(s);
}

}  // namespace gs
