// Facts written in prose or in lines no tool owns: GPU product names and gfx/sm tokens, the
// OS, the kernel, ROCm / CUDA / NVIDIA driver versions, RAM, Python, WSL. Each shape has a cheap
// keyword test before any parsing, so a 1 MB log costs a few milliseconds here.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <span>

#include "core/text_scan.h"
#include "explain/gpu_names.h"
#include "explain/paste_scan.h"

namespace gs {

/// "gfx1100" tokens in a line (lower case in, tokens out).
std::vector<std::string> gfx_tokens(std::string_view lower) {
  std::vector<std::string> out;
  for (size_t p = lower.find("gfx"); p != std::string_view::npos; p = lower.find("gfx", p + 3)) {
    if (p > 0 && std::isalpha(static_cast<unsigned char>(lower[p - 1]))) continue;
    // "gfx 1012" / "gfx-1031", as people write it in prose, is the same target as "gfx1012".
    size_t b = p + 3;
    if (b + 1 < lower.size() && (lower[b] == ' ' || lower[b] == '-') && scan::is_digit(lower[b + 1])) ++b;
    size_t e = b;
    while (e < lower.size() && std::isalnum(static_cast<unsigned char>(lower[e]))) ++e;
    // Real targets have three or four characters after "gfx" (gfx90a, gfx1201): "gfx90878" is not one.
    if (e - b >= 3 && e - b <= 4 && scan::is_digit(lower[b])) out.emplace_back("gfx" + std::string(lower.substr(b, e - b)));
  }
  return out;
}

namespace {

/// A version followed by "+" ("ROCm 6.3+"), or a line that speaks of what a release added or
/// needs ("added support", "support for", "supported since", "requires", "or later"): a release
/// mentioned, not the one installed. `after` is the offset just past the version.
bool release_mention(std::string_view lower, size_t after) {
  if (after < lower.size() && lower[after] == '+') return true;
  for (std::string_view w : {"added support", "adds support", "support for", "supports ", "supported since", "support since",
                             "supported in", "support in ", "starting with", "requires", "required", "or later", "or newer",
                             "at least", "minimum", "release notes"})
    if (lower.find(w) != std::string_view::npos) return true;
  return false;
}

/// Lines whose gfx tokens list what a library ships or a build targets, not the user's GPU.
bool lists_targets(std::string_view lower) {
  for (std::string_view w : {".dat", ".co", ".hsaco", ".so", "tensilelibrary", "offload-arch", "targets", "rocm_arch",
                             "hsa_override", "supported", "gfx_target", "available", "compiled for", "arch_list",
                             "--amdgpu", "kernels for"})
    if (lower.find(w) != std::string_view::npos) return true;
  return false;
}

std::string without_urls(const std::string& l) {
  std::string out = l;
  for (size_t p = out.find("://"); p != std::string::npos; p = out.find("://", p)) {
    size_t b = p;
    while (b > 0 && std::isalpha(static_cast<unsigned char>(out[b - 1]))) --b;
    size_t e = out.find_first_of(" \t)\"'>]", p);
    out.replace(b, (e == std::string::npos ? out.size() : e) - b, " ");
    p = b + 1;
  }
  return out;
}

/// "GPU: ...", "- **GPUs**: ...", "| GPU | RX 7900 XTX |", "Graphics card: ...": a line that
/// labels the hardware the reporter has (issue templates ask for it this way).
bool gpu_label_line(std::string_view line) {
  std::string t;  // the label, lower-cased, without Markdown bullets, emphasis and table bars
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '-' || line[i] == '*' || line[i] == '|' || line[i] == '#'))
    ++i;
  for (; i < line.size() && t.size() < 40; ++i) {
    char c = line[i];
    if (c == ':' || c == '|') break;
    if (c == '*' || c == '_') continue;
    t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (i >= line.size()) return false;
  while (!t.empty() && t.back() == ' ') t.pop_back();
  static const char* const labels[] = {"gpu",          "gpus",          "gpu(s)",      "gpu model",    "gpu models",
                                       "gpu name",     "gpu type",      "gpu info",    "graphics",     "graphics card",
                                       "graphics cards", "video card",  "card",        "accelerator",  "accelerators",
                                       "hardware",     "gpu hardware",  "device",      "devices",      "gpu device",
                                       "gpu/accelerator", "gpu and driver", "gpu & driver", "hardware details",
                                       // dxdiag's "Card name:", Device Manager's adapter, wmic's VideoController
                                       "card name", "display adapter", "display adapters", "video controller"};
  return std::find(std::begin(labels), std::end(labels), t) != std::end(labels);
}

void gpus(paste_scan& s, size_t i, const std::string& l, const std::string& lower) {
  // What the runtime itself says about the device it has: strongest prose evidence.
  //   rocBLAS "... for GPU arch : gfx1201"; torch "NVIDIA GeForce RTX 5090 with CUDA capability
  //   sm_120 is not compatible"; "Found GPU0 NVIDIA GeForce GTX 1060 which is of cuda capability 6.1";
  //   vLLM "Your Tesla T4 GPU has compute capability 7.5".
  // (a title's paraphrase drops the space: "... No such file or directory for GPU arch: gfx1100")
  if (size_t p = lower.find("gpu arch : "); p != std::string::npos || (p = lower.find("for gpu arch: ")) != std::string::npos) {
    std::vector<std::string> t = gfx_tokens(lower.substr(p));
    if (!t.empty()) s.gpus.push_back({t.front(), t.front(), i, "text", weight::labelled});
    return;
  }
  if (size_t p = lower.find("cuda capability sm_"); p != std::string::npos) {
    size_t b = p + 16, e = b + 3;
    while (e < lower.size() && scan::is_digit(lower[e])) ++e;
    std::vector<gpu_name_hit> names = find_gpu_names(l);
    s.gpus.push_back({lower.substr(b, e - b), names.empty() ? lower.substr(b, e - b) : names.front().text, i, "text", weight::labelled});
    return;
  }
  for (std::string_view cue : {"which is of cuda capability ", "has compute capability ", "compute capability: "}) {
    if (size_t p = lower.find(cue); p != std::string::npos) {
      size_t b = p + cue.size();
      if (b + 2 < lower.size() && scan::is_digit(lower[b]) && lower[b + 1] == '.' && scan::is_digit(lower[b + 2])) {
        std::string arch = "sm_" + lower.substr(b, 1) + lower.substr(b + 2, 1);
        if (b + 3 < lower.size() && scan::is_digit(lower[b + 3])) continue;
        std::vector<gpu_name_hit> names = find_gpu_names(l);
        s.gpus.push_back({arch, names.empty() ? arch : names.front().text, i, "text", weight::labelled});
        return;
      }
    }
  }
  // Names and tokens inside a URL (".../club-3090/...", ".../whl/gfx1100/") are not the user's GPU.
  // An issue form's "GPU: AMD Instinct MI210, AMD Radeon RX 6600" states the machine's cards,
  // all of them; a GPU named in a sentence may be one the user compares with or asks about.
  std::string bare = without_urls(l);
  const int w = gpu_label_line(l) ? weight::labelled : weight::prose;
  // an APU's CPU model is the weakest reading (0): any GPU the paste names itself outranks it
  for (const gpu_name_hit& h : find_gpu_names(bare)) s.gpus.push_back({h.arch, h.text, i, "text", h.by_cpu ? 0 : w});
  if (!lists_targets(lower))
    for (const std::string& t : gfx_tokens(lower_copy(bare))) s.gpus.push_back({t, t, i, "text", w});
}

/// "64G ram", "32 GB of RAM", "128GB RAM": the host's memory in a sentence. A card's memory is
/// written the same way ("RX 7600 8GB RAM"), so beside a GPU name or "vram"/"gpu" only sizes no
/// consumer card has (64 GB and more) count.
std::optional<unsigned long long> prose_ram_gb(const std::string& l, std::string_view lower) {
  for (size_t p = lower.find("ram"); p != std::string_view::npos; p = lower.find("ram", p + 3)) {
    if (p + 3 < lower.size() && std::isalpha(static_cast<unsigned char>(lower[p + 3]))) continue;  // "ramdisk"
    if (p > 0 && std::isalpha(static_cast<unsigned char>(lower[p - 1]))) continue;                 // "vram", "param"
    size_t e = p;
    auto back_over = [&](std::string_view w) {
      size_t q = e;
      while (q > 0 && lower[q - 1] == ' ') --q;
      if (q >= w.size() && lower.compare(q - w.size(), w.size(), w) == 0) {
        e = q - w.size();
        return true;
      }
      return false;
    };
    back_over("of");
    if (!back_over("gib") && !back_over("gb") && !back_over("g")) continue;
    while (e > 0 && lower[e - 1] == ' ') --e;
    size_t b = e;
    while (b > 0 && scan::is_digit(lower[b - 1])) --b;
    if (b == e || e - b > 4 || (b > 0 && (std::isalnum(static_cast<unsigned char>(lower[b - 1])) || lower[b - 1] == '.'))) continue;
    unsigned long long gb = std::stoull(std::string(lower.substr(b, e - b)));
    bool gpu_line = lower.find("vram") != std::string_view::npos || lower.find("gpu") != std::string_view::npos || !find_gpu_names(l).empty();
    if (gb == 0 || (gpu_line && gb < 64)) continue;
    return gb;
  }
  return std::nullopt;
}

/// "Linux-6.8.0-49-generic-x86_64-with-glibc2.35" -> "6.8.0-49-generic".
std::string kernel_from_platform(std::string_view p) {
  for (std::string_view arch : {"-x86_64", "-aarch64", "-arm64"})
    if (size_t e = p.find(arch); e != std::string_view::npos) return std::string(p.substr(0, e));
  return "";
}

void host_facts(paste_scan& s, size_t i, const std::string& padded, const std::string& padded_lower) {
  const std::string l = unpad_label(padded);
  const std::string lower = l.size() == padded.size() ? padded_lower : lower_copy(l);
  // Kernel: collect_env / transformers env "Platform: Linux-6.8.0-...", `uname -a`, "kernel 6.11".
  for (std::string_view label : {"Python platform:", "- Platform:", "Platform:"})
    if (auto v = after_label(l, label)) {
      if (auto k = after_label(*v, "Linux-")) {
        std::string kern = kernel_from_platform(*k);
        if (!kern.empty()) s.propose("host.kernel", kern, i, "text", weight::labelled);
      }
      break;
    }
  if (auto v = after_label(l, "Linux ")) {  // uname -a: "Linux box 6.11.0-19-generic #19-Ubuntu SMP ..."
    size_t sp = v->find(' ');
    // A report with the hostname taken out ("Linux 4.15.0-72-generic #81~16.04.1-Ubuntu SMP") has the
    // kernel first; otherwise it follows the hostname (not the "#81~16.04.1" build tag after it).
    const bool kernel_first = !v->empty() && scan::is_digit((*v)[0]) && v->substr(0, sp).find('.') != std::string::npos;
    if (sp != std::string::npos && v->find(" SMP") != std::string::npos) {
      const size_t from = kernel_first ? 0 : sp + 1;
      if (auto k = first_version(*v, from); k && v->compare(from, k->size(), *k) == 0) s.propose("host.kernel", *k, i, "uname", weight::tool_output);
    }
  }
  // "kernel 6.11", "Kernel version: 6.8.0-49", "- Kernel: 6.17.0-35-generic"; journalctl's
  // "kernel: [drm] ..." has no version right after it.
  if (size_t p = lower.find("kernel"); p != std::string::npos) {
    size_t q = p + 6;
    if (lower.compare(q, 8, " version") == 0) q += 8;
    while (q < lower.size() && (lower[q] == ' ' || lower[q] == ':' || lower[q] == 'v') && q < p + 20) ++q;
    if (q < lower.size() && scan::is_digit(lower[q]))
      if (auto k = first_version(std::string_view(l).substr(q)); k && std::count(k->begin(), k->end(), '.') >= 1)
        s.propose("host.kernel", *k, i, "text", weight::prose);
  }
  // The CPU architecture: `uname -m` alone on a line, uname -a's "... aarch64 GNU/Linux", collect_env's
  // "OS: Ubuntu 22.04.4 LTS (aarch64)" and "Platform: Linux-6.8.0-...-aarch64-with-glibc2.39".
  for (std::string_view m : {"x86_64", "aarch64"})
    for (size_t p = lower.find(m); p != std::string::npos; p = lower.find(m, p + 1)) {
      const std::string_view after = std::string_view(lower).substr(p + m.size());
      const bool alone = trim_copy(lower) == m;
      if (alone || after.starts_with(" gnu/linux") || (p > 0 && lower[p - 1] == '(' && after.starts_with(")")) ||
          (p > 0 && lower[p - 1] == '-' && after.starts_with("-with-"))) {
        s.propose("host.machine", std::string(m), i, alone ? "uname -m" : "text", alone ? weight::labelled : weight::tool_output);
        break;
      }
    }
  // A kernel oops or warning names the running kernel before its build number: "CPU: 3 PID: 1234
  // Comm: python3 Tainted: G        W  OE      6.8.0-45-generic #45-Ubuntu", "... Not tainted 6.5.0 #1".
  if (size_t p = lower.find("tainted"); p != std::string::npos && lower.find("pid: ") != std::string::npos)
    if (size_t h = l.find(" #", p); h != std::string::npos && h > p) {
      size_t b = l.rfind(' ', h - 1);
      b = b == std::string::npos ? 0 : b + 1;
      std::string tok = l.substr(b, h - b);
      if (!tok.empty() && scan::is_digit(tok[0]) && tok.find('.') != std::string::npos) s.propose("host.kernel", tok, i, "kernel log", weight::tool_output);
    }
  // WSL's kernel and its driver folder are the machine's own words ("wsl"); "WSL2" in a sentence
  // may be another machine the reporter compares with ("text").
  if (lower.find("microsoft-standard-wsl") != std::string::npos || lower.find("/usr/lib/wsl/") != std::string::npos ||
      lower.find("-microsoft") != std::string::npos)
    s.propose("host.container_kind", "wsl", i, "wsl", weight::labelled);
  else if (lower.find("wsl2") != std::string::npos)
    s.propose("host.container_kind", "wsl", i, "text", weight::labelled);
  // A shell prompt standing in a Windows drive ("user@host:/mnt/c/Users/...$ python server.py") is
  // WSL's own mount; "on WSL", "in WSL", "under WSL" in a sentence or a title (text-generation-webui
  // #367: "CUDA not found on WSL") say where the reporter runs.
  else if (size_t m = lower.find(":/mnt/"); m != std::string::npos && m + 7 < lower.size() && std::isalpha(static_cast<unsigned char>(lower[m + 6])) &&
                                            lower[m + 7] == '/' && lower.find('@') < m)
    s.propose("host.container_kind", "wsl", i, "wsl", weight::labelled);
  else if (static constexpr std::string_view said[] = {"on wsl", "in wsl", "under wsl", "inside wsl", "using wsl", "with wsl"};
           std::any_of(std::begin(said), std::end(said), [&](std::string_view w) {
             size_t p = lower.find(w);
             return p != std::string::npos && (p == 0 || !std::isalpha(static_cast<unsigned char>(lower[p - 1]))) &&
                    (p + w.size() == lower.size() || !std::isalpha(static_cast<unsigned char>(lower[p + w.size()])));
           }))
    s.propose("host.container_kind", "wsl", i, "text", weight::labelled);
  // A command the reporter ran inside a container ("rocminfo inside of docker shows Permission
  // denied", lemonade#2799; "docker exec ... rocminfo"): the device nodes' groups are the container's
  // question (GS-HOST-008's --group-add), not the host's usermod.
  else if (static constexpr std::string_view inside[] = {"inside of docker", "inside docker", "inside the docker",
                                                         "inside the container", "inside a container", "inside of the container",
                                                         "inside my container", "docker exec ", "podman exec "};
           std::any_of(std::begin(inside), std::end(inside), [&](std::string_view w) { return lower.find(w) != std::string::npos; }))
    s.propose("host.container_kind", lower.find("podman") != std::string::npos ? "podman" : "docker", i, "text", weight::prose);
  // OS: collect_env's "OS: Ubuntu 22.04.4 LTS (x86_64)" (host.os_pretty) and prose "Ubuntu 24.04".
  static constexpr std::pair<std::string_view, std::string_view> distros[] = {
      {"ubuntu", "ubuntu"}, {"debian", "debian"}, {"fedora", "fedora"}, {"rhel", "rhel"}, {"red hat enterprise", "rhel"},
      {"rocky linux", "rocky"}, {"opensuse", "opensuse"}, {"arch linux", "arch"}, {"cachyos", "cachyos"},
      {"linux mint", "linuxmint"}, {"pop!_os", "pop"}, {"gentoo", "gentoo"}, {"nixos", "nixos"}, {"kde neon", "neon"},
      {"windows 11", "windows"}, {"windows 10", "windows"}};
  // A compiler's banner names the distro that built it ("GCC version: (Ubuntu 13.3.0-6ubuntu2)").
  // So does a debugger's ("GNU gdb (Ubuntu 12.1-0ubuntu1~22.04) 12.1": gdb 12.1, not Ubuntu 12.1).
  bool toolchain = lower.find("gcc") != std::string::npos || lower.find("clang") != std::string::npos ||
                   lower.find("gnu gdb") != std::string::npos ||
                   lower.find("libc") != std::string::npos || lower.find("cc (") != std::string::npos ||
                   lower.find("g++") != std::string::npos || lower.find("c++") != std::string::npos;
  for (auto [name, id] : toolchain ? std::span<const std::pair<std::string_view, std::string_view>>{}
                                   : std::span<const std::pair<std::string_view, std::string_view>>{distros}) {
    size_t p = lower.find(name);
    if (p == std::string::npos || (p > 0 && std::isalpha(static_cast<unsigned char>(lower[p - 1])))) continue;
    // "Windows 10.0.22631" is the NT kernel's number, which Windows 11 kept (extract_windows.cpp reads the build).
    if (id == "windows" && lower.compare(p + name.size(), 3, ".0.") == 0) continue;
    // Inside an image name or a path ("rocm/dev-ubuntu-22.04", "cuda:12.4.1-devel-ubuntu22.04",
    // "rocm6.2_ubuntu22.04") it is the container's OS, not the host's.
    if (p > 0 && std::string_view("-_/:.").find(lower[p - 1]) != std::string_view::npos) continue;
    // An issue form's own example ("OS Platform and Distribution (e.g., Linux Ubuntu 16.04): ...")
    // is the template's, not the reporter's.
    if (size_t open = lower.rfind('(', p); open != std::string::npos && lower.find(')', open) > p) {
      std::string_view lead = std::string_view(lower).substr(open, p - open);
      if (lead.find("e.g") != std::string_view::npos || lead.find("eg.") != std::string_view::npos ||
          lead.find("for example") != std::string_view::npos || lead.find("such as") != std::string_view::npos)
        continue;
    }
    int w = after_label(l, "OS:") ? weight::tool_output : weight::prose;
    s.propose("host.os_id", std::string(id), i, "text", w);
    if (id == "windows") {
      s.propose("host.os_version", std::string(name.substr(8)), i, "text", w);
    } else {
      size_t q = p + name.size();
      // "Ubuntu 22.04.4", "Debian 12": the number right after the name, not a later version on the
      // line ("Debian 12, Kernel 6.1.0-31-amd64").
      if (q < l.size() && l[q] == ' ' && q + 1 < l.size() && scan::is_digit(l[q + 1])) {
        size_t e = q + 1;
        while (e < l.size() && (scan::is_digit(l[e]) || (l[e] == '.' && e + 1 < l.size() && scan::is_digit(l[e + 1])))) ++e;
        // "(Ubuntu 9.4.0-1ubuntu1~20.04.2)": a package's version, not the release.
        if (e < l.size() && l[e] == '-') break;
        s.propose("host.os_version", l.substr(q + 1, e - q - 1), i, "text", w);
      }
    }
    break;
  }
  // An issue form's "OS: Windows" / "- OS: windows10 22H2": Windows however it is written.
  if (auto v = after_label(l, "OS:"); v && lower_copy(*v).rfind("windows", 0) == 0)
    s.propose("host.os_id", "windows", i, "text", weight::tool_output);
  auto unquote = [](std::string v) {
    v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
    return v;
  };
  if (auto v = after_label(l, "VERSION_ID=")) s.propose("host.os_version", unquote(*v), i, "os-release", weight::tool_output);
  if (auto v = after_label(l, "VERSION=")) {
    // "24.04.1 LTS (Noble Numbat)" says more than VERSION_ID's 24.04; KDE neon's VERSION="6.0"
    // is its own release, not the OS base's, so VERSION wins only when it extends VERSION_ID.
    std::string id;
    for (size_t j = (i > 12 ? i - 12 : 0); j < s.lines.size() && j < i + 12; ++j)
      if (auto x = after_label(s.lines[j], "VERSION_ID=")) id = unquote(*x);
    if (auto ver = first_version(unquote(*v)))
      s.propose("host.os_version", *ver, i, "os-release", !id.empty() && ver->rfind(id, 0) == 0 ? weight::tool_output + 1 : weight::labelled);
  }
  // os-release's ID is one lower-case word ("ubuntu", "opensuse-tumbleweed"); an "id=0 library=ROCm ..."
  // continuation line of an application log is not one.
  if (auto v = after_label(l, "ID=")) {
    std::string id = unquote(*v);
    if (!id.empty() && std::isalpha(static_cast<unsigned char>(id[0])) && id.find_first_of(" \t=") == std::string::npos)
      s.propose("host.os_id", id, i, "os-release", weight::tool_output);
  }
  // RAM: /proc/meminfo "MemTotal: 65838276 kB", free's "Mem:  62Gi ...", prose "64GB RAM".
  if (auto v = after_label(l, "MemTotal:")) {
    double kb = std::strtod(v->c_str(), nullptr);
    if (kb > 0) s.propose("host.ram_bytes", std::to_string(static_cast<unsigned long long>(kb * 1024)), i, "meminfo", weight::tool_output);
  }
  // Prose RAM only when it says system/host memory: "16gb of ram" beside a GPU name is often VRAM.
  for (std::string_view cue : {"gb system ram", "gb of system ram", "gb host ram", "gb of system memory", "gb ddr"}) {
    size_t p = lower.find(cue);
    if (p == std::string::npos) continue;
    size_t e = p;
    while (e > 0 && lower[e - 1] == ' ') --e;
    size_t b = e;
    while (b > 0 && scan::is_digit(lower[b - 1])) --b;
    if (b < e && e - b < 5) s.propose("host.ram_bytes", std::to_string(std::stoull(lower.substr(b, e - b)) * 1000000000ull), i, "text", weight::prose);
    return;
  }
  if (auto gb = prose_ram_gb(l, lower)) s.propose("host.ram_bytes", std::to_string(*gb * 1000000000ull), i, "text", weight::prose);
}

void versions(paste_scan& s, size_t i, const std::string& l, const std::string& lower) {
  // Python: "Python 3.12.3" at the start of a line (python --version) or "python version 3.10".
  if (auto v = after_label(l, "Python ")) {
    if (!v->empty() && scan::is_digit((*v)[0]))
      if (auto pv = first_version(*v)) s.propose("python.version", *pv, i, "text", weight::labelled);
  }
  // NVIDIA driver: /proc/driver/nvidia/version "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14".
  // and the kernel log's "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01".
  if (size_t p = lower.find("kernel module"); p != std::string::npos &&
                                              (lower.find("nvrm version") != std::string::npos || lower.find("nvrm: loading") != std::string::npos))
    if (auto v = first_version(l, p)) s.propose("nvidia.driver", *v, i, "nvidia procfs", weight::tool_output);
  // "nvidia-drivers-530.41.03" (a package), "driver 595.71.05": NVIDIA's driver numbers are 3xx-9xx.
  // Not a requirement ("Minimum required Nvidia driver is 570.0 or newer", "requires driver >= 525"):
  // that names the driver the software wants, not the one installed.
  auto requirement = [&] {
    for (std::string_view w : {"minimum", "required", "requires", "or newer", "or later", "at least", ">="})
      if (lower.find(w) != std::string::npos) return true;
    return false;
  };
  for (std::string_view cue : {"nvidia-drivers-", "nvidia-driver-", "driver version", "driver:", "driver "}) {
    size_t p = lower.find(cue);
    // A "CUDA version" on the same line is no reason to skip it ("my CUDA version is 12.9.41 and my
    // CUDA driver is 570.133.20"): a CUDA number after the cue fails the 3xx-9xx test below.
    if (p == std::string::npos || requirement()) continue;
    size_t q = p + cue.size();
    // "driver 535.x", "Driver Version: 535.x", "my driver (535.309.01)", "driver is 535.x"
    while (q < lower.size() && (lower[q] == ' ' || lower[q] == ':' || lower[q] == '(')) ++q;
    if (lower.compare(q, 3, "is ") == 0) q += 3;
    if (q + 1 < lower.size() && lower[q] == 'v' && scan::is_digit(lower[q + 1])) ++q;  // "Nvidia Driver: v550.78"
    if (q >= lower.size() || !scan::is_digit(lower[q])) continue;
    auto v = first_version(std::string_view(l).substr(q));
    if (v && std::count(v->begin(), v->end(), '.') >= 1 && std::atoi(v->c_str()) >= 300 && std::atoi(v->c_str()) < 1000)
      s.propose("nvidia.driver", *v, i, "text", weight::prose);
    break;
  }
  // nvcc --version: "Cuda compilation tools, release 12.4, V12.4.131".
  // The "V12.4.131" build is read from after its letter (first_version skips digits glued to one).
  if (size_t p = l.find("Cuda compilation tools, release "); p != std::string::npos) {
    size_t v = l.find(", V", p);
    if (auto ver = first_version(std::string_view(l).substr(v == std::string::npos ? p : v + 3)))
      s.propose("cuda.toolkit", *ver, i, "nvcc", weight::tool_output);
  }
  // The CUDA toolkit where the words say toolkit: "installed cuda toolkit 12.3" (tfjs#8187's
  // reporter), an apt package "cuda-toolkit-12-4", a path "/usr/local/cuda-12.3/". Not one that is
  // wanted ("requires CUDA Toolkit 12.4 or later", "install cuda toolkit 11.8?").
  for (std::string_view cue : {"cuda toolkit ", "cuda-toolkit-", "/usr/local/cuda-"}) {
    size_t p = lower.find(cue);
    if (p == std::string::npos || (cue == "cuda toolkit " && (requirement() || release_mention(lower, 0)))) continue;
    std::string digits;
    for (size_t q = p + cue.size(); q < lower.size() && digits.size() < 6; ++q) {
      char c = lower[q];
      if (scan::is_digit(c)) digits += c;
      else if ((c == '.' || (c == '-' && cue == "cuda-toolkit-")) && !digits.empty() && q + 1 < lower.size() && scan::is_digit(lower[q + 1])) digits += '.';
      else break;
    }
    int major = digits.empty() ? 0 : std::atoi(digits.c_str());
    if (major < 8 || major > 20 || digits.find('.') == std::string::npos) continue;  // "cuda toolkit 2024", "cuda-toolkit-12" alone
    s.propose("cuda.toolkit", digits, i, "text", cue[0] == '/' ? weight::labelled : weight::prose);
    break;
  }
  // ROCm: "ROCm version: 6.2.0", "/opt/rocm-6.2.0/...", "ROCm 6.4.1", "rocm-6.4" but not torch's
  // "+rocm6.2" or a wheel index ".../whl/rocm6.2", which say what torch was built for.
  for (size_t p = lower.find("rocm"); p != std::string::npos; p = lower.find("rocm", p + 4)) {
    if (p > 0 && (lower[p - 1] == '+' || lower[p - 1] == '/' ) && lower.compare(p > 4 ? p - 4 : 0, 4, "opt/") != 0) continue;
    if (p > 0 && (std::isalnum(static_cast<unsigned char>(lower[p - 1])) || lower[p - 1] == '-' || lower[p - 1] == '_')) continue;
    size_t q = p + 4;
    bool labelled = lower.compare(q, 9, " version:") == 0 || lower.compare(q, 8, " version") == 0;
    if (lower.compare(q, 9, " version:") == 0) q += 9;
    else if (lower.compare(q, 8, " version") == 0) q += 8;
    while (q < lower.size() && (lower[q] == ' ' || lower[q] == '-' || lower[q] == 'v' || lower[q] == ':')) ++q;
    if (q >= lower.size() || !scan::is_digit(lower[q]) || q > p + 16) continue;
    auto v = first_version(lower, q);
    if (!v || lower.compare(q, v->size(), *v) != 0) continue;
    std::string ver = v->substr(0, v->find_first_not_of("0123456789.", 0));
    if (std::count(ver.begin(), ver.end(), '.') < 1 || ver.front() > '9' || std::stoi(ver) > 20) continue;  // "rocm 6.2", not a build number
    bool path = p >= 5 && lower.compare(p - 5, 5, "/opt/") == 0;
    // A release named for what it brought or needs ("ROCm 6.3+ support for gfx1201", "AMD added
    // support with ROCm 6.3", "requires ROCm 6.2 or later") is not the installed one: sdnext-style
    // reports quote the release notes next to the SDK they actually run.
    if (!path && !labelled && release_mention(lower, q + v->size())) continue;
    s.propose("rocm.version", ver, i, "text", path || labelled ? weight::labelled : weight::prose);
  }
  // "CUDA Version: 12.4" outside nvidia-smi's header (a report quoting it), "CUDA Runtime (per
  // driver): 13.2": what the driver supports.
  // SGLang's and some collect_env forks' "CUDA Driver Version: 535.216.01" is the driver itself: a
  // CUDA version is 1x.y, a driver branch three digits.
  for (std::string_view label : {"CUDA Version:", "CUDA Runtime (per driver):", "CUDA Driver Version:"})
    if (auto v = after_label(l, label); v && lower.find("nvidia-smi") == std::string::npos)
      if (std::optional<std::string> ver = cuda_api_integer(*v); ver || (ver = first_version(*v))) {
        if (std::atoi(ver->c_str()) >= 100)
          s.propose("nvidia.driver", *ver, i, "text", weight::labelled);
        else
          s.propose("cuda.driver_api", *ver, i, "text", weight::labelled);
      }
  // CUDA in prose ("CUDA 12.4"): the driver's CUDA when said beside nvidia-smi, else left out
  // (users write the toolkit, the wheel's CUDA and the driver's alike).
}

}  // namespace

void scan_prose(paste_scan& s) {
  for (size_t i = 0; i < s.lines.size(); ++i) {
    const std::string& l = s.lines[i];
    if (l.empty() || l.size() > 2048) continue;
    std::string lower = lower_copy(l);
    gpus(s, i, l, lower);
    host_facts(s, i, l, lower);
    versions(s, i, l, lower);
    scan_app_log_line(s, i, l, lower);
    scan_windows_line(s, i, l, lower);
  }
  scan_regressions(s);
}

}  // namespace gs
