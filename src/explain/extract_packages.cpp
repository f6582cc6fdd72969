// Package versions from pasted lists and mentions: `pip list` / `uv pip list` tables,
// `pip freeze` lines, `conda list`, collect_env's "[pip3] torch==2.5.1" / "[conda] ..." lines,
// and prose such as "bitsandbytes 0.45.0", "torch==2.6.0+rocm6.2", "transformers v4.46".
// A whole list (a table or freeze of 10+ packages, or a conda list) makes the package facts
// complete: a package it lacks is known to be absent.
#include <algorithm>
#include <cctype>

#include "core/text_scan.h"
#include "explain/paste_scan.h"
#include "python/pep503.h"

namespace gs {
namespace {

/// Names whose bare mention in prose ("I use bitsandbytes 0.43") is worth reading; anything
/// else needs a list's structure. Alias -> distribution.
constexpr std::pair<std::string_view, std::string_view> kMentioned[] = {
    {"pytorch-triton-rocm", "pytorch-triton-rocm"}, {"flash-linear-attention", "flash-linear-attention"},
    {"torchvision", "torchvision"}, {"torchaudio", "torchaudio"}, {"pytorch", "torch"}, {"torch", "torch"},
    {"bitsandbytes", "bitsandbytes"}, {"transformers", "transformers"}, {"accelerate", "accelerate"},
    {"peft", "peft"}, {"trl", "trl"}, {"triton", "triton"}, {"vllm", "vllm"}, {"flash-attn", "flash-attn"},
    {"flash_attn", "flash-attn"}, {"xformers", "xformers"}, {"causal-conv1d", "causal-conv1d"},
    {"causal_conv1d", "causal-conv1d"}, {"mamba-ssm", "mamba-ssm"}, {"mamba_ssm", "mamba-ssm"}, {"fla-core", "fla-core"},
    {"deepspeed", "deepspeed"}, {"unsloth", "unsloth"}, {"llama-cpp-python", "llama-cpp-python"},
    {"onnxruntime-rocm", "onnxruntime-rocm"}, {"onnxruntime-gpu", "onnxruntime-gpu"}, {"torchao", "torchao"},
    {"tilelang", "tilelang"}, {"diffusers", "diffusers"}, {"numpy", "numpy"}, {"jaxlib", "jaxlib"}, {"jax", "jax"},
    {"tensorflow-gpu", "tensorflow"}, {"tensorflow", "tensorflow"}, {"onnxruntime", "onnxruntime"}, {"sglang", "sglang"},
    {"tensorrt-llm", "tensorrt-llm"}, {"tensorrt_llm", "tensorrt-llm"}, {"tensorrt", "tensorrt"}, {"axolotl", "axolotl"},
    {"liger-kernel", "liger-kernel"}, {"liger_kernel", "liger-kernel"}};

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

bool looks_like_version(std::string_view v) {
  return !v.empty() && std::isdigit(static_cast<unsigned char>(v[0])) && v.find('.') != std::string_view::npos;
}

/// conda's pytorch build strings say what torch was built for, as pip's "+cu102" label does:
/// "py3.7_cuda10.2_cudnn7.6.5_0" (pytorch channel), "cuda118_py310h..." / "cuda120py311h..."
/// (conda-forge), "py3.10_cpu_0" / "cpu_py310h...", "py3.10_rocm5.4.2_0".
bool is_conda_torch(std::string_view name) { return name == "pytorch" || name == "torch" || name == "pytorch-gpu"; }

void conda_torch_build(paste_scan& s, std::string_view build, size_t i, std::string_view from, int w) {
  std::string b = lower_copy(build);
  if (size_t p = b.find("cuda"); p != std::string::npos && p + 4 < b.size() && std::isdigit(static_cast<unsigned char>(b[p + 4]))) {
    size_t e = p + 4;
    while (e < b.size() && (std::isdigit(static_cast<unsigned char>(b[e])) || b[e] == '.')) ++e;
    std::string d = b.substr(p + 4, e - p - 4);
    if (d.find('.') == std::string::npos && d.size() >= 3) d = cuda_of_tag_digits(d);  // "118" -> "11.8"
    if (auto v = first_version(d)) {
      s.propose("torch.cuda", *v, i, from, w - 1);
      s.torch_build_seen = true;
    }
  } else if (size_t r = b.find("rocm"); r != std::string::npos) {
    if (auto v = first_version(b.substr(r + 4))) s.propose("torch.hip", hip_major_minor(*v), i, from, w - 1);
    s.torch_build_seen = true;
  } else if (b.rfind("cpu", 0) == 0 || b.find("_cpu") != std::string::npos) {
    s.torch_build_seen = true;
  }
}

void propose_pkg(paste_scan& s, std::string name, const std::string& ver, size_t i, std::string_view from, int w) {
  name = pep503_normalize(name);
  if (name == "pytorch") name = "torch";
  if (name == "python" || name == "cpython") {  // conda lists the interpreter as a package
    s.propose("python.version", ver, i, from, w);
    return;
  }
  s.propose("pkg." + name, ver, i, from, w);
  if (name == "torch") note_torch_build(s, ver, i, from, w);
}

/// "name==version" (pip freeze, [pip3] lines); "name @ file://..." carries no version.
bool freeze_line(paste_scan& s, size_t i, std::string_view t, std::string_view from, int w) {
  size_t eq = t.find("==");
  if (eq == std::string_view::npos || eq == 0) return false;
  std::string_view name = t.substr(0, eq);
  if (!std::all_of(name.begin(), name.end(), name_char)) return false;
  std::string ver = trim_copy(t.substr(eq + 2));
  if (ver.find(' ') != std::string::npos || !looks_like_version(ver)) return false;
  propose_pkg(s, std::string(name), ver, i, from, w);
  return true;
}

/// "Package    Version" then "---------- -------" then rows (pip list, uv pip list).
size_t pip_table(paste_scan& s, size_t i) {
  std::vector<std::string_view> head = scan::fields(s.lines[i]);
  if (head.size() < 2 || lower_copy(head[0]) != "package" || lower_copy(head[1]) != "version") return i;
  size_t j = i + 1;
  if (j < s.lines.size() && s.lines[j].find("---") != std::string::npos) ++j;
  size_t rows = 0;
  bool saw_pip = false;
  for (; j < s.lines.size(); ++j) {
    std::vector<std::string_view> c = scan::fields(s.lines[j]);
    if (c.size() < 2 || !std::all_of(c[0].begin(), c[0].end(), name_char) || !std::isdigit(static_cast<unsigned char>(c[1][0])))
      break;
    propose_pkg(s, std::string(c[0]), std::string(c[1]), j, "pip list", weight::tool_output);
    saw_pip = saw_pip || c[0] == "pip" || c[0] == "setuptools";
    ++rows;
  }
  if (rows > 0) s.kind("pip list");
  // Whole only when it looks whole: a full `pip list` always names pip or setuptools; a list cut
  // to the lines someone thought relevant would make every package it lacks look absent.
  if (rows >= 20 && saw_pip) s.package_list = true;
  return j;
}

/// "# packages in environment at /home/user/miniconda3/envs/x:" then "name version build channel".
size_t conda_list(paste_scan& s, size_t i) {
  if (s.lines[i].find("# packages in environment at") == std::string::npos) return i;
  s.kind("conda list");
  s.package_list = true;
  size_t j = i + 1;
  for (; j < s.lines.size(); ++j) {
    std::string t = trim_copy(s.lines[j]);
    if (t.empty() || t[0] == '#') continue;
    std::vector<std::string_view> c = scan::fields(t);
    if (c.size() < 2 || !std::isdigit(static_cast<unsigned char>(c[1][0]))) break;
    propose_pkg(s, std::string(c[0]), std::string(c[1]), j, "conda list", weight::tool_output);
    if (c.size() >= 3 && is_conda_torch(c[0])) conda_torch_build(s, c[2], j, "conda list", weight::tool_output);
  }
  return j;
}

/// What pip itself says while installing: "Successfully installed torch-2.5.1 triton-3.1.0",
/// "Requirement already satisfied: torch in ./venv/lib/python3.10/site-packages (2.5.1+cu124)",
/// and wheel file names ("torch-2.5.1+rocm6.2-cp310-cp310-linux_x86_64.whl").
bool pip_output(paste_scan& s, size_t i, const std::string& t) {
  if (auto rest = after_label(t, "Successfully installed ")) {
    for (std::string_view item : scan::fields(*rest)) {
      size_t dash = item.rfind('-');
      if (dash == std::string_view::npos || !looks_like_version(item.substr(dash + 1))) continue;
      propose_pkg(s, std::string(item.substr(0, dash)), std::string(item.substr(dash + 1)), i, "pip", weight::labelled);
    }
    s.kind("pip install");
    return true;
  }
  if (auto rest = after_label(t, "Requirement already satisfied: ")) {
    size_t sp = rest->find(' '), open = rest->rfind('('), close = rest->rfind(')');
    if (sp != std::string::npos && open != std::string::npos && close > open) {
      std::string name = rest->substr(0, sp), ver = rest->substr(open + 1, close - open - 1);
      for (char stop : {'<', '>', '=', '!', '~', '['}) name = name.substr(0, name.find(stop));
      if (looks_like_version(ver)) propose_pkg(s, name, ver, i, "pip", weight::labelled);
    }
    s.kind("pip install");
    return true;
  }
  bool any = false;
  for (size_t w = t.find(".whl"); w != std::string::npos; w = t.find(".whl", w + 4)) {
    size_t b = t.find_last_of(" /\"'=(`\\", w);  // a Markdown `code` span or a Windows path ends the name too
    std::string file = t.substr(b == std::string::npos ? 0 : b + 1, w - (b == std::string::npos ? 0 : b + 1));
    size_t d1 = file.find('-');
    size_t d2 = d1 == std::string::npos ? d1 : file.find('-', d1 + 1);
    if (d2 == std::string::npos) continue;
    std::string ver = file.substr(d1 + 1, d2 - d1 - 1);
    if (!looks_like_version(ver)) continue;
    // %2B in a URL is the '+' of a local version label.
    for (size_t p = ver.find("%2B"); p != std::string::npos; p = ver.find("%2B")) ver.replace(p, 3, "+");
    propose_pkg(s, file.substr(0, d1), ver, i, "text", weight::prose);
    any = true;
  }
  return any;
}

/// Installed distributions as their metadata folders name them: "torch-2.4.1+rocm6.1.dist-info"
/// (an `ls` of site-packages, a RECORD path in a traceback, pip's "Cannot uninstall ... RECORD file
/// not found" error); the folder exists only for the version installed there.
bool dist_info(paste_scan& s, size_t i, const std::string& t) {
  bool any = false;
  for (size_t d = t.find(".dist-info"); d != std::string::npos; d = t.find(".dist-info", d + 10)) {
    size_t b = t.find_last_of(" /\\\"'`(", d);
    std::string folder = t.substr(b == std::string::npos ? 0 : b + 1, d - (b == std::string::npos ? 0 : b + 1));
    size_t dash = folder.find('-');  // wheel metadata folders escape '-' in names as '_': one dash
    if (dash == std::string::npos || dash == 0 || !looks_like_version(std::string_view(folder).substr(dash + 1))) continue;
    propose_pkg(s, folder.substr(0, dash), folder.substr(dash + 1), i, "dist-info", weight::labelled);
    any = true;
  }
  return any;
}

/// `pip show torch`: "Name: torch" then "Version: 2.5.1+cu124" on the next line (pip's own layout,
/// pip/_internal/commands/show.py). Returns true on the Name line of such a pair.
bool pip_show(paste_scan& s, size_t i, const std::string& t) {
  auto name = after_label(t, "Name: ");
  if (!name || name->empty() || !std::all_of(name->begin(), name->end(), name_char) || i + 1 >= s.lines.size()) return false;
  auto ver = after_label(s.lines[i + 1], "Version: ");
  if (!ver || !looks_like_version(*ver) || ver->find(' ') != std::string::npos) return false;
  propose_pkg(s, *name, *ver, i + 1, "pip show", weight::tool_output);
  s.kind("pip show");
  return true;
}

/// A site-packages path names the interpreter that owns it: ".../lib/python3.10/site-packages/torch/..."
/// (every traceback through an installed package). A line with two versions says nothing.
void python_of_site_packages(paste_scan& s, size_t i, const std::string& t) {
  std::string found;
  for (std::string_view dir : {"/site-packages", "/dist-packages"})
    for (size_t p = t.find(dir); p != std::string::npos; p = t.find(dir, p + 1)) {
      size_t py = t.rfind("/python", p);
      if (py == std::string::npos || p - py > 12) continue;
      std::string v = t.substr(py + 7, p - py - 7);  // "3.10"
      if (v.empty() || !looks_like_version(v) || v.find_first_not_of("0123456789.") != std::string::npos) continue;
      if (!found.empty() && found != v) return;
      found = v;
    }
  if (!found.empty()) s.propose("python.version", found, i, "path", weight::prose);
}

/// `conda env export` / environment.yml: "dependencies:" then "  - pytorch=2.1.0=py3.10_cuda12.1_cudnn8.9.2_0"
/// (conda: name=version=build) and, under "  - pip:", "    - transformers==4.36.2". Returns the
/// index after the list.
size_t conda_env_export(paste_scan& s, size_t i) {
  if (trim_copy(s.lines[i]) != "dependencies:") return i;
  size_t j = i + 1, rows = 0;
  for (; j < s.lines.size(); ++j) {
    std::string t = trim_copy(s.lines[j]);
    if (t.empty()) continue;
    if (t.rfind("- ", 0) != 0 || s.lines[j][0] != ' ') break;
    t = trim_copy(t.substr(2));
    if (t == "pip:") continue;
    if (freeze_line(s, j, t, "conda env", weight::tool_output)) {
      ++rows;
      continue;
    }
    std::vector<std::string_view> f = scan::split(t, '=');  // "pytorch", "2.1.0", "py3.10_cuda12.1_cudnn8.9.2_0"
    if (f.size() < 2 || f[0].empty() || !std::all_of(f[0].begin(), f[0].end(), name_char)) continue;
    std::string_view ver = f[1];
    if (ver.ends_with(".*")) ver.remove_suffix(2);  // environment.yml pins a series: "python=3.11.*" is 3.11
    if (!looks_like_version(ver)) continue;
    propose_pkg(s, std::string(f[0]), std::string(ver), j, "conda env", weight::tool_output);
    if (f.size() >= 3 && is_conda_torch(f[0])) conda_torch_build(s, f[2], j, "conda env", weight::tool_output);
    ++rows;
  }
  if (rows > 0) s.kind("conda env export");
  return j;
}

/// `python -c "import torch; print(torch.__version__, torch.version.hip)"` and its output on
/// the next line: "2.5.1+rocm6.2 6.2.41133-dd7f95766".
void printed_versions(paste_scan& s, size_t i) {
  const std::string& l = s.lines[i];
  if (l.find("torch.__version__") == std::string::npos || i + 1 >= s.lines.size()) return;
  std::vector<std::string_view> out = scan::fields(s.lines[i + 1]);
  if (out.empty() || !looks_like_version(out[0])) return;
  propose_pkg(s, "torch", std::string(out[0]), i + 1, "text", weight::labelled);
  size_t hip = l.find("torch.version.hip"), cuda = l.find("torch.version.cuda");
  if (out.size() >= 2 && looks_like_version(out[1])) {
    if (hip != std::string::npos && (cuda == std::string::npos || hip < cuda)) s.propose("torch.hip", std::string(out[1]), i + 1, "text", weight::labelled);
    else if (cuda != std::string::npos) s.propose("torch.cuda", std::string(out[1]), i + 1, "text", weight::labelled);
  }
}

/// torch's version printed alone (`print(torch.__version__)`, or the REPL's `'2.8.0+cu128'`):
/// a line that is nothing but a version with torch's local label (+cu128, +rocm6.4, +cpu).
void bare_torch_version(paste_scan& s, size_t i) {
  std::string t = trim_copy(s.lines[i]);
  if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front()) t = t.substr(1, t.size() - 2);
  size_t plus = t.find('+');
  if (plus == std::string::npos || plus == 0 || t.find(' ') != std::string::npos || !looks_like_version(t)) return;
  std::string label = lower_copy(t.substr(plus + 1));
  bool torch_label = label == "cpu" || label.rfind("rocm", 0) == 0 ||
                     (label.rfind("cu", 0) == 0 && label.size() >= 5 && std::isdigit(static_cast<unsigned char>(label[2])));
  if (!torch_label || !std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '0') return;  // torchvision is 0.x
  propose_pkg(s, "torch", t, i, "text", weight::labelled);
}

/// A `conda list` row without the header (`conda list | grep torch`): "pytorch  2.1.0
/// py3.10_cuda12.1_cudnn8.9.2_0  pytorch": name, version, a build string with '_' or a hash.
bool conda_row(paste_scan& s, size_t i, std::string_view t) {
  std::vector<std::string_view> c = scan::fields(t);
  if (c.size() < 3 || c.size() > 4 || !std::all_of(c[0].begin(), c[0].end(), name_char) || !looks_like_version(c[1])) return false;
  std::string_view build = c[2];
  bool conda_build = build.find('_') != std::string_view::npos || (build.size() >= 7 && build[0] == 'h') ||
                     build.rfind("py", 0) == 0 || build == "pypi" || build.rfind("pypi_", 0) == 0;
  if (!conda_build) return false;
  s.kind("conda list");
  propose_pkg(s, std::string(c[0]), std::string(c[1]), i, "conda list", weight::labelled);
  if (is_conda_torch(c[0])) conda_torch_build(s, build, i, "conda list", weight::labelled);
  return true;
}

/// "5.x" / "5.*" (a whole major series, as people write it: "transformers 5.x") -> "5": every
/// rule range that holds for the series holds for its first release, and none claims more.
std::optional<std::string> major_wildcard(std::string_view t) {
  size_t e = 0;
  while (e < t.size() && std::isdigit(static_cast<unsigned char>(t[e]))) ++e;
  if (e == 0 || e + 1 >= t.size() || t[e] != '.' || (t[e + 1] != 'x' && t[e + 1] != '*')) return std::nullopt;
  if (e + 2 < t.size() && std::isalnum(static_cast<unsigned char>(t[e + 2]))) return std::nullopt;  // "5.xyz"
  return std::string(t.substr(0, e));
}

/// A known package named in prose, then its version: "torch 2.5.1", "bitsandbytes==0.45.0",
/// "transformers v4.46.2", "peft version: 0.13", "`vllm` 0.6.3". A requirement ("You need
/// torch>=1.10", "torch<2.6") names no installed version.
void mentions(paste_scan& s, size_t i, const std::string& line) {
  std::string l = lower_copy(line);
  std::vector<std::pair<size_t, size_t>> taken;
  for (auto [alias, dist] : kMentioned) {
    for (size_t p = l.find(alias); p != std::string::npos; p = l.find(alias, p + 1)) {
      size_t e = p + alias.size();
      // "torch2.3.1+cu121" (no space) still names torch; "torchvision" does not.
      const bool glued_version = e + 2 < l.size() && std::isdigit(static_cast<unsigned char>(l[e])) && l[e + 1] == '.';
      if ((p > 0 && name_char(l[p - 1]) && l[p - 1] != '.') ||
          (e < l.size() && !glued_version && (std::isalnum(static_cast<unsigned char>(l[e])) || l[e] == '-' || l[e] == '_')))
        continue;
      if (std::any_of(taken.begin(), taken.end(), [&](auto r) { return p >= r.first && p < r.second; })) continue;
      // Between the name and the version: "==", "=", ":", " version", " v", "`", spaces; nothing else.
      size_t q = e;
      auto skip = [&](std::string_view w) {
        if (l.compare(q, w.size(), w) == 0) {
          q += w.size();
          return true;
        }
        return false;
      };
      // An issue form's label: "TensorFlow version (use command below): 2.3.0".
      auto skip_note = [&] {
        // not "(2.3.0)": that is the version itself
        size_t close = l[q] == '(' && q + 1 < l.size() && !std::isdigit(static_cast<unsigned char>(l[q + 1])) ? l.find(')', q)
                                                                                                             : std::string::npos;
        if (close == std::string::npos || close - q > 40) return false;
        q = close + 1;
        return true;
      };
      for (bool moved = true; moved && q < l.size();) {
        // "torch.__version__ = 2.1.2+cu118": the attribute Python prints it from
        moved = skip(" ") || skip("`") || skip("==") || skip("=") || skip(":") || skip(" version") || skip("version") ||
                skip(".__version__") || skip("@") || skip_note();
      }
      if (q < l.size() && l[q] == 'v' && q + 1 < l.size() && std::isdigit(static_cast<unsigned char>(l[q + 1]))) ++q;
      if (q >= l.size() || !std::isdigit(static_cast<unsigned char>(l[q]))) continue;
      std::optional<std::string> v = first_version(std::string_view(line).substr(q));
      if (!v) v = major_wildcard(std::string_view(l).substr(q));
      if (!v || line.compare(q, v->size(), *v) != 0) continue;
      // An image's tag, "nvcr.io/nvidia/pytorch:23.09-py3", "rocm/pytorch:latest": NGC's tags are
      // release dates, not torch's version; only a full x.y.z tag ("pytorch/pytorch:2.1.0-cuda12.1") is.
      const bool image_tag = p > 0 && l[p - 1] == '/' && e < l.size() && l[e] == ':';
      if (image_tag && std::count(v->begin(), v->end(), '.') < 2) continue;
      taken.push_back({p, q + v->size()});
      std::string version = image_tag ? v->substr(0, v->find('-')) : *v;  // "2.1.0-cuda12.1-cudnn8-runtime"
      // "PyTorch 2.8.0 + cu129": the build label written apart from the version.
      if (dist == "torch" && version.find('+') == std::string::npos) {
        size_t r = l.find_first_not_of(' ', q + v->size());
        if (r != std::string::npos && l[r] == '+' && (r = l.find_first_not_of(' ', r + 1)) != std::string::npos &&
            (l.compare(r, 2, "cu") == 0 || l.compare(r, 4, "rocm") == 0 || l.compare(r, 3, "cpu") == 0)) {
          size_t end = r;
          while (end < l.size() && (std::isalnum(static_cast<unsigned char>(l[end])) || l[end] == '.')) ++end;
          version += "+" + line.substr(r, end - r);
        }
      }
      propose_pkg(s, std::string(dist), version, i, "text", weight::prose);
    }
  }
}

/// A requirement stated against what is installed: pip's "xformers 0.0.18 requires torch==2.0.0,
/// but you have torch 1.13.0" and xFormers' "built for: PyTorch 2.10.0+cu128 with CUDA 1208 (you
/// have 2.11.0+cu130)". Only the version after "you have" is installed (a bare version there is
/// torch's: xFormers names no package); the text before "requires"/"built for" is read as usual,
/// the required version between them never (xFormers' version line under its "built for:" line
/// is all requirement before "(you have"). True when the line was such a statement.
bool you_have(paste_scan& s, size_t i, const std::string& line) {
  if (!scan::icontains(line, "you have ")) return false;  // every line of a log passes here: no copy for most
  std::string l = lower_copy(line);
  // "but you have" (pip) and "(you have" (xFormers) only: "make sure you have ..." is advice.
  size_t have = l.find("you have ");
  const bool but_you_have = have != std::string::npos && have >= 4 && l.compare(have - 4, 4, "but ") == 0;
  const bool paren_you_have = have != std::string::npos && have >= 1 && l[have - 1] == '(';
  if (!but_you_have && !paren_you_have) return false;
  size_t req = std::min(l.find(" requires "), l.find("built for"));
  // xFormers prints "built for:" on a line of its own and the versions under it.
  if (req == std::string::npos && paren_you_have) req = 0;
  if (req == std::string::npos || req > have) return false;
  std::string_view rest = std::string_view(line).substr(have + 9);
  std::vector<std::string_view> f = scan::fields(rest);
  if (f.empty()) return true;
  std::string name = "torch";
  std::string_view ver = f[0];
  if (!std::isdigit(static_cast<unsigned char>(ver[0])) && f.size() >= 2) {
    name = lower_copy(f[0]);
    ver = f[1];
  }
  while (!ver.empty() && (ver.back() == ')' || ver.back() == ',' || ver.back() == '.')) ver.remove_suffix(1);
  if (looks_like_version(ver)) propose_pkg(s, name, std::string(ver), i, "text", weight::prose);
  mentions(s, i, line.substr(0, req));
  return true;
}

/// pip's resolver and installer name what was asked for, not what is installed: "Could not find a
/// version that satisfies the requirement torch==2.1.0+cu118", "No matching distribution found for
/// ...", "Collecting torch==2.1.0", "vllm 0.6.3 depends on torch==2.4.0", "Cannot install ...".
bool names_only_a_requirement(const std::string& line) {
  for (std::string_view cue : {"satisfies the requirement", "no matching distribution found for", "depends on ",
                               "cannot install ", "conflicting dependencies"})
    if (scan::icontains(line, cue)) return true;
  // pip replacing a package names the version it removes: "Found existing installation: torch 2.4.1",
  // "Uninstalling torch-2.4.1:", "Successfully uninstalled torch-2.4.1".
  for (std::string_view cue : {"found existing installation", "uninstalling ", "successfully uninstalled", "attempting uninstall"})
    if (scan::icontains(line, cue)) return true;
  return scan::icontains(line.substr(0, std::min<size_t>(line.size(), 16)), "collecting ");
}

/// The torch build a pip command or a requirements file asks for by its index:
/// "--index-url https://download.pytorch.org/whl/cu126" is a CUDA 12.6 wheel, ".../whl/nightly/cu128"
/// CUDA 12.8, ".../whl/rocm6.3" HIP 6.3 (pytorch.org's layout). Read only when no torch build
/// label is in the paste (a "+cu128" or collect_env says what is installed), and a paste that
/// names two indexes ("tried cu126, then cu128") gives none: which one failed is not said.
void torch_index(paste_scan& s) {
  std::vector<std::pair<std::string, std::string>> seen;  // (key, value)
  size_t line = 0;
  for (size_t i = 0; i < s.lines.size(); ++i) {
    const std::string& l = s.lines[i];
    if (l.size() > 1024) continue;
    size_t p = l.find("download.pytorch.org/whl/");
    if (p == std::string::npos) continue;
    const std::string lower = lower_copy(l);
    if (lower.find("pip") == std::string::npos && lower.find("index-url") == std::string::npos && lower.find("-f ") == std::string::npos &&
        lower.find("find-links") == std::string::npos && lower.find("uv ") == std::string::npos)
      continue;  // a link in prose ("see download.pytorch.org/whl/...") installs nothing
    std::string_view rest = std::string_view(lower).substr(p + 25);
    for (std::string_view channel : {"nightly/", "test/"})
      if (rest.rfind(channel, 0) == 0) rest.remove_prefix(channel.size());
    size_t e = 0;
    while (e < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[e])) || rest[e] == '.')) ++e;
    std::string tag(rest.substr(0, e));
    std::pair<std::string, std::string> reading;
    if (tag.size() >= 5 && tag.size() <= 6 && tag.rfind("cu", 0) == 0 &&
        std::all_of(tag.begin() + 2, tag.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      reading = {"torch.cuda", cuda_of_tag_digits(std::string_view(tag).substr(2))};  // cu126 -> 12.6
    else if (tag.rfind("rocm", 0) == 0 && looks_like_version(tag.substr(4)))
      reading = {"torch.hip", hip_major_minor(tag.substr(4))};
    else
      continue;
    if (std::find(seen.begin(), seen.end(), reading) == seen.end()) seen.push_back(reading);
    line = i;
  }
  if (seen.size() == 1) s.propose(seen[0].first, seen[0].second, line, "pip index", weight::prose);
}

}  // namespace

void scan_packages(paste_scan& s) {
  size_t freeze_lines = 0;
  for (size_t i = 0; i < s.lines.size(); ++i) {
    const std::string& l = s.lines[i];
    if (l.empty() || l.size() > 2048) continue;
    if (size_t next = pip_table(s, i); next != i) {
      i = next - 1;
      continue;
    }
    if (size_t next = conda_list(s, i); next != i) {
      i = next - 1;
      continue;
    }
    if (size_t next = conda_env_export(s, i); next != i) {
      i = next - 1;
      continue;
    }
    python_of_site_packages(s, i, l);
    std::string t = trim_copy(l);
    if (t.rfind("[pip3] ", 0) == 0 || t.rfind("[pip] ", 0) == 0 || t.rfind("[uv] ", 0) == 0) {
      s.kind("collect_env");
      freeze_line(s, i, trim_copy(t.substr(t.find(']') + 1)), "collect_env", weight::tool_output);
      continue;
    }
    if (t.rfind("[conda] ", 0) == 0) {
      const std::string row = t.substr(8);  // scan::fields() views into it: it must outlive them
      std::vector<std::string_view> c = scan::fields(row);
      if (c.size() >= 2 && std::isdigit(static_cast<unsigned char>(c[1][0]))) {
        propose_pkg(s, std::string(c[0]), std::string(c[1]), i, "collect_env", weight::tool_output);
        if (c.size() >= 3 && is_conda_torch(c[0])) conda_torch_build(s, c[2], i, "collect_env", weight::tool_output);
      }
      continue;
    }
    if (freeze_line(s, i, t, "pip freeze", weight::tool_output)) {
      ++freeze_lines;
      continue;
    }
    if (conda_row(s, i, t)) continue;
    if (pip_show(s, i, t)) continue;
    if (you_have(s, i, l)) continue;
    printed_versions(s, i);
    bare_torch_version(s, i);
    if (pip_output(s, i, t)) continue;
    if (dist_info(s, i, t)) continue;
    // "ROCM used to build PyTorch: 6.2.41133" names torch but gives HIP's version.
    if (lower_copy(l).find("used to build") != std::string::npos) continue;
    if (names_only_a_requirement(l)) continue;
    mentions(s, i, l);
  }
  if (!s.torch_build_seen) torch_index(s);  // after every label: an installed wheel's own says more
  if (freeze_lines > 0) s.kind("pip freeze");
  if (freeze_lines >= 30) s.package_list = true;  // pip freeze leaves pip/setuptools out: size is the only sign
}

}  // namespace gs
