// GitHub issue forms and Markdown tables: the answers reporters give under a heading ("### GPU"
// then "Radeon RX 7900 XTX") or in a table cell ("| GPU | RTX 4090 |") become the labelled lines
// the extractors already read ("GPU: Radeon RX 7900 XTX"), so every form's answers reach the same
// facts as the inline "GPU: ..." forms.
//   Ollama's form:    "### OS\n\nLinux\n\n### GPU\n\nAMD\n\n### Ollama version\n\n0.5.7"
//                     (ollama/ollama .github/ISSUE_TEMPLATE/10_bug_report.yml)
//   ROCm's form:      "### Operating System\n\nUbuntu 22.04\n\n### GPU\n\nAMD Radeon RX 7900 XTX\n\n### ROCm Version\n\nROCm 6.0.0"
//   llama.cpp's form: "### Operating systems\n\nLinux" (its "### Name and Version" block is read by extract_app_logs)
//   tables:           "| GPU | RTX 4090 |", "| vLLM | `0.13.2.post6` | api_server.py log |"
#include <algorithm>
#include <cctype>

#include "core/text_scan.h"
#include "explain/paste_scan.h"

namespace gs {
namespace {

bool blank(const std::string& l) { return l.find_first_not_of(" \t") == std::string::npos; }

/// "CUDA version" under a heading or in a table cell is left as it is: there users write the
/// toolkit, the wheel's CUDA or the driver's alike, three facts a rule must not confuse
/// (nvidia-smi's header and nvcc's line say which is which).
bool ambiguous_cuda_label(const std::string& lower_label) { return lower_label == "cuda version" || lower_label == "cuda"; }

/// The label an answer under `heading` (lower-cased) is given, "" when the heading asks for
/// something no extractor reads. A heading that ends in "version" ("Ollama version", "vLLM
/// version", "ComfyUI version") is its own label: the package and application readers know them.
std::string label_for_heading(const std::string& heading) {
  static constexpr std::pair<std::string_view, std::string_view> labels[] = {
      {"os", "OS:"},
      {"operating system", "OS:"},
      {"operating systems", "OS:"},  // llama.cpp's form
      {"os version", "OS:"},
      {"os/platform", "OS:"},
      {"platform", "OS:"},
      {"operating system version", "OS:"},
      {"gpu", "GPU:"},
      {"gpus", "GPU:"},
      {"gpu(s)", "GPU:"},
      {"gpu model", "GPU:"},
      {"gpu type", "GPU:"},
      {"gpu name", "GPU:"},
      {"graphics card", "GPU:"},
      {"hardware", "GPU:"},
      {"accelerator", "GPU:"},
      {"rocm version", "ROCm version:"},
      {"rocm", "ROCm version:"},
      {"python version", "Python version:"},
      {"pytorch version", "PyTorch version:"},
      {"torch version", "PyTorch version:"},
      {"nvidia driver version", "Nvidia driver version:"},
      {"driver version", "Driver version:"},
      {"gpu driver version", "Driver version:"},
      {"kernel version", "Kernel version:"},
      {"kernel", "Kernel version:"},
      {"linux kernel", "Kernel version:"},
      {"first bad commit", "First Bad Commit:"}};  // llama.cpp's and ggml's forms: extract_regression reads it
  if (ambiguous_cuda_label(heading)) return "";
  for (auto [h, label] : labels)
    if (h == heading) return std::string(label);
  if (heading.size() > 8 && heading.size() < 40 && heading.ends_with(" version") &&
      std::count(heading.begin(), heading.end(), ' ') <= 3)
    return heading + ":";
  return "";
}

/// Issue forms put each answer under its own heading ("### OS" then "Windows"): a one-line answer
/// under a heading the extractors know becomes "OS: Windows", read like any labelled line. A GPU
/// heading may hold one card a line ("AMD Radeon RX 7900 XTX" then "AMD Radeon 780M"): up to four
/// short lines with no label of their own each become a "GPU:" line. Any other block under a
/// heading (rocminfo's output, a traceback) stays as it is.
void label_heading_answers(std::vector<std::string>& lines) {
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view h(lines[i]);
    size_t hashes = h.find_first_not_of('#');
    if (hashes < 2 || hashes > 4 || hashes == std::string_view::npos || h[hashes] != ' ') continue;
    const std::string heading = lower_copy(trim_copy(h.substr(hashes)));
    const std::string label = label_for_heading(heading);
    if (label.empty()) continue;
    size_t j = i + 1;
    while (j < lines.size() && blank(lines[j])) ++j;
    size_t end = j;  // the answer: lines j .. end-1, up to the next blank line or heading
    while (end < lines.size() && !blank(lines[end]) && lines[end].rfind("#", 0) != 0) ++end;
    if (end == j) continue;
    const bool one_line = end == j + 1 && lines[j].size() <= 200;
    const bool gpu_list = label == "GPU:" && end - j <= 4 && std::all_of(lines.begin() + j, lines.begin() + end, [](const std::string& l) {
      return l.size() <= 80 && l.find(':') == std::string::npos && l.find('|') == std::string::npos;
    });
    if (!one_line && !gpu_list) continue;
    for (size_t k = j; k < end; ++k) {
      std::string answer = trim_copy(lines[k]);
      if (lower_copy(answer).rfind(lower_copy(label), 0) != 0) lines[k] = label + " " + answer;
    }
    i = end - 1;
  }
}

/// "| GPU | RTX 4090 |" -> "GPU: RTX 4090": a Markdown table row of two or three cells whose first
/// is a short label. Tools' boxed tables (nvidia-smi) pad their cells and start rows with a GPU
/// index, so a label with a run of spaces, or one that does not start with a letter, is left alone.
void label_table_rows(std::vector<std::string>& lines) {
  for (std::string& l : lines) {
    std::string t = trim_copy(l);
    if (t.size() < 5 || t.front() != '|' || t.back() != '|') continue;
    std::vector<std::string> cells;
    for (std::string_view c : scan::split(std::string_view(t).substr(1, t.size() - 2), '|')) cells.push_back(trim_copy(c));
    if (cells.size() < 2 || cells.size() > 3) continue;
    std::string label = cells[0], value = cells[1];
    while (!label.empty() && (label.back() == ':' || label.back() == '*')) label.pop_back();
    while (!label.empty() && label.front() == '*') label.erase(0, 1);
    for (size_t p = value.find('`'); p != std::string::npos; p = value.find('`')) value.erase(p, 1);
    value = trim_copy(value);
    if (label.empty() || label.size() > 40 || !std::isalpha(static_cast<unsigned char>(label[0])) ||
        label.find("  ") != std::string::npos || value.empty() || value.find_first_not_of("-: ") == std::string::npos ||
        ambiguous_cuda_label(lower_copy(label)))
      continue;
    l = label + ": " + value;
  }
}

}  // namespace

void label_issue_form_answers(std::vector<std::string>& lines) {
  label_table_rows(lines);
  label_heading_answers(lines);
}

}  // namespace gs
