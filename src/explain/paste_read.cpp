// read_paste: normalise the text, let each extractor propose facts, keep the best proposal per
// fact, and build the partial machine_facts the rules see.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "detect/gpu_tables.h"
#include "core/text_scan.h"
#include "explain/gpu_names.h"
#include "explain/paste_scan.h"
#include "explain/solved_prose.h"
#include "python/pep503.h"

namespace gs {
namespace {

/// ESC [ ... final-byte: colour codes that terminals and CI logs leave in pasted text.
std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      size_t j = i + 2;
      while (j < s.size() && !(s[j] >= '@' && s[j] <= '~')) ++j;
      i = j;
      continue;
    }
    out += s[i];
  }
  return out;
}

/// Only the tags GitHub issue bodies use for layout; "<module>" in a traceback is text.
std::string strip_layout_tags(std::string s) {
  static constexpr std::string_view tags[] = {"details", "summary", "br", "pre", "code", "p", "b", "sub", "sup", "kbd"};
  for (size_t pos = s.find('<'); pos != std::string::npos; pos = s.find('<', pos)) {
    size_t close = s.find('>', pos);
    if (close == std::string::npos) break;
    std::string inner = lower_copy(s.substr(pos + 1, close - pos - 1));
    if (!inner.empty() && inner[0] == '/') inner.erase(0, 1);
    while (!inner.empty() && (inner.back() == '/' || inner.back() == ' ')) inner.pop_back();
    std::string name = inner.substr(0, inner.find(' '));
    if (std::find(std::begin(tags), std::end(tags), name) != std::end(tags)) {
      s.erase(pos, close - pos + 1);
    } else {
      pos = close;
    }
  }
  return s;
}

std::string decode_entities(std::string s) {
  static constexpr std::pair<std::string_view, std::string_view> ents[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&#x27;", "'"}, {"&nbsp;", " "}, {"&amp;", "&"}};
  if (s.find('&') == std::string::npos) return s;
  for (auto [from, to] : ents)
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

/// "- **Kernel:** 6.17.0" (an issue form's bold labels) -> "- Kernel: 6.17.0"; "**kwargs" in code stays.
std::string strip_bold_labels(std::string s) {
  size_t b = s.find_first_not_of(" -*");
  if (b == std::string::npos || s.find("**") > b) return s;
  for (size_t p = s.find("**"); p != std::string::npos; p = s.find("**", p)) s.erase(p, 2);
  return s;
}

/// "root **148** 236" (a value bolded in an issue's prose or a pasted listing) -> "root 148 236": a
/// run with no space between two "**", with no letter or digit outside them, loses the markers.
/// "**kwargs", "2**8" and "a ** b" stay as they are.
std::string strip_bold_words(std::string s) {
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t p = s.find("**"); p != std::string::npos; p = s.find("**", p)) {
    size_t close = s.find("**", p + 2);
    if (close == std::string::npos) break;
    std::string_view inner(s.data() + p + 2, close - p - 2);
    bool plain = !inner.empty() && inner.find(' ') == std::string_view::npos && inner.find('*') == std::string_view::npos;
    bool fenced = (p == 0 || !word_char(s[p - 1])) && (close + 2 >= s.size() || !word_char(s[close + 2]));
    if (plain && fenced) {
      s.erase(close, 2);
      s.erase(p, 2);
      p = close - 2;
    } else {
      p += 2;
    }
  }
  return s;
}

/// A fence line opens or closes a block ("```", "```python"); "```text```" on one line is inline
/// code whose text stays (strip_inline_fences).
bool is_fence(std::string_view t) {
  if (t.rfind("```", 0) != 0 && t.rfind("~~~", 0) != 0) return false;
  return t.find(t.substr(0, 3), 3) == std::string_view::npos;
}

/// "[536.23](https://us.download.nvidia.com/...)" -> "536.23": a Markdown link reads as its text
/// (keylase/nvidia-patch#666: "- Nvidia driver version: [536.23](https://...)"). Only links to
/// a web address: "[0](...)" in a traceback's list repr stays.
std::string strip_markdown_links(std::string s) {
  for (size_t p = s.find("](http"); p != std::string::npos; p = s.find("](http", p)) {
    size_t open = s.rfind('[', p), close = s.find(')', p);
    if (open == std::string::npos || close == std::string::npos || s.find(']', open) != p) {
      p += 6;
      continue;
    }
    s.erase(p, close - p + 1);  // "](url)"
    s.erase(open, 1);           // "["
    p = open;
  }
  return s;
}

std::string strip_inline_fences(std::string s) {
  for (size_t p = s.find("```"); p != std::string::npos; p = s.find("```", p)) s.erase(p, 3);
  return s;
}

/// "[   12.345678] amdgpu ..." (dmesg) or "... kernel: ..." (journalctl).
bool kernel_log_line(std::string_view t) {
  size_t b = t.find_first_not_of(' ');
  if (b == std::string_view::npos) return false;
  t.remove_prefix(b);
  if (t.size() > 4 && t[0] == '[') {
    size_t close = t.find("] ");
    // dmesg -T: "[Thu Dec  3 12:00:01 2026] amdgpu ..."
    static constexpr std::string_view days[] = {"Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun "};
    for (std::string_view d : days)
      if (t.substr(1, 4) == d && close != std::string_view::npos && close > 20) return true;
    size_t digit = t.find_first_not_of(' ', 1);
    return close != std::string_view::npos && digit < close && std::isdigit(static_cast<unsigned char>(t[digit])) &&
           t.substr(1, close - 1).find('.') != std::string_view::npos;
  }
  return t.find(" kernel: ") != std::string_view::npos;
}

void detect_text_kinds(paste_scan& s) {
  for (const std::string& l : s.lines) {
    if (l.find("Traceback (most recent call last)") != std::string::npos) s.kind("traceback");
    if (kernel_log_line(l)) s.kind("dmesg");
  }
}

/// "2.11.0+cu130" and "2.11.0" (collect_env's [pip3] line) are one reading, not two.
bool same_reading(const std::string& a, const std::string& b) {
  std::string x = a.substr(0, a.find('+')), y = b.substr(0, b.find('+'));
  return x == y;
}

/// Inside WSL the OS facts are the Linux distribution's, as live detection reads them from
/// os-release there; the Windows below it ("Microsoft Windows [Version 10.0.22000.778]" in WSL's
/// issue form) is not host.os_*. So where the machine's own lines say WSL (its kernel, its
/// /usr/lib/wsl, dxg, WSL's form: proposals from "wsl", not "WSL2" in a sentence), a host.os_id
/// of "windows" and the host.os_version read on the same line are set aside.
void windows_below_wsl(paste_scan& s) {
  bool wsl = false;
  for (const pasted_fact& p : s.facts) wsl = wsl || (p.key == "host.container_kind" && p.value == "wsl" && p.from == "wsl");
  if (!wsl) return;
  std::set<size_t> windows_lines;
  for (const pasted_fact& p : s.facts)
    if (p.key == "host.os_id" && p.value == "windows") windows_lines.insert(p.line);
  size_t kept = 0;
  for (size_t i = 0; i < s.facts.size(); ++i) {
    if ((s.facts[i].key == "host.os_id" || s.facts[i].key == "host.os_version") && windows_lines.count(s.facts[i].line)) continue;
    if (kept != i) {  // a self-move would empty the strings
      s.facts[kept] = std::move(s.facts[i]);
      s.weights[kept] = s.weights[i];
    }
    ++kept;
  }
  s.facts.resize(kept);
  s.weights.resize(kept);
}

/// "7.0.9" and "7.0.9-1-cachyos", "6.2" and "6.2.4": the longer says the same and more.
bool extends(const std::string& longer, const std::string& shorter) {
  return longer.size() > shorter.size() && longer.compare(0, shorter.size(), shorter) == 0 &&
         (longer[shorter.size()] == '.' || longer[shorter.size()] == '-');
}

void assemble(paste_scan& s, paste_reading& out) {
  windows_below_wsl(s);
  machine_facts& f = out.facts;
  f.coverage.partial = true;
  f.coverage.env_complete = s.env_dump;
  f.coverage.packages_complete = s.package_list;
  f.coverage.gpus_complete = s.gpu_list;
  f.coverage.devices_listed = !s.devices.empty();
  f.access = s.devices;
  for (const device_access& d : s.devices)
    out.facts_read.push_back({"dev.group", d.path + ": " + d.group + (d.error.empty() ? "" : ", " + d.error), 0, "ls -l"});

  // One winner per key: the heaviest, the first on a tie. Different values at the winning
  // weight are an ambiguity the user is told about, not silently resolved.
  // Two passes over the proposals, not one per key: a long log can propose thousands.
  std::map<std::string, size_t> winner;
  for (size_t i = 0; i < s.facts.size(); ++i) {
    auto [it, fresh] = winner.emplace(s.facts[i].key, i);
    // At equal weight a reading that extends the one held wins: the kernel form answer "7.0.9" and
    // the build log's "7.0.9-1-cachyos" are one kernel, told more exactly by the second.
    if (!fresh && (s.weights[i] > s.weights[it->second] ||
                   (s.weights[i] == s.weights[it->second] && extends(s.facts[i].value, s.facts[it->second].value))))
      it->second = i;
  }
  std::map<std::string, size_t> conflict;  // key -> the first other reading at the winner's weight
  for (size_t j = 0; j < s.facts.size(); ++j) {
    size_t i = winner.at(s.facts[j].key);
    if (j != i && s.weights[j] == s.weights[i] && !same_reading(s.facts[j].value, s.facts[i].value) &&
        !extends(s.facts[i].value, s.facts[j].value) &&
        s.facts[j].key.rfind("env.", 0) != 0)
      conflict.emplace(s.facts[j].key, j);
  }
  for (const auto& [key, i] : winner) {
    const pasted_fact& p = s.facts[i];
    if (auto c = conflict.find(key); c != conflict.end()) {
      const pasted_fact& q = s.facts[c->second];
      out.ambiguities.push_back(key + ": " + p.value + " (line " + std::to_string(p.line) + ") or " + q.value + " (line " +
                                std::to_string(q.line) + ")");
    }
    out.facts_read.push_back(p);
    if (key == "torch.hip") out.facts_read.back().value = hip_major_minor(p.value);
    const std::string& v = p.value;
    if (key.rfind("pkg.", 0) == 0) {
      python_package pkg;
      pkg.name = key.substr(4);
      pkg.version = v;
      f.python.packages[pep503_normalize(pkg.name)] = pkg;
      f.python.found = true;
    } else if (key.rfind("env.", 0) == 0) {
      f.env[key.substr(4)] = v;
    } else if (key == "torch.hip") {
      f.python.torch_hip = hip_major_minor(v);
    } else if (key == "torch.cuda") {
      f.python.torch_cuda = v;
    } else if (key == "rocm.version") {
      f.stack.rocm_version = v;
    } else if (key == "nvidia.driver") {
      f.stack.nvidia_driver = v;
    } else if (key == "cuda.driver_api") {
      f.stack.cuda_driver_api = v;
    } else if (key == "cuda.toolkit") {
      f.stack.cuda_toolkit_version = v;
    } else if (key == "host.os_id") {
      f.host.os_id = v;
    } else if (key == "host.os_version") {
      f.host.os_version = v;
    } else if (key == "host.os_pretty") {
      f.host.os_pretty = v;
    } else if (key == "host.kernel") {
      f.host.kernel = v;
    } else if (key == "host.machine") {
      f.host.machine = v;
    } else if (key == "host.container_kind") {
      f.host.container_kind = v;
      f.host.in_container = true;
    } else if (key == "host.ram_bytes") {
      f.host.ram_total_bytes = std::strtoull(v.c_str(), nullptr, 10);
    } else if (key.rfind("app.", 0) == 0) {
      f.apps[key.substr(4)] = v;
    } else if (key == "regression.component") {
      f.regression.component = v;
    } else if (key == "regression.good") {
      f.regression.good = v;
    } else if (key == "regression.bad") {
      f.regression.bad = v;
    } else if (key == "python.version") {
      f.python.version = v;
      f.python.found = true;
    }
  }
  f.python.torch_build_known = s.torch_build_seen;
  if (f.python.found) f.python.how_found = "paste";

  // GPUs: a tool's list (rocminfo, nvidia-smi, collect_env) is the machine's; so are the cards
  // a labelled line names and those the runtime names in its errors ("for GPU arch : gfx1036":
  // an iGPU beside the card the user named is the cause, not a contradiction). Names in prose
  // count only when they agree on one arch.
  int top = 0;
  for (const proposed_gpu& g : s.gpus) top = std::max(top, g.weight);
  std::vector<proposed_gpu> chosen;
  for (const proposed_gpu& g : s.gpus)
    if (g.weight == top) chosen.push_back(g);
  if (top < weight::tool_output) {
    // Mentions, not a list: the same GPU named on several lines is one GPU.
    std::vector<proposed_gpu> distinct;
    for (const proposed_gpu& g : chosen)
      if (std::none_of(distinct.begin(), distinct.end(), [&](const proposed_gpu& d) { return d.arch == g.arch; }))
        distinct.push_back(g);
    if (distinct.size() > 1 && top <= weight::prose) {
      std::string names;
      for (const proposed_gpu& d : distinct) names += (names.empty() ? "" : ", ") + d.name + " (" + d.arch + ")";
      out.ambiguities.push_back("GPUs named: " + names);
      distinct.clear();
    }
    chosen = distinct;
  }
  const gpu_tables& tables = builtin_gpu_tables();
  for (const proposed_gpu& g : chosen) {
    gpu_info gi;
    gi.arch = g.arch;
    gi.vendor = std::string(vendor_of_arch(g.arch));
    gi.name = g.name;
    gi.source = "paste:" + g.from;
    if (auto c = s.cards.find(g.line); c != s.cards.end() && g.weight == weight::tool_output) gi.card = c->second;
    if (gi.vendor == "amd") {
      if (const arch_family* fam = find_amd_family(tables, g.arch)) {
        gi.family = fam->family;
        gi.wave_size = fam->wave_size;
      }
    } else if (gi.vendor == "nvidia" && g.arch.size() > 4) {
      std::string digits = g.arch.substr(3);  // "sm_120" -> "12.0", "sm_89" -> "8.9"
      gi.compute_capability = digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
      gi.wave_size = 32;
    }
    // The card state a tool's row showed is listed with the GPU it belongs to.
    const card_state& c = gi.card;
    out.facts_read.push_back({"gpu.arch", g.arch, g.line + 1, g.from});
    if (!c.compute_mode.empty()) out.facts_read.push_back({"gpu.card_compute_mode", c.compute_mode, g.line + 1, g.from});
    if (c.persistence_mode) out.facts_read.push_back({"gpu.persistence_mode", *c.persistence_mode ? "true" : "false", g.line + 1, g.from});
    if (c.mig_enabled) out.facts_read.push_back({"gpu.mig_enabled", *c.mig_enabled ? "true" : "false", g.line + 1, g.from});
    if (c.ecc_uncorrected)
      out.facts_read.push_back({"gpu.ecc_uncorrected", std::to_string(static_cast<long long>(*c.ecc_uncorrected)), g.line + 1, g.from});
    f.gpus.push_back(std::move(gi));
  }
}

}  // namespace

std::string trim_copy(std::string_view s) { return std::string(scan::trim(s)); }

std::string lower_copy(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::string> cuda_api_integer(std::string_view v) {
  std::string t = trim_copy(v);
  if (t.size() < 4 || t.size() > 6 || !std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  const int n = std::stoi(t);  // major * 1000 + minor * 10
  return std::to_string(n / 1000) + "." + std::to_string(n % 1000 / 10);
}

std::string cuda_of_tag_digits(std::string_view digits) {
  return std::string(digits.substr(0, digits.size() - 1)) + "." + std::string(digits.substr(digits.size() - 1));
}

std::string hip_major_minor(std::string_view v) {
  size_t dot = v.find('.');
  if (dot == std::string_view::npos) return std::string(v);
  size_t end = dot + 1;
  while (end < v.size() && std::isdigit(static_cast<unsigned char>(v[end]))) ++end;
  return std::string(v.substr(0, end));
}

std::string unpad_label(const std::string& l) {
  size_t colon = l.find(" :");
  if (colon == std::string::npos || colon == 0 || l.find(':') < colon) return l;
  size_t b = colon;
  while (b > 0 && l[b - 1] == ' ') --b;
  return l.substr(0, b) + ":" + l.substr(colon + 2);
}

std::optional<std::string> after_label(std::string_view line, std::string_view label) {
  size_t b = line.find_first_not_of(" \t");
  // An issue form's bullet ("- CUDA Version: 12.4") is layout, not part of the label.
  if (b != std::string_view::npos && b + 2 < line.size() && (line[b] == '-' || line[b] == '*') && line[b + 1] == ' ' &&
      !(label.size() >= 2 && label[0] == line[b] && label[1] == ' '))
    b = line.find_first_not_of(" \t", b + 2);
  if (b == std::string_view::npos || line.size() - b < label.size()) return std::nullopt;
  for (size_t i = 0; i < label.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[b + i])) != std::tolower(static_cast<unsigned char>(label[i])))
      return std::nullopt;
  return trim_copy(line.substr(b + label.size()));
}

std::optional<std::string> first_version(std::string_view t, size_t from) {
  for (size_t i = from; i < t.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(t[i]))) continue;
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(t[i - 1])) || t[i - 1] == '.' || t[i - 1] == '_')) continue;
    size_t e = i;
    bool dot = false;
    while (e < t.size() && (std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '.' || t[e] == '+' || t[e] == '-' || t[e] == '_')) {
      if (t[e] == '.' && e + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[e + 1]))) dot = true;
      ++e;
    }
    std::string v(t.substr(i, e - i));
    while (!v.empty() && (v.back() == '.' || v.back() == '-' || v.back() == '+' || v.back() == '_')) v.pop_back();
    if (dot) return v;
    i = e;
  }
  return std::nullopt;
}

void note_torch_build(paste_scan& s, std::string_view v, size_t index, std::string_view from, int w) {
  w -= 1;  // read off a version label: an explicit "ROCM used to build PyTorch" line says more
  size_t plus = v.find('+');
  if (plus == std::string_view::npos) return;
  std::string label = lower_copy(v.substr(plus + 1));
  if (label.rfind("cu", 0) == 0 && label.size() >= 4 && std::isdigit(static_cast<unsigned char>(label[2]))) {
    std::string d = label.substr(2);  // "124" -> "12.4", "118" -> "11.8", "128" -> "12.8"
    d.erase(std::find_if(d.begin(), d.end(), [](char c) { return !std::isdigit(static_cast<unsigned char>(c)); }), d.end());
    if (d.size() >= 3) s.propose("torch.cuda", cuda_of_tag_digits(d), index, from, w);
    s.torch_build_seen = true;
  } else if (label.rfind("rocm", 0) == 0) {
    if (auto hv = first_version(label.substr(4))) s.propose("torch.hip", hip_major_minor(*hv), index, from, w);
    s.torch_build_seen = true;
  } else if (label == "cpu") {
    s.torch_build_seen = true;
  }
}

void paste_scan::propose(std::string key, std::string value, size_t index, std::string_view from, int w) {
  value = trim_copy(value);
  if (key.rfind("pkg.", 0) == 0) key = "pkg." + pep503_normalize(key.substr(4));
  if (value.empty() || value.size() > 256) return;
  facts.push_back({std::move(key), std::move(value), index + 1, std::string(from)});
  weights.push_back(w);
}

void paste_scan::kind(std::string_view k) {
  if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.emplace_back(k);
}

/// "Killed`": a code span the user closed at the end of the line and opened on another. An odd
/// count of backticks leaves the stray one at the line's end (or start) out.
std::string strip_stray_backtick(std::string s) {
  if (std::count(s.begin(), s.end(), '`') % 2 == 0) return s;
  if (!s.empty() && s.back() == '`') s.pop_back();
  else if (size_t b = s.find_first_not_of(' '); b != std::string::npos && s[b] == '`') s.erase(b, 1);
  return s;
}

/// nvidia-container-cli's debug log (`nvidia-container-cli -k -d /dev/tty info`, which NVIDIA's issue
/// template asks for) probes for WSL on every host: "attempting to load dxcore to see if we are
/// running under Windows Subsystem for Linux (WSL)", then "dxcore initialization failed, continuing
/// assuming a non-WSL environment". Neither says the host is WSL, yet both carry the word that the
/// rules' WSL exclusions look for (nvidia-docker#1671's paste silenced GS-NV-014): the lines stay, empty.
bool wsl_probe_line(std::string_view l) {
  return l.find("to see if we are running under Windows Subsystem for Linux") != std::string_view::npos ||
         l.find("continuing assuming a non-WSL environment") != std::string_view::npos;
}

std::vector<std::string> normalise_paste(std::string_view text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string l = strip_ansi(text.substr(pos, end - pos));
    if (!l.empty() && l.back() == '\r') l.pop_back();
    // "> quoted" lines of an issue comment, any depth.
    size_t q = 0;
    while (q < l.size() && (l[q] == '>' || (l[q] == ' ' && q + 1 < l.size() && l[q + 1] == '>'))) ++q;
    if (q > 0 && (q == l.size() || l[q] == ' ')) l.erase(0, std::min(l.size(), q + 1));
    if (wsl_probe_line(l)) l.clear();
    if (!is_fence(trim_copy(l)))
      lines.push_back(strip_stray_backtick(strip_inline_fences(strip_markdown_links(strip_bold_words(strip_bold_labels(decode_entities(strip_layout_tags(std::move(l)))))))));
    if (end == text.size()) break;
    pos = end + 1;
  }
  label_issue_form_answers(lines);
  return lines;
}

paste_reading read_paste(std::string_view text) {
  text = text.substr(0, kMaxPasteBytes);
  paste_reading out;
  out.lines = normalise_paste(text);
  paste_scan s{out.lines, {}, {}, {}, {}, false, false, false, false, {}, {}, {}};
  for (const std::string& l : out.lines) {
    std::string_view t(l);
    if (t.rfind("### ", 0) == 0 || t.find("<details>") != std::string_view::npos) {
      s.kind("GitHub issue (Markdown)");
      break;
    }
  }
  if (text.find("```") != std::string_view::npos) s.kind("GitHub issue (Markdown)");
  out.from_report = scan_gpustack_report(text, s);
  scan_tool_outputs(s);
  scan_packages(s);
  scan_env(s);
  scan_prose(s);
  scan_device_listing(s);
  scan_pci_listing(s);
  detect_text_kinds(s);
  assemble(s, out);
  out.kinds = s.kinds;
  // A sentence about a problem the reporter already solved is not the error to diagnose: its
  // line stays, empty, so line numbers hold.
  std::vector<bool> solved = solved_problem_lines(out.lines);
  for (size_t i = 0; i < out.lines.size(); ++i) {
    if (!solved[i]) out.error_text += out.lines[i];
    out.error_text += '\n';
  }
  out.error_text += s.extra_error_text;
  return out;
}

}  // namespace gs
