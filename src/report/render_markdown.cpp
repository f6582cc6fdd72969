// render_markdown: an issue-ready summary of a (redacted) report. A title with the verdict,
// a small GPU/stack table, the findings, the probes, and the full JSON in a collapsed
// <details> block, so a maintainer gets everything from one paste. Text from the report is
// escaped: "<user>" and "<redacted>" would otherwise vanish as HTML tags on GitHub.
#include <fmt/format.h>

#include <algorithm>

#include "core/byte_size.h"
#include "matrix/stack_position.h"
#include "card/samples_line.h"
#include "report/card_text.h"
#include "report/topology_text.h"
#include "report/container_text.h"
#include "report/json_path.h"
#include "report/report.h"

namespace gs {
namespace {

using nlohmann::json;

/// Plain text: backslash-escape what Markdown or HTML would interpret; newlines become spaces.
std::string md(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    if (std::string_view("\\`*_[]<>|#~").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

/// Inline code: a fence longer than any backtick run inside; '|' escaped for table cells.
std::string code(std::string_view s) {
  size_t longest = 0, cur = 0;
  for (char c : s) {
    cur = c == '`' ? cur + 1 : 0;
    longest = std::max(longest, cur);
  }
  std::string fence(longest + 1, '`');
  std::string body;
  for (char c : s) {
    if (c == '\n' || c == '\r') body += ' ';
    else if (c == '|') body += "\\|";
    else body += c;
  }
  bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string gib(const json& bytes) {
  double b = bytes.is_number() ? bytes.get<double>() : 0;
  return b > 0 ? gib_text(b) : "? GiB";
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

void title(const json& r, std::string& out) {
  std::string st = json_text_at(r, {"summary", "status"});
  std::string what;
  const json& gpus = json_array_at(r, "gpus");
  if (!gpus.empty()) what = fmt::format("{}x {} ({})", gpus.size(), json_text_at(gpus[0], {"name"}), json_text_at(gpus[0], {"arch"}));
  else what = "no GPU found";
  std::string os = json_text_at(r, {"host", "os", "pretty"});
  out += "### gpustack " + md(json_text_at(r, {"tool", "command"})) + ": " + (st.empty() ? "?" : upper(st)) + " on " + md(what);
  if (!os.empty()) out += ", " + md(os);
  out += "\n\n" + md(json_text_at(r, {"summary", "text"})) + "\n\n";
}

void stack_table(const json& r, std::string& out) {
  std::vector<std::pair<std::string, std::string>> rows;
  const json& gpus = json_array_at(r, "gpus");
  for (size_t i = 0; i < gpus.size(); ++i) {
    const json& g = gpus[i];
    rows.push_back({fmt::format("GPU {}", i), code(json_text_at(g, {"name"})) + " " + md(json_text_at(g, {"arch"})) + ", " +
                                                  gib(g.is_object() && g.contains("vram_bytes") ? g["vram_bytes"] : json()) + ", wave" + json_text_at(g, {"wave_size"}) +
                                                  ", " + md(json_text_at(g, {"pci_id"}))});
    if (std::string c = card_summary(g); !c.empty()) rows.push_back({fmt::format("GPU {} state", i), md(c)});
    if (std::string fw = card_firmware_summary(g); !fw.empty()) rows.push_back({fmt::format("GPU {} firmware", i), md(fw)});
  }
  if (std::string t = topology_summary(r); !t.empty()) rows.push_back({"GPU links", md(t)});
  const json& s = json_object_at(r, "stack");
  if (!json_text_at(s, {"driver", "nvidia", "version"}).empty()) rows.push_back({"NVIDIA driver", code(json_text_at(s, {"driver", "nvidia", "version"}))});
  if (json_text_at(s, {"driver", "amdgpu", "loaded"}) == "true") {
    std::string v = json_text_at(s, {"driver", "amdgpu", "version"});
    rows.push_back({"amdgpu", v.empty() ? "in-kernel" : code(v)});
  }
  if (!json_text_at(s, {"rocm", "version"}).empty()) rows.push_back({"ROCm", code(json_text_at(s, {"rocm", "version"}))});
  if (!json_text_at(s, {"cuda", "toolkit_version"}).empty()) rows.push_back({"CUDA toolkit", code(json_text_at(s, {"cuda", "toolkit_version"}))});
  std::string k = json_text_at(r, {"host", "kernel"});
  if (!k.empty()) rows.push_back({"kernel", code(k)});
  const json& py = json_object_at(s, "python");
  if (json_text_at(py, {"found"}) == "true")
    rows.push_back({"Python", code(json_text_at(py, {"version"})) + " (" + md(json_text_at(py, {"env_kind"})) + ")"});
  const json& pk = json_object_at(py, "packages");
  if (!json_text_at(pk, {"torch"}).empty()) {
    std::string build = !json_text_at(s, {"torch", "hip"}).empty() ? "HIP " + json_text_at(s, {"torch", "hip"})
                        : !json_text_at(s, {"torch", "cuda"}).empty() ? "CUDA " + json_text_at(s, {"torch", "cuda"})
                                                              : "CPU-only";
    rows.push_back({"torch", code(json_text_at(pk, {"torch"})) + " (" + md(build) + ")"});
  }
  for (const char* n : {"triton", "pytorch-triton-rocm", "bitsandbytes", "flash-linear-attention", "causal-conv1d",
                        "flash-attn", "transformers", "peft", "trl"})
    if (!json_text_at(pk, {n}).empty()) rows.push_back({n, code(json_text_at(pk, {n}))});
  out += "| | |\n|---|---|\n";
  for (auto& [a, b] : rows) out += "| " + md(a) + " | " + b + " |\n";
  out += "\n";
}

void findings_list(const json& r, std::string& out) {
  std::vector<const json*> fs;
  for (const json& f : json_array_at(r, "findings")) fs.push_back(&f);
  auto rank = [](const json* f) {
    std::string s = json_text_at(*f, {"severity"});
    return s == "fail" ? 0 : s == "warn" ? 1 : 2;
  };
  std::stable_sort(fs.begin(), fs.end(), [&](const json* a, const json* b) { return rank(a) < rank(b); });
  out += "**Findings**";
  if (fs.empty()) {
    out += ": none\n\n";
    return;
  }
  out += "\n\n";
  for (const json* f : fs) {
    out += "- **" + upper(json_text_at(*f, {"severity"})) + "** " + code(json_text_at(*f, {"id"})) + " " + md(json_text_at(*f, {"title"})) + "\n";
    if (!json_text_at(*f, {"evidence"}).empty()) out += "  - seen: " + md(json_text_at(*f, {"evidence"})) + "\n";
    if (!json_text_at(*f, {"remediation"}).empty()) out += "  - fix: " + md(json_text_at(*f, {"remediation"})) + "\n";
    std::string refs;
    for (const json& ref : json_array_at(*f, "refs"))
      if (ref.is_string()) refs += (refs.empty() ? "" : ", ") + md(ref.get<std::string>());
    if (!refs.empty()) out += "  - refs: " + refs + "\n";
  }
  out += "\n";
}

/// The step's detail, and the card while it ran (clocks, power) beside its figure.
std::string detail_with_card(const json& p) {
  std::string detail = json_text_at(p, {"detail"});
  if (std::string card = card_samples_line(p.contains("data") ? p["data"] : json()); !card.empty())
    detail += " [card: " + card + "]";
  return detail;
}

void probes_table(const json& r, std::string& out) {
  const json& ps = json_array_at(r, "probes");
  if (ps.empty()) return;
  out += "**Probes**\n\n| probe | status | time | detail |\n|---|---|---:|---|\n";
  for (const json& p : ps) {
    double ms = p.is_object() && p.contains("duration_ms") && p["duration_ms"].is_number() ? p["duration_ms"].get<double>() : 0;
    std::string st = json_text_at(p, {"status"});
    out += "| " + code(json_text_at(p, {"id"})) + " | " + (st == "pass" ? md(st) : "**" + md(st) + "**") + " | " +
           fmt::format("{:.1f} ms", ms) + " | " + md(detail_with_card(p)) + " |\n";
  }
  out += "\n";
}

}  // namespace

std::string render_markdown(const nlohmann::json& report) {
  const json& r = report.is_object() ? report : json::object();
  std::string out;
  title(r, out);
  stack_table(r, out);
  if (std::vector<std::string> cl = container_lines(r); !cl.empty()) {  // check --container
    out += "**Container:** " + md(cl[0]) + "\n\n";
    for (size_t i = 1; i < cl.size(); ++i) out += "- " + md(cl[i]) + "\n";
    out += "\n";
  }
  findings_list(r, out);
  probes_table(r, out);
  if (auto t = run_timing_text(r.value("run", json::object())); !t.empty()) out += "**Time:** " + md(t) + "\n\n";
  if (auto m = r.find("matrix_position"); m != r.end() && m->is_object())
    out += "**Compatibility matrix:** " + md(position_line(*m)) + "\n\n";
  size_t issues = json_array_at(r, "issues").size();
  if (issues) out += fmt::format("{} detection note{} in the JSON below (`issues`).\n\n", issues, issues == 1 ? "" : "s");
  // JSON strings never hold a raw newline, so a fence line can only clash if it is all
  // backticks; a fence longer than any backtick run in the text rules that out anyway.
  std::string body = report.dump(2);
  size_t longest = 0, cur = 0;
  for (char c : body) {
    cur = c == '`' ? cur + 1 : 0;
    longest = std::max(longest, cur);
  }
  std::string fence(std::max<size_t>(3, longest + 1), '`');
  out += "<details><summary>gpustack report (JSON)</summary>\n\n" + fence + "json\n" + body + "\n" + fence + "\n\n</details>\n";
  return out;
}

}  // namespace gs
