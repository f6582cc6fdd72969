// Parsers for os-release, meminfo, cpuinfo, swaps and cgroup (see proc_parse.h).
#include "detect/proc_parse.h"

#include <set>
#include <utility>

#include "core/text_scan.h"

namespace gs {

std::map<std::string, std::string> parse_os_release(std::string_view text) {
  std::map<std::string, std::string> out;
  for (std::string_view line : scan::lines(text)) {
    line = scan::trim(line);
    if (line.empty() || line.front() == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string key(scan::trim(line.substr(0, eq)));
    std::string_view raw = scan::trim(line.substr(eq + 1));
    std::string value;
    if (!raw.empty() && (raw.front() == '"' || raw.front() == '\'')) {
      char q = raw.front();
      // Shell-style: inside "" a backslash escapes $ " \ `; inside '' nothing is special.
      for (size_t i = 1; i < raw.size(); ++i) {
        char c = raw[i];
        if (c == q) break;
        if (q == '"' && c == '\\' && i + 1 < raw.size()) c = raw[++i];
        value.push_back(c);
      }
    } else {
      value.assign(raw);
    }
    out[key] = std::move(value);
  }
  return out;
}

std::map<std::string, uint64_t> parse_meminfo(std::string_view text) {
  std::map<std::string, uint64_t> out;
  for (std::string_view line : scan::lines(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    std::string_view rest = scan::trim(line.substr(colon + 1));
    bool kib = false;
    if (rest.size() > 2 && rest.substr(rest.size() - 2) == "kB") {
      kib = true;
      rest = scan::trim(rest.substr(0, rest.size() - 2));
    }
    auto v = scan::parse_u64(rest);
    if (!v) continue;
    if (kib) {
      if (*v > (UINT64_MAX >> 10)) continue;  // no machine has 16 EiB; this is junk
      *v <<= 10;
    }
    out[std::string(scan::trim(line.substr(0, colon)))] = *v;
  }
  return out;
}

cpuinfo_summary parse_cpuinfo(std::string_view text) {
  cpuinfo_summary s;
  std::set<std::pair<std::string, std::string>> cores;
  std::string phys, core;
  bool saw_lm = false, saw_arm8 = false;
  auto end_block = [&] {
    if (!core.empty()) cores.emplace(phys, core);
    phys.clear();
    core.clear();
  };
  for (std::string_view line : scan::lines(text)) {
    if (scan::trim(line).empty()) {
      end_block();
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = scan::trim(line.substr(0, colon));
    std::string_view val = scan::trim(line.substr(colon + 1));
    if (key == "processor") {
      // A new "processor" without a blank line before it still starts a new block.
      end_block();
      ++s.logical;
    } else if (key == "model name" && s.model.empty()) {
      s.model.assign(val);
    } else if ((key == "Hardware" || key == "Model") && s.model.empty()) {
      s.model.assign(val);
    } else if (key == "physical id") {
      phys.assign(val);
    } else if (key == "core id") {
      core.assign(val);
    } else if (key == "flags") {
      // " lm " = long mode: the kernel runs x86-64 code on this CPU.
      std::string padded = " " + std::string(val) + " ";
      if (padded.find(" lm ") != std::string::npos) saw_lm = true;
    } else if (key == "CPU architecture" && (val == "8" || val == "AArch64")) {
      saw_arm8 = true;
    }
  }
  end_block();
  s.physical_cores = static_cast<int>(cores.size());
  if (saw_lm) s.arch_hint = "x86_64";
  else if (saw_arm8) s.arch_hint = "aarch64";
  return s;
}

std::vector<swap_entry> parse_swaps(std::string_view text) {
  std::vector<swap_entry> out;
  bool first = true;
  for (std::string_view line : scan::lines(text)) {
    if (first) {  // "Filename  Type  Size  Used  Priority"
      first = false;
      if (line.starts_with("Filename")) continue;
    }
    std::vector<std::string_view> f = scan::fields(line);
    if (f.size() < 4) continue;
    auto size = scan::parse_u64(f[2]), used = scan::parse_u64(f[3]);
    if (!size || !used || *size > (UINT64_MAX >> 10) || *used > (UINT64_MAX >> 10)) continue;
    swap_entry e;
    e.path.assign(f[0]);
    e.type.assign(f[1]);
    e.size_bytes = *size << 10;
    e.used_bytes = *used << 10;
    e.zram = e.path.starts_with("/dev/zram");
    out.push_back(std::move(e));
  }
  return out;
}

std::string container_kind_from_cgroup(std::string_view text) {
  // Order matters: a Kubernetes pod's path also names its runtime (".../kubepods/.../docker-<id>").
  if (scan::icontains(text, "kubepods")) return "kubernetes";
  if (scan::icontains(text, "libpod")) return "podman";
  if (scan::icontains(text, "docker")) return "docker";
  if (scan::icontains(text, "/lxc") || scan::icontains(text, "lxc.payload")) return "lxc";
  return "";
}

}  // namespace gs
