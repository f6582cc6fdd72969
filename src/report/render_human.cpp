// render_human: the terminal view of a (redacted) report. Goal: one screen, ~30-40 lines on a
// typical one-GPU machine: header, GPU table, stack (only what is present), findings worst
// first with their fix, probes, verdict. Reads the JSON only, tolerating missing fields, so a
// saved report from another version renders too.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/byte_size.h"
#include "matrix/stack_position.h"
#include "report/card_text.h"
#include "report/topology_text.h"
#include "report/container_text.h"
#include "report/json_path.h"
#include "report/report.h"
#include "report/text_wrap.h"

namespace gs {
namespace {

using nlohmann::json;

constexpr size_t kMaxFindings = 12;   // beyond this the rest is one "... N more" line
constexpr size_t kMaxProbes = 12;     // beyond this passing probes collapse to a count

double num(const json& j, const char* k) {
  auto it = j.is_object() ? j.find(k) : j.end();
  return (j.is_object() && it != j.end() && it->is_number()) ? it->get<double>() : 0.0;
}

/// For table cells only (a GPU name in its column); free text wraps instead (wrapped()).
std::string cut(std::string s, size_t width) {
  if (s.size() <= width) return s;
  size_t n = width > 3 ? width - 3 : 0;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // not inside a UTF-8 sequence
  return s.substr(0, n) + "...";
}

struct painter {
  bool on;
  size_t width = 0;  ///< terminal columns to wrap at; 0 = whole lines (not a terminal)
  std::string operator()(const std::string& s, const char* code) const {
    return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
  }
  std::string bold(const std::string& s) const { return (*this)(s, "1"); }
  std::string dim(const std::string& s) const { return (*this)(s, "2"); }
};

/// `lead` (already painted; `lead_cols` columns on screen) then `text`, word-wrapped to the
/// terminal with the continuation lines under the text's first column. Nothing is ever cut.
std::string wrapped(const std::string& lead, size_t lead_cols, const std::string& text, const painter& p) {
  return lead + word_wrap(text, p.width, lead_cols) + "\n";
}

/// A fix: the command is pasted, so it is one line whatever the width (the terminal folds it;
/// a copy takes it whole); a "  # why" comment after it wraps on its own lines below.
std::string fix_lines(const std::string& lead, const std::string& remediation, const painter& p) {
  size_t hash = remediation.find("  # ");
  if (p.width == 0 || hash == std::string::npos || lead.size() + remediation.size() <= p.width) return lead + remediation + "\n";
  std::string command = remediation.substr(0, hash), comment = remediation.substr(hash + 2);
  return lead + command + "\n" + wrapped(std::string(lead.size(), ' '), lead.size(), comment, p);
}

const char* severity_color(const std::string& s) {
  return s == "fail" ? "1;31" : s == "warn" ? "33" : "36";
}

const char* status_color(const std::string& s) {
  if (s == "pass") return "32";
  if (s == "warn") return "33";
  if (s == "skip" || s == "untested") return "2";
  if (s == "hang") return "1;35";
  return "1;31";  // fail, crash, error
}

void header(const json& r, std::string& out, const painter& p) {
  const json& h = json_object_at(r, "host");
  std::vector<std::string> parts{"gpustack " + json_text_at(r, {"tool", "version"})};
  std::string os = json_text_at(h, {"os", "pretty"});
  if (os.empty()) os = (json_text_at(h, {"os", "id"}) + " " + json_text_at(h, {"os", "version"}));
  if (os.find_first_not_of(' ') != std::string::npos) parts.push_back(os);
  if (!json_text_at(h, {"kernel"}).empty()) parts.push_back("kernel " + json_text_at(h, {"kernel"}));
  int logical = static_cast<int>(num(json_object_at(h, "cpu"), "logical"));
  if (logical > 0) parts.push_back(fmt::format("{} CPUs", logical));
  double ram = num(json_object_at(h, "ram"), "total_bytes");
  if (ram > 0) parts.push_back("RAM " + gib_number(ram) + " GiB");
  double swap = num(json_object_at(h, "swap"), "total_bytes");
  if (ram > 0) parts.push_back(swap > 0 ? "swap " + gib_number(swap) + " GiB" : "no swap");
  if (json_text_at(h, {"container", "detected"}) == "true")
    parts.push_back("container " + (json_text_at(h, {"container", "kind"}).empty() ? std::string("?") : json_text_at(h, {"container", "kind"})));
  std::string line;
  for (size_t i = 0; i < parts.size(); ++i) line += (i ? " | " : "") + parts[i];
  out += p.bold(word_wrap(line, p.width, 0)) + "\n";
}

void gpu_table(const json& r, std::string& out, const painter& p) {
  const json& gpus = json_array_at(r, "gpus");
  if (gpus.empty()) {
    out += p.bold("GPUs") + "  none found\n";
    return;
  }
  out += p.bold("GPUs") + "\n";
  out += p.dim(fmt::format("  {:<2} {:<7} {:<8} {:<34} {:>8} {:>4} {:>4}", "#", "vendor", "arch", "name", "VRAM GiB", "CUs",
                           "wave")) + "\n";
  for (size_t i = 0; i < gpus.size(); ++i) {
    const json& g = gpus[i];
    int cus = static_cast<int>(num(g, "compute_units")), wave = static_cast<int>(num(g, "wave_size"));
    out += fmt::format("  {:<2} {:<7} {:<8} {:<34} {:>8} {:>4} {:>4}\n", i, cut(json_text_at(g, {"vendor"}), 7),
                       cut(json_text_at(g, {"arch"}), 8), cut(json_text_at(g, {"name"}), 34),
                       num(g, "vram_bytes") > 0 ? gib_number(num(g, "vram_bytes")) : "?", cus > 0 ? std::to_string(cus) : "?",
                       wave > 0 ? std::to_string(wave) : "?");
    // The card's own state under its row, wrapped like every other line of the view.
    if (std::string c = card_summary(g); !c.empty()) out += "     " + word_wrap("card: " + c, p.width, 5) + "\n";
    if (std::string fw = card_firmware_summary(g); !fw.empty()) out += "     " + word_wrap("firmware: " + fw, p.width, 5) + "\n";
  }
  if (std::string t = topology_summary(r); !t.empty()) out += "  " + word_wrap("links: " + t, p.width, 2) + "\n";
}

void stack_rows(const json& r, std::string& out, const painter& p) {
  const json& s = json_object_at(r, "stack");
  std::vector<std::pair<std::string, std::string>> rows;
  std::string drv;
  if (json_text_at(s, {"driver", "amdgpu", "loaded"}) == "true") {
    std::string v = json_text_at(s, {"driver", "amdgpu", "version"});
    drv = "amdgpu " + (v.empty() ? std::string("in-kernel") : v);
    if (!json_text_at(s, {"driver", "amdgpu", "initstate"}).empty()) drv += " (" + json_text_at(s, {"driver", "amdgpu", "initstate"}) + ")";
  }
  if (!json_text_at(s, {"driver", "nvidia", "version"}).empty()) {
    if (!drv.empty()) drv += ", ";
    drv += "nvidia " + json_text_at(s, {"driver", "nvidia", "version"}) + (json_text_at(s, {"driver", "nvidia", "open_module"}) == "true" ? " (open)" : "");
  }
  if (!drv.empty()) rows.push_back({"driver", drv});
  if (!json_text_at(s, {"rocm", "version"}).empty()) {
    std::string v = json_text_at(s, {"rocm", "version"});
    for (const json& i : json_array_at(json_object_at(s, "rocm"), "installs"))
      if (json_text_at(i, {"active"}) == "true") v += " (" + json_text_at(i, {"path"}) + ")";
    size_t n = json_array_at(json_object_at(s, "rocm"), "installs").size();
    if (n > 1) v += fmt::format(", {} installs", n);
    rows.push_back({"ROCm", v});
  }
  std::string cuda;
  if (!json_text_at(s, {"cuda", "toolkit_version"}).empty()) cuda = "toolkit " + json_text_at(s, {"cuda", "toolkit_version"});
  if (!json_text_at(s, {"cuda", "driver_api"}).empty()) cuda += (cuda.empty() ? "" : ", ") + std::string("driver API ") + json_text_at(s, {"cuda", "driver_api"});
  if (!cuda.empty()) rows.push_back({"CUDA", cuda});
  const json& py = json_object_at(s, "python");
  if (json_text_at(py, {"found"}) == "true") {
    std::string v = json_text_at(py, {"version"}) + " " + json_text_at(py, {"env_kind"}) + "  " + json_text_at(py, {"interpreter"});
    rows.push_back({"Python", v});
  } else {
    rows.push_back({"Python", "not found (--python PATH or --venv DIR)"});
  }
  const json& pk = json_object_at(py, "packages");
  auto version_of = [&pk](const char* n) { return json_text_at(pk, {n}); };
  if (!version_of("torch").empty()) {
    std::string t = version_of("torch");
    std::string build;
    if (!json_text_at(s, {"torch", "hip"}).empty()) build = "HIP " + json_text_at(s, {"torch", "hip"});
    else if (!json_text_at(s, {"torch", "cuda"}).empty()) build = "CUDA " + json_text_at(s, {"torch", "cuda"});
    else build = "CPU-only build";
    rows.push_back({"torch", t + " (" + build + ")"});
  }
  // The rest of the fine-tuning stack on as few lines as the width allows.
  static constexpr std::array<const char*, 12> kPackages{
      "triton", "pytorch-triton-rocm", "pytorch-triton", "bitsandbytes", "flash-linear-attention", "causal-conv1d",
      "flash-attn", "transformers", "peft", "trl", "accelerate", "unsloth"};
  std::string line;
  bool first_row = true;
  auto flush = [&] {
    if (line.empty()) return;
    rows.push_back({first_row ? "packages" : "", line});
    first_row = false;
    line.clear();
  };
  for (const char* n : kPackages) {
    if (version_of(n).empty()) continue;
    std::string item = std::string(n) + " " + version_of(n);
    if (!line.empty() && p.width && line.size() + 2 + item.size() > (p.width > 40 ? p.width - 16 : 24)) flush();
    line += (line.empty() ? "" : ", ") + item;
  }
  flush();
  std::string env_line;
  if (r.contains("env") && r["env"].is_object())
    for (auto& [k, v] : r["env"].items()) env_line += (env_line.empty() ? "" : "  ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  if (!env_line.empty()) rows.push_back({"env", env_line});
  std::string acc;
  for (const json& a : json_array_at(r, "access")) {
    if (json_text_at(a, {"exists"}) != "true") continue;
    std::string e = json_text_at(a, {"path"}) + " " + (json_text_at(a, {"ok"}) == "true" ? "ok" : json_text_at(a, {"error"}));
    if (json_text_at(a, {"ok"}) != "true" && !json_text_at(a, {"group"}).empty())
      e += " (group " + json_text_at(a, {"group"}) + (json_text_at(a, {"user_in_group"}) == "true" ? ")" : ", not a member)");
    acc += (acc.empty() ? "" : ", ") + e;
  }
  if (!acc.empty()) rows.push_back({"access", acc});
  out += p.bold("Stack") + "\n";
  for (auto& [k, v] : rows) out += wrapped(fmt::format("  {:<13} ", k), 16, v, p);
}

int severity_rank(const std::string& s) { return s == "fail" ? 0 : s == "warn" ? 1 : 2; }

void findings_block(const json& r, std::string& out, const painter& p) {
  std::vector<const json*> fs;
  for (const json& f : json_array_at(r, "findings")) fs.push_back(&f);
  std::stable_sort(fs.begin(), fs.end(), [](const json* a, const json* b) {
    return severity_rank(json_text_at(*a, {"severity"})) < severity_rank(json_text_at(*b, {"severity"}));
  });
  if (fs.empty()) {
    out += p.bold("Findings") + "  none\n";
    return;
  }
  out += p.bold(fmt::format("Findings ({})", fs.size())) + "\n";
  for (size_t i = 0; i < fs.size() && i < kMaxFindings; ++i) {
    const json& f = *fs[i];
    std::string sev = json_text_at(f, {"severity"});
    std::string tag = "[" + (sev == "fail" ? std::string("FAIL") : sev == "warn" ? "WARN" : "INFO") + "]";
    std::string head = " " + json_text_at(f, {"id"}) + "  " + json_text_at(f, {"title"});
    out += wrapped("  " + p(tag, severity_color(sev)) + " ", 9, head.substr(1), p);
    if (!json_text_at(f, {"evidence"}).empty()) out += p.dim(wrapped("         seen: ", 15, json_text_at(f, {"evidence"}), p));
    if (!json_text_at(f, {"remediation"}).empty()) out += fix_lines("         fix:  ", json_text_at(f, {"remediation"}), p);
  }
  if (fs.size() > kMaxFindings)
    out += fmt::format("  ... {} more (gpustack check --markdown lists them all)\n", fs.size() - kMaxFindings);
}

void probes_block(const json& r, std::string& out, const painter& p) {
  const json& ps = json_array_at(r, "probes");
  if (ps.empty()) return;
  out += p.bold(fmt::format("Probes ({})", ps.size())) + "\n";
  bool collapse = ps.size() > kMaxProbes;
  size_t hidden = 0;
  for (const json& pr : ps) {
    std::string st = json_text_at(pr, {"status"});
    std::string pid = json_text_at(pr, {"id"});
    const bool verdict = pid.size() > 8 && pid.compare(pid.size() - 8, 8, ".verdict") == 0;  // the answer: always shown
    if (collapse && st == "pass" && !verdict) {
      ++hidden;
      continue;
    }
    std::string time = fmt::format("{:.1f} ms", num(pr, "duration_ms"));
    std::string id = json_text_at(pr, {"id"});
    std::string lead = fmt::format("  {:<24} {} {:>10}  ", id, p(fmt::format("{:<5}", st), status_color(st)), time);
    std::string detail = json_text_at(pr, {"detail"});
    if (st == "hang" || st == "crash" || st == "fail")
      if (!json_text_at(pr, {"phase"}).empty()) detail += "  [phase " + json_text_at(pr, {"phase"}) + "]";
    out += wrapped(lead, 2 + std::max<size_t>(id.size(), 24) + 1 + 5 + 1 + 10 + 2, detail, p);
  }
  if (hidden) out += fmt::format("  ... and {} more passed\n", hidden);
}

}  // namespace

std::string render_human(const nlohmann::json& report, bool color, size_t width) {
  painter p{color, width};
  std::string out;
  const json& r = report.is_object() ? report : json::object();
  header(r, out, p);
  gpu_table(r, out, p);
  stack_rows(r, out, p);
  if (std::vector<std::string> cl = container_lines(r); !cl.empty()) {  // check --container
    out += p.bold("Container") + "  " + cl[0] + "\n";
    for (size_t i = 1; i < cl.size(); ++i) out += wrapped("  ", 4, cl[i], p);
  }
  findings_block(r, out, p);
  probes_block(r, out, p);
  if (auto t = run_timing_text(r.value("run", json::object())); !t.empty()) out += wrapped(p.bold("Time") + "  ", 6, t, p);
  if (auto m = r.find("matrix_position"); m != r.end() && m->is_object())
    out += p.bold("Matrix") + "  " + position_line(*m) + "\n";  // not cut: the nearest stack is the point
  size_t issues = json_array_at(r, "issues").size();
  if (issues) out += p.dim(fmt::format("{} detection note{} (gpustack check --json shows them)", issues, issues == 1 ? "" : "s")) + "\n";
  std::string st = json_text_at(r, {"summary", "status"});
  std::string text = json_text_at(r, {"summary", "text"});
  if (!st.empty() && text.rfind(st + ": ", 0) == 0) text = text.substr(st.size() + 2);
  std::string upper = st;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper.empty()) upper = "?";
  out += wrapped(p.bold("Summary ") + p(upper, st == "pass" ? "1;32" : status_color(st)) + "  ", 10 + upper.size(), text, p);
  return out;
}

}  // namespace gs
