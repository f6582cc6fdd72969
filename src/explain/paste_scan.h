// Internal to src/explain: the state the extractors share while reading one paste. Each
// extractor looks at every line for the shapes it knows and proposes facts with a weight;
// paste_read.cpp keeps the heaviest proposal per key (the first on a tie).
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "explain/paste.h"

namespace gs {

/// How far a source is trusted: a tool's own output over a labelled line over prose.
enum weight : int { prose = 1, labelled = 2, tool_output = 3, report_json = 4 };

struct proposed_gpu {
  std::string arch, name;
  size_t line = 0;
  std::string from;
  int weight = 0;
};

struct paste_scan {
  const std::vector<std::string>& lines;
  std::vector<pasted_fact> facts;  // proposals; fact.line 1-based
  std::vector<int> weights;        // parallel to facts
  std::vector<proposed_gpu> gpus;
  std::vector<std::string> kinds;
  bool env_dump = false, package_list = false, gpu_list = false;
  bool torch_build_seen = false;
  std::vector<device_access> devices;  // from `ls -l /dev/kfd /dev/dri/*`
  std::string extra_error_text;    // failed probes of a pasted gpustack report
  std::map<size_t, card_state> cards;  // a tool's GPU row (its 0-based line) -> the card state it shows

  void propose(std::string key, std::string value, size_t index, std::string_view from, int w);
  void kind(std::string_view k);
};

// The extractors (one file each). `index` arguments are 0-based line indexes.
void scan_tool_outputs(paste_scan& s);   // collect_env, transformers env, rocminfo, *-smi, clinfo, vulkaninfo
void scan_packages(paste_scan& s);       // pip list/freeze, uv, conda, [pip3] lines, "torch 2.5.1" mentions
void scan_env(paste_scan& s);            // env dumps, export/set/ENV lines, KEY=VALUE, os.environ[...]
void scan_prose(paste_scan& s);          // GPU names and gfx/sm tokens, OS, kernel, ROCm/CUDA/driver, RAM, Python
void scan_device_listing(paste_scan& s); // `ls -l` of /dev/kfd, /dev/dri/renderD*, /dev/nvidia*
void scan_pci_listing(paste_scan& s);    // lspci and the kernel's modesetting line: GPUs by PCI id
/// ComfyUI, Ollama and llama.cpp start-up banners, Windows CPython: one line of scan_prose's pass
/// (which lower-cases each line once for both).
void scan_app_log_line(paste_scan& s, size_t i, const std::string& line, const std::string& lower);
/// Windows' own numbers: NVIDIA's four-part driver (32.0.15.6636 is 566.36), the NT build
/// (10.0.22631 is Windows 11), AMD's Adrenalin release, WSL2's dxg kernel lines (extract_windows.cpp).
void scan_windows_line(paste_scan& s, size_t i, const std::string& line, const std::string& lower);
/// "works with A, fails with B" of one component in the reporter's prose -> regression.component,
/// .good, .bad (extract_regression.cpp); run once after the line-by-line prose pass.
void scan_regressions(paste_scan& s);
/// A gpustack JSON report in `text`; true when one was found and read.
bool scan_gpustack_report(std::string_view text, paste_scan& s);

/// Issue-form answers under their headings and Markdown table rows -> "Label: value" lines
/// (issue_form.cpp); run once on the normalised paste, before any extractor.
void label_issue_form_answers(std::vector<std::string>& lines);

// Small text helpers the extractors share.
std::string trim_copy(std::string_view s);
std::string lower_copy(std::string_view s);
/// The rest of `line` after `label` when the trimmed line starts with it (case-insensitive).
std::optional<std::string> after_label(std::string_view line, std::string_view label);
/// vLLM's collect_env pads labels: "PyTorch version              : 2.9.0" -> "PyTorch version: 2.9.0".
std::string unpad_label(const std::string& line);
/// "6.2.41133-dd7f95766" -> "6.2": torch.version.hip and collect_env print HIP's build number,
/// rules compare major.minor.
std::string hip_major_minor(std::string_view v);
/// The CUDA of a build tag's digits: "124" (+cu124, cuda124, whl/cu124) -> "12.4", "118" -> "11.8".
/// `digits` holds three or more digits.
std::string cuda_of_tag_digits(std::string_view digits);
/// CUDA's API numbers as cudaRuntimeGetVersion / cudaDriverGetVersion print them ("CUDA Runtime
/// Version: 13000", "12040") -> "13.0", "12.4"; nullopt for anything else ("12.4" is read as written).
std::optional<std::string> cuda_api_integer(std::string_view v);
/// The first version-like token ("2.5.1+rocm6.2", "550.54.14", "6.2") at or after `from`.
std::optional<std::string> first_version(std::string_view text, size_t from = 0);
/// The gfx target tokens of a lower-cased line ("gfx1100", "gfx90a"; not "gfx90878").
std::vector<std::string> gfx_tokens(std::string_view lower);
/// torch's version -> what it was built for: "+cu124" -> cuda "12.4", "+rocm6.2" -> hip "6.2", "+cpu".
void note_torch_build(paste_scan& s, std::string_view torch_version, size_t index, std::string_view from, int w);

}  // namespace gs
