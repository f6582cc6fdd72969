// The start-up banners of the applications people report from: each names the GPU, the
// platform and the versions in its own layout, and reports often carry nothing else.
//   ComfyUI:   "** Platform: Windows" (transformers-cli env: "- Platform: Windows-10-..."), "Total VRAM 24564 MB, total RAM 65261 MB",
//              "Device: cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync"
//   Ollama:    msg="inference compute" ... library=cuda compute=8.6 driver=12.4 name="NVIDIA ..."
//              msg="amdgpu is not supported ..." gpu_type=gfx1031
//   llama.cpp: "  Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6, VMM: yes"
//              "  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32"
//              "  Device 0: AMD Radeon RX 7900 XTX, compute capability 11.0" (older HIP builds)
//              "ggml_vulkan: 0 = AMD Radeon RX 7900 XTX (RADV NAVI31) (radv) | uma: 0 | ..."
//   Python:    "[MSC v.1941 64 bit (AMD64)]" (a Python built with MSVC runs on Windows)
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/text_scan.h"
#include "explain/gpu_names.h"
#include "explain/paste_scan.h"

namespace gs {
namespace {

/// The value of `key=` in a logfmt line (Ollama's slog): quoted or up to the next space.
std::string logfmt_value(const std::string& line, std::string_view key) {
  for (size_t p = line.find(key); p != std::string::npos; p = line.find(key, p + 1)) {
    if (p > 0 && line[p - 1] != ' ') continue;
    size_t b = p + key.size();
    if (b < line.size() && line[b] == '"') {
      size_t e = line.find('"', b + 1);
      return line.substr(b + 1, e == std::string::npos ? std::string::npos : e - b - 1);
    }
    return line.substr(b, line.find(' ', b) == std::string::npos ? std::string::npos : line.find(' ', b) - b);
  }
  return "";
}

/// "8.6" -> "sm_86", "12.0" -> "sm_120"; "" when it is not a compute capability.
std::string sm_of(std::string_view cc) {
  size_t dot = cc.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= cc.size()) return "";
  for (size_t i = 0; i < cc.size(); ++i)
    if (i != dot && !scan::is_digit(cc[i])) return "";
  return "sm_" + std::string(cc.substr(0, dot)) + std::string(cc.substr(dot + 1));
}

/// The first gfx target token of `lower`, or "".
std::string gfx_at(std::string_view lower) {
  std::vector<std::string> t = gfx_tokens(lower);
  return t.empty() ? "" : t.front();
}

void gpu(paste_scan& s, const std::string& arch, const std::string& name, size_t i, std::string_view from) {
  if (!arch.empty()) s.gpus.push_back({arch, name.empty() ? arch : name, i, std::string(from), weight::labelled});
}

void ollama(paste_scan& s, size_t i, const std::string& l, const std::string& lower) {
  if (lower.find("msg=\"inference compute\"") != std::string::npos) {
    std::string compute = lower_copy(logfmt_value(l, "compute="));
    std::string name = logfmt_value(l, "name=");
    std::string arch = compute.rfind("gfx", 0) == 0 ? gfx_at(compute) : sm_of(compute);
    // An AMD GPU is named by its PCI id ("1002:73bf"); the table's name says more.
    if (name.find(':') != std::string::npos) name.clear();
    gpu(s, arch, name, i, "ollama");
    s.kind("Ollama server log");
    if (logfmt_value(l, "library=") == "cuda")
      if (auto v = first_version(logfmt_value(l, "driver="))) s.propose("cuda.driver_api", *v, i, "ollama", weight::tool_output);
    return;
  }
  if (size_t p = lower.find(" gpu_type=gfx"); p != std::string::npos) gpu(s, gfx_at(lower.substr(p)), "", i, "ollama");
}

void llama_cpp(paste_scan& s, size_t i, const std::string& l, const std::string& lower) {
  size_t b = l.find_first_not_of(" \t");
  if (b != std::string::npos && l.compare(b, 7, "Device ") == 0 && b + 7 < l.size() && scan::is_digit(l[b + 7])) {
    size_t colon = l.find(": ", b);
    size_t comma = colon == std::string::npos ? std::string::npos : l.find(", ", colon);
    if (comma == std::string::npos) return;
    std::string name = trim_copy(l.substr(colon + 2, comma - colon - 2));
    std::string arch;
    // llama.cpp's HIP build prints AMD cards as "compute capability 11.0" too: the name decides.
    const bool amd = lower.find("amd ") != std::string::npos || lower.find("radeon") != std::string::npos ||
                     lower.find("instinct") != std::string::npos;
    if (size_t cc = lower.find("compute capability ", comma); cc != std::string::npos && !amd) {
      size_t e = lower.find_first_of(", ", cc + 19);
      arch = sm_of(std::string_view(lower).substr(cc + 19, e == std::string::npos ? std::string::npos : e - cc - 19));
    } else {
      arch = gfx_at(std::string_view(lower).substr(comma));
    }
    if (arch.empty())
      for (const gpu_name_hit& h : find_gpu_names(name)) arch = h.arch;
    gpu(s, arch, name, i, "llama.cpp");
    s.kind("llama.cpp log");
    return;
  }
  if (size_t p = lower.find("ggml_vulkan: "); p != std::string::npos) {
    size_t eq = l.find(" = ", p);
    if (eq == std::string::npos || !scan::is_digit(l[p + 13])) return;
    std::string name = l.substr(eq + 3, l.find_first_of("(|", eq + 3) == std::string::npos ? std::string::npos
                                                                                     : l.find_first_of("(|", eq + 3) - eq - 3);
    name = trim_copy(name);
    for (const gpu_name_hit& h : find_gpu_names(name)) {
      gpu(s, h.arch, h.text, i, "llama.cpp");
      break;
    }
  }
}

void comfyui(paste_scan& s, size_t i, const std::string& l, const std::string& lower) {
  // ComfyUI's "** Platform: Windows"; transformers-cli env's "- Platform: Windows-10-10.0.22631-SP0".
  for (std::string_view label : {"** Platform:", "Platform:"})
    if (auto v = after_label(l, label)) {
      if (lower_copy(*v).rfind("windows", 0) == 0) s.propose("host.os_id", "windows", i, "text", weight::tool_output);
      return;
    }
  // "Total VRAM 24564 MB, total RAM 65261 MB"
  if (size_t p = lower.find("total ram "); p != std::string::npos && lower.find("total vram ") != std::string::npos) {
    char* end = nullptr;
    unsigned long long mb = std::strtoull(lower.c_str() + p + 10, &end, 10);
    if (mb > 0 && std::string_view(end).rfind(" mb", 0) == 0) {
      s.propose("host.ram_bytes", std::to_string(mb * 1024ull * 1024ull), i, "comfyui", weight::tool_output);
      s.kind("ComfyUI log");
    }
  }
}

/// The version in parentheses or after a cue: "(v0.6.3.post1)" -> "0.6.3.post1".
std::optional<std::string> version_after(const std::string& l, size_t from) {
  size_t q = from;
  while (q < l.size() && (l[q] == ' ' || l[q] == '(' || l[q] == 'v' || l[q] == ':' || l[q] == '=')) ++q;
  if (q >= l.size() || !scan::is_digit(l[q])) return std::nullopt;
  auto v = first_version(std::string_view(l).substr(q));  // from q: "v0.6" has a letter before the digits
  if (!v || l.compare(q, v->size(), *v) != 0) return std::nullopt;
  return v;
}

/// An application's own words about its version, the version of THIS install:
///   vLLM:      "INFO 10-16 00:57:12 api_server.py:528] vLLM API server version 0.6.3.post1",
///              "Initializing an LLM engine (v0.6.1.post2) with config:", "Initializing a V1 LLM engine (v0.9.0.1)"
///              (vllm/entrypoints/openai/api_server.py, vllm/engine/llm_engine.py)
///   Ollama:    "ollama version is 0.5.7" (ollama -v), "Warning: client version is 0.5.7",
///              msg="Listening on 127.0.0.1:11434 (version 0.5.7)" (server/routes.go), "Ollama version: 0.5.7" (its issue form)
///   llama.cpp: "build: 4404 (0827b2c1) with cc ... for x86_64-linux-gnu" (every tool's log),
///              "version: 4404 (0827b2c1)" (--version), "main: build = 1547 (6bb4908)" (2023 builds)
///   ComfyUI:   "ComfyUI version: 0.3.60" (start-up; not "ComfyUI frontend version: 1.26.13")
/// vLLM is a Python package (pkg.vllm); the others are applications (app.*, machine_facts::apps).
void tool_versions(paste_scan& s, size_t i, const std::string& l, const std::string& lower) {
  if (size_t p = lower.find("vllm api server version "); p != std::string::npos) {
    if (auto v = version_after(l, p + 24)) s.propose("pkg.vllm", *v, i, "vllm", weight::tool_output);
  } else if (size_t q = lower.find(" llm engine (v"); q != std::string::npos && lower.find("initializing ") != std::string::npos) {
    if (auto v = version_after(l, q + 13)) s.propose("pkg.vllm", *v, i, "vllm", weight::tool_output);
  }
  for (std::string_view cue : {"ollama version is ", "client version is "})
    if (size_t p = lower.find(cue); p != std::string::npos)
      if (auto v = version_after(l, p + cue.size())) s.propose("app.ollama", *v, i, "ollama", weight::tool_output);
  if (size_t p = lower.find("msg=\"listening on "); p != std::string::npos)
    if (size_t q = lower.find("(version ", p); q != std::string::npos)
      if (auto v = version_after(l, q + 9)) {
        s.propose("app.ollama", *v, i, "ollama", weight::tool_output);
        s.kind("Ollama server log");
      }
  if (auto v = after_label(l, "Ollama version:"))
    if (auto ver = first_version(*v); ver && v->rfind(*ver, 0) == 0) s.propose("app.ollama", *ver, i, "text", weight::labelled);
  // llama.cpp numbers its builds (b4404); a build line names the commit after the number.
  auto llama_build = [&](size_t from) {
    size_t e = from;
    while (e < l.size() && scan::is_digit(l[e])) ++e;
    if (e == from || l.compare(e, 2, " (") != 0) return;
    s.propose("app.llama.cpp", l.substr(from, e - from), i, "llama.cpp", weight::tool_output);
    s.kind("llama.cpp log");
  };
  if (size_t p = lower.find("build: "); p != std::string::npos && lower.find(" with ", p) != std::string::npos && (p == 0 || l[p - 1] == ' '))
    llama_build(p + 7);
  else if (size_t b = lower.find("main: build = "); b != std::string::npos)
    llama_build(b + 14);
  else if (auto v = after_label(l, "version: "); v && i + 1 < s.lines.size() && s.lines[i + 1].find("built with ") != std::string::npos)
    llama_build(l.find(*v));
  if (auto v = after_label(l, "ComfyUI version:"))
    if (auto ver = first_version(*v); ver && v->rfind(*ver, 0) == 0) s.propose("app.comfyui", *ver, i, "comfyui", weight::tool_output);
}

void windows_python(paste_scan& s, size_t i, const std::string& l) {
  // sys.version of a Windows CPython: "3.12.7 (tags/v3.12.7:0b05ead, Oct  1 2024) [MSC v.1941 64 bit (AMD64)]".
  if (l.find("[MSC v.") != std::string::npos) s.propose("host.os_id", "windows", i, "python", weight::tool_output);
}

}  // namespace

void scan_app_log_line(paste_scan& s, size_t i, const std::string& l, const std::string& lower) {
  ollama(s, i, l, lower);
  llama_cpp(s, i, l, lower);
  comfyui(s, i, l, lower);
  windows_python(s, i, l);
  tool_versions(s, i, l, lower);
}

}  // namespace gs
