// Facts from the outputs of tools people paste: `python -m torch.utils.collect_env`,
// `transformers env` / `accelerate env`, rocminfo, rocm-smi, amd-smi, nvidia-smi (table and
// -q), clinfo and `vulkaninfo --summary`. Labels are the tools' own (torch/utils/collect_env.py,
// rocminfo.cc, nvidia-smi's layout); each is looked for by a cheap prefix test on every line.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

#include "explain/gpu_names.h"
#include "core/text_scan.h"
#include "explain/paste_scan.h"

namespace gs {
namespace {

bool unknown_value(std::string_view v) {
  std::string l = lower_copy(trim_copy(v));
  return l.empty() || l == "n/a" || l == "none" || l == "could not collect" || l == "not installed" || l == "no" ||
         l == "no cuda" || l == "no hip" || l == "nan";
}

void propose_gpu(paste_scan& s, std::string arch, std::string name, size_t i, std::string_view from, int w) {
  if (arch.empty()) {
    std::vector<gpu_name_hit> hits = find_gpu_names(name);
    if (hits.empty()) return;
    arch = hits.front().arch;
  }
  s.gpus.push_back({arch, trim_copy(name), i, std::string(from), w});
}

/// "gfx1100" / "gfx90a" / "gfx1201" at the start of `v` (lower case), "" when not one.
std::string gfx_token(std::string_view v) {
  std::string l = lower_copy(trim_copy(v));
  if (l.rfind("gfx", 0) != 0) return "";
  size_t e = 3;
  while (e < l.size() && std::isalnum(static_cast<unsigned char>(l[e]))) ++e;
  return e >= 6 ? l.substr(0, e) : "";
}

/// rocm-smi's "GFX Version" prints major, minor and stepping as decimals run together:
/// gfx11000 is 11.0.00 (gfx1100), gfx12001 is gfx1201, gfx9010 is 9.0.10 (gfx90a), gfx9402 is gfx942.
/// `t` is gfx_token's answer, "" when the value was no gfx name.
std::string decode_rocm_smi_gfx(const std::string& t) {
  if (t.rfind("gfx", 0) != 0) return t;
  std::string d = t.substr(3);
  if (!std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) return t;
  auto hexstep = [](const std::string& s) {
    int v = std::stoi(s);
    return std::string(1, "0123456789abcdef"[v & 15]);
  };
  if (d.size() == 5) return "gfx" + d.substr(0, 2) + d.substr(2, 1) + hexstep(d.substr(3));
  if (d.size() == 4 && d[0] == '9') return "gfx9" + d.substr(1, 1) + hexstep(d.substr(2));
  return t;
}

/// "1.8 (https://download.pytorch.org/whl/rocm4.0.1/torch-1.8.0%2Brocm4.0.1-cp39-...whl)": the
/// wheel's own name, read with every other .whl (extract_packages), says more than "1.8" (its
/// +rocm label), so the label's short version is left out.
bool names_its_wheel(std::string_view value) { return value.find(".whl") != std::string_view::npos; }

void collect_env(paste_scan& s, size_t i, const std::string& padded) {
  const char* k = "collect_env";
  const std::string l = unpad_label(padded);
  if (auto v = after_label(l, "PyTorch version:")) {
    if (l.find("PyTorch version:") != std::string::npos) s.kind(k);  // ComfyUI prints "pytorch version:"
    // An issue form's "PyTorch Version: 1.8 (https://...)" carries more than the version.
    if (auto ver = first_version(*v); ver && !unknown_value(*v) && v->rfind(*ver, 0) == 0 && !names_its_wheel(*v)) {
      s.propose("pkg.torch", *ver, i, k, weight::tool_output);
      note_torch_build(s, *ver, i, k, weight::tool_output);
    }
  } else if (auto v = after_label(l, "CUDA used to build PyTorch:")) {
    // "None": torch imported and has no CUDA (a CPU or ROCm build); "N/A" / "Could not collect":
    // torch did not import, which says nothing about its build.
    if (lower_copy(*v) == "none") s.torch_build_seen = true;
    if (!unknown_value(*v)) {
      s.torch_build_seen = true;
      s.propose("torch.cuda", *v, i, k, weight::tool_output);
    }
  } else if (auto v = after_label(l, "ROCM used to build PyTorch:")) {
    if (!unknown_value(*v)) {
      s.torch_build_seen = true;
      s.propose("torch.hip", hip_major_minor(*v), i, k, weight::tool_output);
    }
  } else if (auto v = after_label(l, "OS:")) {
    s.propose("host.os_pretty", *v, i, k, weight::tool_output);
  } else if (auto v = after_label(l, "Python version:")) {
    if (auto pv = first_version(*v)) s.propose("python.version", *pv, i, k, weight::tool_output);
  } else if (auto v = after_label(l, "CUDA runtime version:")) {
    if (!unknown_value(*v)) s.propose("cuda.toolkit", cuda_api_integer(*v).value_or(*v), i, k, weight::tool_output);
  } else if (auto v = after_label(l, "Nvidia driver version:")) {
    if (!unknown_value(*v)) s.propose("nvidia.driver", *v, i, k, weight::tool_output);
  } else if (auto v = after_label(l, "GPU models and configuration:")) {
    // "GPU 0: NVIDIA H200" on this line and "GPU 1: ..." on the next ones; on ROCm
    // "AMD Radeon RX 7900 XTX (gfx1100)".
    s.gpu_list = s.gpu_list || !unknown_value(*v);
    // Several GPUs on the one line too: "AMD Radeon RX 7900 XTX (gfx1100); AMD Radeon Graphics (gfx1036)".
    std::vector<std::string> entries;
    for (std::string_view part : scan::split(*v, ';'))
      if (std::string one = trim_copy(std::string(part)); !one.empty()) entries.push_back(one);
    if (entries.empty()) entries.push_back(*v);
    const size_t on_the_line = entries.size();
    for (size_t j = i + 1; j < s.lines.size() && j < i + 16; ++j) {
      std::string t = trim_copy(s.lines[j]);
      if (t.rfind("GPU ", 0) != 0) break;
      entries.push_back(t);
    }
    for (size_t e = 0; e < entries.size(); ++e) {
      std::string name = entries[e];
      if (name.rfind("GPU ", 0) == 0 && name.find(':') != std::string::npos) name = trim_copy(name.substr(name.find(':') + 1));
      if (unknown_value(name)) continue;
      std::string arch;
      if (size_t p = name.find("(gfx"); p != std::string::npos) arch = gfx_token(name.substr(p + 1));
      propose_gpu(s, arch, name, e < on_the_line ? i : i + e - on_the_line + 1, k, weight::tool_output);
    }
  }
}

/// `transformers env`, `accelerate env`, `peft`'s and trl's: "- `transformers` version: 4.46.2",
/// "- PyTorch version (GPU?): 2.5.1+cu124 (True)", "- GPU type: NVIDIA A100-SXM4-80GB".
void hf_env(paste_scan& s, size_t i, const std::string& l) {
  std::string t = trim_copy(l);
  if (t.rfind("- ", 0) == 0) {
    t = t.substr(2);
  } else {
    // The same report pasted without its "- " bullets: only its own labels count then.
    static constexpr std::string_view own[] = {"`transformers` version:", "transformers version:", "huggingface_hub version:",
                                               "safetensors version:", "accelerate version:", "`accelerate` version:",
                                               "pytorch version (gpu?):", "tensorflow version (gpu?):", "gpu type:",
                                               "`diffusers` version:", "diffusers version:", "peft version:", "trl version:"};
    std::string lt = lower_copy(t);
    if (std::none_of(std::begin(own), std::end(own), [&](std::string_view o) { return lt.rfind(o, 0) == 0; })) return;
  }
  size_t colon = t.find(':');
  if (colon == std::string::npos) return;
  std::string label = lower_copy(t.substr(0, colon)), value = trim_copy(t.substr(colon + 1));
  const char* k = "transformers env";
  auto strip = [](std::string x) {
    std::string out;
    for (char c : x)
      if (c != '`') out += c;
    return trim_copy(out);
  };
  label = strip(label);
  if (label == "gpu type") {
    s.kind(k);
    propose_gpu(s, "", value, i, k, weight::labelled);
  } else if (label.size() > 8 && label.compare(label.size() - 8, 8, " version") == 0) {
    std::string name = label.substr(0, label.size() - 8);
    if (size_t p = name.find(" version"); p != std::string::npos) name = name.substr(0, p);
    if (label.find("(gpu?)") != std::string::npos) name = label.substr(0, label.find(" version"));
    auto v = first_version(value);
    if (!v) return;
    s.kind(k);
    if (name == "pytorch") {
      if (names_its_wheel(value)) return;
      s.propose("pkg.torch", *v, i, k, weight::labelled);
      note_torch_build(s, *v, i, k, weight::labelled);
    } else if (name == "python") {
      s.propose("python.version", *v, i, k, weight::labelled);
    } else if (name.find(' ') == std::string::npos) {
      s.propose("pkg." + name, *v, i, k, weight::labelled);
    }
  } else if (label.find("pytorch version") == 0) {
    if (auto v = first_version(value)) {
      s.kind(k);
      s.propose("pkg.torch", *v, i, k, weight::labelled);
      note_torch_build(s, *v, i, k, weight::labelled);
    }
  }
}

void rocminfo(paste_scan& s, size_t i, const std::string& l) {
  const char* k = "rocminfo";
  std::string t = trim_copy(l);
  if (t.rfind("ROCk module", 0) == 0 || t == "HSA Agents" || t.rfind("HSA System Attributes", 0) == 0) s.kind(k);
  // "  Name:                    gfx1100": one per GPU agent (the ISA lines say "amdgcn-amd-amdhsa--gfx1100").
  if (auto v = after_label(l, "Name:")) {
    std::string arch = gfx_token(*v);
    if (arch.empty() || arch != lower_copy(*v)) return;
    s.kind(k);
    s.gpu_list = true;
    std::string name;
    for (size_t j = i + 1; j < s.lines.size() && j < i + 8; ++j)
      if (auto m = after_label(s.lines[j], "Marketing Name:")) {
        name = *m;
        break;
      }
    propose_gpu(s, arch, name.empty() ? arch : name, i, k, weight::tool_output);
  }
}

/// The cells of a boxed table row ("| a | b | c |" -> "a", "b", "c"), trimmed.
std::vector<std::string> smi_cells(const std::string& row) {
  std::vector<std::string> out;
  std::string t = trim_copy(row);
  if (t.size() < 2 || t.front() != '|') return out;
  for (std::string_view c : scan::split(std::string_view(t).substr(1, t.back() == '|' ? t.size() - 2 : std::string::npos), '|'))
    out.push_back(trim_copy(c));
  return out;
}

/// nvidia-smi's compute mode as NVML names it: the table says "Default", "E. Process", "E. Thread",
/// "Prohibited"; -q says "Exclusive_Process". "" for anything else.
std::string smi_compute_mode(std::string_view v) {
  std::string l = lower_copy(trim_copy(v));
  if (l == "default") return "Default";
  if (l == "e. process" || l == "exclusive_process") return "Exclusive_Process";
  if (l == "e. thread" || l == "exclusive_thread") return "Exclusive_Thread";
  if (l == "prohibited") return "Prohibited";
  return "";
}

/// The state nvidia-smi's table shows for the GPU whose name row is `j` (layout of driver 450 on):
///   |   0  NVIDIA GeForce RTX 4070        Off |   00000000:2D:00.0  On |                  N/A |
///   |  0%   36C    P5             17W /  200W |     430MiB /  12282MiB |      1%      Default |
///   |                                         |                        |                  N/A |
/// name row: persistence mode (On/Off; Windows prints the driver model, WDDM or TCC, there) and
/// the volatile uncorrected ECC count ("N/A": ECC off or absent); next row: the compute mode after
/// the utilisation; the third row, on MIG-capable drivers: the MIG mode (Enabled/Disabled/N/A).
/// Columns with "ERR!" or "Unknown Error" are left unset.
card_state smi_row_state(const paste_scan& s, size_t j) {
  card_state c;
  std::vector<std::string> name_row = smi_cells(s.lines[j]);
  if (name_row.size() >= 3) {
    std::string last = name_row[0].substr(name_row[0].find_last_of(' ') + 1);
    if (last == "On" || last == "Off") c.persistence_mode = last == "On";
    if (auto n = scan::parse_u64(name_row[2])) {
      c.ecc_enabled = true;
      c.ecc_uncorrected = double(*n);
    }
  }
  if (j + 1 < s.lines.size()) {
    std::vector<std::string> use_row = smi_cells(s.lines[j + 1]);
    if (use_row.size() >= 3) {
      size_t pct = use_row[2].find('%');
      std::string mode = smi_compute_mode(pct == std::string::npos ? use_row[2] : use_row[2].substr(pct + 1));
      c.compute_mode = mode;
    }
  }
  if (j + 2 < s.lines.size()) {
    std::vector<std::string> mig_row = smi_cells(s.lines[j + 2]);
    if (mig_row.size() >= 3 && mig_row[0].empty() && mig_row[1].empty()) {
      if (mig_row[2] == "Enabled") c.mig_enabled = true;
      if (mig_row[2] == "Disabled") c.mig_enabled = false;
    }
  }
  return c;
}

void nvidia_smi(paste_scan& s, size_t i, const std::string& l) {
  // "| NVIDIA-SMI 550.54.14    Driver Version: 550.54.14    CUDA Version: 12.4     |"; drivers
  // from 610 on say "KMD Version: 610.57.04     CUDA UMD Version: 13.3".
  size_t drv = l.find("Driver Version:");
  if (drv == std::string::npos) drv = l.find("KMD Version:");
  if (l.find("NVIDIA-SMI ") != std::string::npos && drv != std::string::npos) {
    const char* k = "nvidia-smi";
    s.kind(k);
    s.gpu_list = true;
    if (auto v = first_version(l, drv)) s.propose("nvidia.driver", *v, i, k, weight::tool_output);
    size_t c = l.find("CUDA Version:");
    if (c == std::string::npos) c = l.find("CUDA UMD Version:");
    if (c != std::string::npos)
      if (auto v = first_version(l, c)) s.propose("cuda.driver_api", *v, i, k, weight::tool_output);
    // GPU rows follow the header: "|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0  On |"
    for (size_t j = i + 1; j < s.lines.size() && j < i + 64; ++j) {
      std::string r = trim_copy(s.lines[j]);
      if (r.rfind("| Processes", 0) == 0 || r.rfind("|  Processes", 0) == 0) break;
      if (r.size() < 6 || r[0] != '|') continue;
      std::string cell = trim_copy(r.substr(1, r.find('|', 1) == std::string::npos ? std::string::npos : r.find('|', 1) - 1));
      if (cell.empty() || !std::isdigit(static_cast<unsigned char>(cell[0]))) continue;
      size_t sp = cell.find(' ');
      if (sp == std::string::npos) continue;
      std::string name = trim_copy(cell.substr(sp));
      // The name row ends in the persistence mode on Linux and in the driver model on Windows
      // ("NVIDIA GeForce RTX 4090      WDDM"): a WDDM or TCC driver model is a Windows host.
      for (std::string_view suffix : {" On", " Off", " WDDM", " TCC"})
        if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
          name = trim_copy(name.substr(0, name.size() - suffix.size()));
          if (suffix == " WDDM" || suffix == " TCC") s.propose("host.os_id", "windows", j, k, weight::labelled);
        }
      if (name.find("NVIDIA") != std::string::npos || name.find("Tesla") != std::string::npos ||
          name.find("GeForce") != std::string::npos || name.find("Quadro") != std::string::npos) {
        propose_gpu(s, "", name, j, k, weight::tool_output);
        s.cards[j] = smi_row_state(s, j);
      }
    }
    return;
  }
  // nvidia-smi -q: "Driver Version                            : 580.159.04"
  std::string t = trim_copy(l);
  if (t.find("NVSMI LOG") != std::string::npos) s.kind("nvidia-smi -q");
  size_t colon = t.find(" : ");
  if (colon == std::string::npos) return;
  std::string label = trim_copy(t.substr(0, colon)), value = trim_copy(t.substr(colon + 3));
  const char* k = "nvidia-smi -q";
  if (label == "Driver Version") {
    s.kind(k);
    s.propose("nvidia.driver", value, i, k, weight::tool_output);
  } else if (label == "CUDA Version") {
    s.propose("cuda.driver_api", value, i, k, weight::tool_output);
  } else if (label == "Product Name") {
    s.kind(k);
    s.gpu_list = true;
    propose_gpu(s, "", value, i, k, weight::tool_output);
    s.cards[i] = card_state{};
  } else if (s.cards.empty() || s.gpus.empty() || s.gpus.back().from != k) {
    return;
  } else if (card_state& c = s.cards[s.gpus.back().line]; label == "Compute Mode") {
    // The state lines of the GPU block whose "Product Name" came last.
    c.compute_mode = smi_compute_mode(value);
  } else if (label == "Persistence Mode") {
    if (value == "Enabled" || value == "Disabled") c.persistence_mode = value == "Enabled";
  } else if (label == "Current" && i > 0 && trim_copy(s.lines[i - 1]) == "MIG Mode") {
    if (value == "Enabled" || value == "Disabled") c.mig_enabled = value == "Enabled";
  }
}

/// `nvidia-smi --query-gpu=index,name,driver_version,compute_cap,compute_mode --format=csv`, the
/// query GS-NV-200's fix asks for: a header of the asked fields ("index, name, driver_version,
/// compute_cap, compute_mode", units after a space: "memory.total [MiB]"), then one row per GPU.
void nvidia_smi_query_csv(paste_scan& s, size_t i, const std::string& l) {
  if (l.find("driver_version") == std::string::npos && l.find("compute_mode") == std::string::npos &&
      l.find("compute_cap") == std::string::npos)
    return;
  std::vector<std::string> head;
  for (std::string_view f : scan::split(l, ',')) head.push_back(trim_copy(f.substr(0, f.find(" ["))));
  auto col = [&](std::string_view name) -> size_t { return std::find(head.begin(), head.end(), name) - head.begin(); };
  // Every field is a query name (lower case, dots and underscores): not a sentence naming one.
  for (const std::string& h : head)
    if (h.empty() || !std::all_of(h.begin(), h.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)) || c == '.' || c == '_'; }))
      return;
  const char* k = "nvidia-smi --query-gpu";
  for (size_t j = i + 1; j < s.lines.size() && j < i + 17; ++j) {
    std::vector<std::string> row;
    for (std::string_view f : scan::split(s.lines[j], ',')) row.push_back(trim_copy(f));
    if (row.size() != head.size()) break;
    s.kind(k);
    auto cell = [&](std::string_view name) { return col(name) < row.size() ? row[col(name)] : std::string(); };
    if (std::string d = cell("driver_version"); !d.empty() && !unknown_value(d)) s.propose("nvidia.driver", d, j, k, weight::tool_output);
    std::string arch;
    if (std::string cc = cell("compute_cap"); cc.size() >= 3 && cc.find('.') != std::string::npos)
      arch = "sm_" + cc.substr(0, cc.find('.')) + cc.substr(cc.find('.') + 1);
    std::string name = cell("name");
    if (arch.empty() && name.empty()) continue;
    size_t before = s.gpus.size();
    propose_gpu(s, arch, name.empty() ? arch : name, j, k, weight::tool_output);
    if (s.gpus.size() > before) s.cards[j].compute_mode = smi_compute_mode(cell("compute_mode"));
  }
}

void amd_smi_and_others(paste_scan& s, size_t i, const std::string& l) {
  std::string t = trim_copy(l);
  // amd-smi static: "MARKET_NAME: AMD Radeon RX 7900 XTX", "TARGET_GRAPHICS_VERSION: gfx1100";
  // amd-smi version: "... | ROCm version: 6.2.1"
  if (auto v = after_label(t, "TARGET_GRAPHICS_VERSION:")) {
    s.kind("amd-smi");
    s.gpu_list = true;
    std::string name;
    for (size_t j = (i > 12 ? i - 12 : 0); j < s.lines.size() && j < i + 12; ++j)
      if (auto m = after_label(s.lines[j], "MARKET_NAME:")) name = *m;
    propose_gpu(s, gfx_token(*v), name.empty() ? gfx_token(*v) : name, i, "amd-smi", weight::tool_output);
  }
  // "AMDSMI Tool: 24.7.1+... | AMDSMI Library version: 24.7.1.0 | ROCm version: 6.3.1": the ROCm
  // install's version, not "PyTorch hip/ROCm version" that scripts print.
  if (t.find("AMDSMI") != std::string::npos) s.kind("amd-smi");
  if (size_t p = t.find("ROCm version:"); p != std::string::npos && lower_copy(t).find("torch") == std::string::npos &&
                                         (t.find("AMDSMI") != std::string::npos || p == 0))
    if (auto v = first_version(t, p)) s.propose("rocm.version", *v, i, "amd-smi", weight::tool_output);
  if (auto v = after_label(t, "OS_KERNEL_VERSION:")) s.propose("host.kernel", *v, i, "amd-smi", weight::tool_output);
  // rocm-smi --showproductname: "GPU[0]          : GFX Version:          gfx1100"
  if (t.find("ROCm System Management Interface") != std::string::npos || t.find("ROCm SMI") != std::string::npos) s.kind("rocm-smi");
  if (size_t p = t.find("GFX Version:"); p != std::string::npos) {
    s.kind("rocm-smi");
    std::string arch = decode_rocm_smi_gfx(gfx_token(t.substr(p + 12)));
    if (!arch.empty()) propose_gpu(s, arch, arch, i, "rocm-smi", weight::tool_output);
  }
  if (size_t p = t.find("\"GFX Version\": \""); p != std::string::npos) {
    s.kind("rocm-smi");
    std::string arch = decode_rocm_smi_gfx(gfx_token(t.substr(p + 16)));
    if (!arch.empty()) propose_gpu(s, arch, arch, i, "rocm-smi", weight::tool_output);
  }
  // clinfo: "  Device Name                                     gfx1100" / "Board name  AMD Radeon ..."
  if (t.rfind("Number of platforms", 0) == 0) s.kind("clinfo");
  if (auto v = after_label(t, "Device Name")) {
    std::string arch = gfx_token(*v);
    if (!arch.empty()) {
      s.kind("clinfo");
      std::string name;
      for (size_t j = i + 1; j < s.lines.size() && j < i + 6; ++j)
        if (auto m = after_label(s.lines[j], "Board name")) name = *m;
      propose_gpu(s, arch, name.empty() ? arch : name, i, "clinfo", weight::tool_output);
    }
  }
  // vulkaninfo --summary: "deviceName         = AMD Radeon RX 7900 XTX (RADV NAVI31)"
  if (t.find("VULKANINFO") != std::string::npos || t.rfind("Vulkan Instance Version", 0) == 0) s.kind("vulkaninfo");
  if (auto v = after_label(t, "deviceName")) {
    if (!v->empty() && (*v)[0] == '=') {
      s.kind("vulkaninfo");
      propose_gpu(s, "", trim_copy(v->substr(1)), i, "vulkaninfo", weight::tool_output);
    }
  }
}

/// The installed ROCm as its own files and package managers say it:
///   `cat /opt/rocm/.info/version` -> "6.2.0-66" on the next line; `hipconfig --version` ->
///   "6.2.41133-dd7f95766" (HIP's version is the ROCm release's major.minor);
///   `apt list --installed` -> "rocm-core/jammy,now 6.2.0.60200-66~22.04 amd64 [installed]";
///   `dpkg -l` -> "ii  rocm-core  6.2.0.60200-66~22.04  amd64  ...".
void installed_rocm(paste_scan& s, size_t i, const std::string& l) {
  const std::string t = trim_copy(l);
  auto next_line_version = [&]() -> std::optional<std::string> {
    if (i + 1 >= s.lines.size()) return std::nullopt;
    std::string n = trim_copy(s.lines[i + 1]);
    auto v = first_version(n);
    if (!v || n.rfind(*v, 0) != 0) return std::nullopt;  // the whole next line is the version
    return v;
  };
  auto major_minor_patch = [](const std::string& v) {
    std::string out;
    int dots = 0;
    for (char c : v) {
      if (c == '.' && ++dots == 3) break;
      if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') break;
      out += c;
    }
    return out;
  };
  if (t.find("/opt/rocm") != std::string::npos && t.find(".info/version") != std::string::npos) {
    if (auto v = next_line_version()) s.propose("rocm.version", major_minor_patch(*v), i + 1, "rocm .info/version", weight::tool_output);
    return;
  }
  // hipcc --version / hipconfig --full: "HIP version: 6.2.41133-dd7f95766" (the installed HIP,
  // whose major.minor is the ROCm release from ROCm 3 on; the HIP 1.5 of ROCm 2's hipconfig is
  // not a ROCm number, justxi/rocm#78); not collect_env's "HIP runtime version", torch's own build.
  if (auto v = after_label(unpad_label(t), "HIP version:"); v && !v->empty() && std::isdigit(static_cast<unsigned char>((*v)[0])) &&
                                                          std::atoi(v->c_str()) >= 3) {
    s.propose("rocm.version", hip_major_minor(*v), i, "hipcc", weight::labelled);
    return;
  }
  // `uname -r` and its answer on the next line: "6.8.0-49-generic".
  if (t.ends_with("uname -r") && i + 1 < s.lines.size()) {
    std::string k = trim_copy(s.lines[i + 1]);
    if (auto v = first_version(k); v && *v == k && k.find('.') != std::string::npos) s.propose("host.kernel", k, i + 1, "uname -r", weight::tool_output);
    return;
  }
  if (t.find("hipconfig --version") != std::string::npos || t.find("hipconfig -v") != std::string::npos) {
    if (auto v = next_line_version()) s.propose("rocm.version", hip_major_minor(*v), i + 1, "hipconfig", weight::labelled);
    return;
  }
  // The release being installed: AMD's installer package "amdgpu-install_6.2.60204-1_all.deb"
  // (its third field packs major*10000 + minor*100 + patch: 60204 is ROCm 6.2.4) and the
  // repository paths "repo.radeon.com/rocm/apt/6.2.4", ".../rocm/rhel9/6.2.4",
  // ".../amdgpu-install/6.2.4/". Not ".../amdgpu/X/": from ROCm 7 the driver has its own numbers.
  if (size_t p = t.find("amdgpu-install_"); p != std::string::npos) {
    const size_t q = p + 15;
    const size_t e = t.find_first_not_of("0123456789.", q);
    const std::string v = t.substr(q, e == std::string::npos ? std::string::npos : e - q);  // "6.2.60204"
    const std::string packed = v.substr(v.rfind('.') + 1);
    if (std::count(v.begin(), v.end(), '.') == 2 && packed.size() == 5) {
      const int n = std::stoi(packed);
      s.propose("rocm.version", std::to_string(n / 10000) + "." + std::to_string(n / 100 % 100) + "." + std::to_string(n % 100), i,
                "amdgpu-install", weight::labelled);
      return;
    }
  }
  for (std::string_view repo : {"repo.radeon.com/rocm/apt/", "repo.radeon.com/rocm/rhel", "repo.radeon.com/rocm/el",
                                "repo.radeon.com/rocm/zyp/", "repo.radeon.com/amdgpu-install/"}) {
    size_t p = t.find(repo);
    if (p == std::string::npos) continue;
    size_t q = p + repo.size();
    if (repo.back() != '/') q = t.find('/', q) == std::string::npos ? t.size() : t.find('/', q) + 1;  // "rhel9/"
    if (q < t.size() && std::isdigit(static_cast<unsigned char>(t[q])))
      if (auto v = first_version(t, q); v && t.compare(q, v->size(), *v) == 0 && v->find('.') != std::string::npos)
        s.propose("rocm.version", major_minor_patch(*v), i, "repo.radeon.com", weight::labelled);
    return;
  }
  for (std::string_view pkg : {"rocm-core/", "rocm-core ", "rocm-libs/", "rocm-libs "}) {
    size_t p = t.find(pkg);
    if (p == std::string::npos || (p > 0 && t[p - 1] != ' ')) continue;
    bool apt = pkg.back() == '/' && t.find(",now ") != std::string::npos;
    bool dpkg = pkg.back() == ' ' && t.rfind("ii ", 0) == 0;
    if (!apt && !dpkg) continue;
    size_t from = apt ? t.find(",now ") + 5 : p + pkg.size();
    if (auto v = first_version(t, from)) s.propose("rocm.version", major_minor_patch(*v), i, apt ? "apt" : "dpkg", weight::tool_output);
    return;
  }
}

}  // namespace

void scan_tool_outputs(paste_scan& s) {
  for (size_t i = 0; i < s.lines.size(); ++i) {
    const std::string& l = s.lines[i];
    if (l.empty() || l.size() > 2048) continue;
    collect_env(s, i, l);
    hf_env(s, i, l);
    rocminfo(s, i, l);
    nvidia_smi(s, i, l);
    nvidia_smi_query_csv(s, i, l);
    amd_smi_and_others(s, i, l);
    installed_rocm(s, i, l);
  }
}

}  // namespace gs
