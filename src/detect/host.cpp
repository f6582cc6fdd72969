// detect_host: OS, kernel, CPU, RAM, swap (zram apart) and container kind, all from files so a
// captured tree answers exactly like the live machine. RAM matters to fine-tuning more than it
// looks: a 31B model's 4-bit load stages ~62 GB of BF16 in CPU RAM, and zram "swap" is RAM too.
#include <sys/utsname.h>

#include <cerrno>

#include "detect/detect.h"
#include "detect/proc_parse.h"
#include "detect/read_issue.h"
#include "core/text_scan.h"

namespace gs {
namespace {

void read_os(const sysroot& sys, machine_facts& facts) {
  // os-release(5): /etc/os-release wins, /usr/lib/os-release is the fallback it usually links to.
  read_result r = sys.read("/etc/os-release");
  std::string_view source = "/etc/os-release";
  if (!r) {
    read_result r2 = sys.read("/usr/lib/os-release");
    if (r2) {
      r = std::move(r2);
      source = "/usr/lib/os-release";
    } else {
      add_issue(facts, "/etc/os-release", explain_errno(r.err) + " (and /usr/lib/os-release: " +
                                              errno_name(r2.err) + ")");
      return;
    }
  }
  auto kv = parse_os_release(*r.text);
  if (kv.empty()) {
    add_issue(facts, source, "no key/value lines: not an os-release file");
    return;
  }
  facts.host.os_id = kv["ID"];
  facts.host.os_version = kv["VERSION_ID"];
  facts.host.os_pretty = kv.count("PRETTY_NAME") ? kv["PRETTY_NAME"] : kv["NAME"];
}

void read_kernel_and_arch(const sysroot& sys, machine_facts& facts, const cpuinfo_summary& cpu) {
  if (auto k = read_or_issue(sys, "/proc/sys/kernel/osrelease", facts, false)) {
    std::string_view v = scan::trim(*k);
    if (scan::printable(v)) facts.host.kernel.assign(v);
    else add_issue(facts, "/proc/sys/kernel/osrelease", "not text");
  }
  // kernel.arch (Linux 6.1+) is what `uname -m` prints; older kernels lack it.
  if (auto a = sys.read_text("/proc/sys/kernel/arch")) {
    std::string_view v = scan::trim(*a);
    if (!v.empty() && scan::printable(v)) {
      facts.host.machine.assign(v);
      return;
    }
  }
  if (sys.is_live()) {
    struct utsname u {};
    if (::uname(&u) == 0) {
      facts.host.machine = u.machine;
      return;
    }
  }
  facts.host.machine = cpu.arch_hint;  // a captured tree from an older kernel: infer from cpuinfo
}

cpuinfo_summary read_cpu(const sysroot& sys, machine_facts& facts) {
  cpuinfo_summary cpu;
  if (auto t = read_or_issue(sys, "/proc/cpuinfo", facts, false)) {
    cpu = parse_cpuinfo(*t);
    if (cpu.logical == 0) add_issue(facts, "/proc/cpuinfo", "no 'processor' entries");
  }
  facts.host.cpu_model = cpu.model;
  facts.host.cpu_logical = cpu.logical;
  facts.host.cpu_physical_cores = cpu.physical_cores;
  return cpu;
}

void read_memory(const sysroot& sys, machine_facts& facts) {
  if (auto t = read_or_issue(sys, "/proc/meminfo", facts, false)) {
    auto m = parse_meminfo(*t);
    auto get = [&](const char* k) { auto it = m.find(k); return it == m.end() ? uint64_t{0} : it->second; };
    facts.host.ram_total_bytes = get("MemTotal");
    // MemAvailable exists since Linux 3.14; without it MemFree is the honest lower bound.
    facts.host.ram_available_bytes = m.count("MemAvailable") ? get("MemAvailable") : get("MemFree");
    facts.host.swap_total_bytes = get("SwapTotal");
    facts.host.swap_free_bytes = get("SwapFree");
    if (!m.count("MemTotal")) add_issue(facts, "/proc/meminfo", "no MemTotal line");
  }
  if (auto t = read_or_issue(sys, "/proc/swaps", facts, true)) {
    uint64_t zram = 0;
    for (const swap_entry& e : parse_swaps(*t))
      if (e.zram) zram += e.size_bytes;
    facts.host.zram_bytes = zram;
  }
}

void read_container(const sysroot& sys, machine_facts& facts) {
  host_info& h = facts.host;
  // Markers the runtimes drop in the root: Docker's /.dockerenv, Podman's /run/.containerenv.
  if (sys.exists("/.dockerenv")) h.container_kind = "docker";
  else if (sys.exists("/run/.containerenv")) h.container_kind = "podman";
  if (h.container_kind.empty())
    if (auto cg = sys.read_text("/proc/1/cgroup")) h.container_kind = container_kind_from_cgroup(*cg);
  if (h.container_kind.empty())
    // systemd-nspawn and LXC write the manager's name here ("lxc", "systemd-nspawn", "docker").
    if (auto c = sys.read_text("/run/systemd/container")) {
      std::string_view v = scan::trim(*c);
      if (!v.empty() && scan::printable(v)) h.container_kind.assign(v);
    }
  h.in_container = !h.container_kind.empty();
  // WSL is a VM, not a container: GPU access goes through /dev/dxg, not /dev/kfd, so it gets
  // its own kind but in_container stays false (no --device advice applies).
  if (h.container_kind.empty() && scan::icontains(h.kernel, "microsoft")) h.container_kind = "wsl";
}

}  // namespace

void detect_host(const sysroot& sys, machine_facts& facts) {
  read_os(sys, facts);
  cpuinfo_summary cpu = read_cpu(sys, facts);
  read_kernel_and_arch(sys, facts, cpu);
  read_memory(sys, facts);
  read_container(sys, facts);
}

}  // namespace gs
