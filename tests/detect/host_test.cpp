// detect_host on every machine fixture, plus the os-release fallback and WSL on scratch trees.
#include <gtest/gtest.h>

#include "detect/detect.h"
#include "detect/machine_fixtures.h"

namespace gs {
namespace {

using testing::count_issues;
using testing::machine;

machine_facts host_of(const sysroot& sys) {
  machine_facts f;
  detect_host(sys, f);
  return f;
}

TEST(DetectHost, R9700Workstation) {
  machine_facts f = host_of(machine("r9700-rocm72"));
  const host_info& h = f.host;
  EXPECT_EQ(h.os_id, "ubuntu");
  EXPECT_EQ(h.os_version, "24.04");
  EXPECT_EQ(h.os_pretty, "Ubuntu 24.04.3 LTS");
  EXPECT_EQ(h.kernel, "6.14.0-29-generic");
  EXPECT_EQ(h.machine, "x86_64");
  EXPECT_EQ(h.cpu_model, "AMD Ryzen 9 9950X 16-Core Processor");
  EXPECT_EQ(h.cpu_logical, 32);
  EXPECT_EQ(h.cpu_physical_cores, 16);
  EXPECT_EQ(h.ram_total_bytes, 65011928ull * 1024);
  EXPECT_EQ(h.ram_available_bytes, 55840192ull * 1024);
  EXPECT_EQ(h.swap_total_bytes, 16777208ull * 1024);
  EXPECT_EQ(h.swap_free_bytes, 16777208ull * 1024);
  EXPECT_EQ(h.zram_bytes, 8388604ull * 1024);  // only /dev/zram0, not /swap.img
  EXPECT_FALSE(h.in_container);
  EXPECT_EQ(h.container_kind, "");
  EXPECT_TRUE(f.issues.empty()) << f.issues[0].source << ": " << f.issues[0].message;
}

TEST(DetectHost, Mi300xWithoutKernelArchSysctl) {
  machine_facts f = host_of(machine("mi300x"));
  EXPECT_EQ(f.host.os_version, "22.04");
  EXPECT_EQ(f.host.kernel, "5.15.0-131-generic");
  EXPECT_EQ(f.host.machine, "x86_64");  // inferred from cpuinfo's "lm" flag: 5.15 has no kernel.arch
  EXPECT_EQ(f.host.cpu_logical, 40);
  EXPECT_EQ(f.host.cpu_physical_cores, 20);
  EXPECT_EQ(f.host.zram_bytes, 0u);
  EXPECT_EQ(f.host.swap_total_bytes, 0u);
  EXPECT_TRUE(f.issues.empty());
}

TEST(DetectHost, H200) {
  machine_facts f = host_of(machine("h200"));
  EXPECT_EQ(f.host.os_pretty, "Ubuntu 24.04.3 LTS");
  EXPECT_EQ(f.host.kernel, "6.18.44-fc-v973-gpu");
  EXPECT_EQ(f.host.cpu_model, "Intel(R) Xeon(R) Processor");
  EXPECT_EQ(f.host.cpu_logical, 16);
  EXPECT_EQ(f.host.cpu_physical_cores, 16);
  EXPECT_EQ(f.host.ram_total_bytes, 131985220ull * 1024);
  EXPECT_FALSE(f.host.in_container);
  EXPECT_TRUE(f.issues.empty());
}

TEST(DetectHost, DebianThroughRelativeOsReleaseLink) {
  machine_facts f = host_of(machine("no-gpu"));
  EXPECT_EQ(f.host.os_id, "debian");
  EXPECT_EQ(f.host.os_version, "12");
  EXPECT_EQ(f.host.os_pretty, "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(f.host.cpu_logical, 6);
  EXPECT_EQ(f.host.cpu_physical_cores, 6);
  EXPECT_EQ(f.host.ram_total_bytes, 16231764ull * 1024);
  EXPECT_EQ(f.host.zram_bytes, 0u);  // a disk swap partition is not zram
  EXPECT_EQ(f.host.swap_total_bytes, 999420ull * 1024);
  EXPECT_TRUE(f.issues.empty());
}

TEST(DetectHost, DockerContainer) {
  machine_facts f = host_of(machine("container-eperm"));
  EXPECT_TRUE(f.host.in_container);
  EXPECT_EQ(f.host.container_kind, "docker");  // from /.dockerenv: cgroup v2 shows only "0::/"
  EXPECT_EQ(f.host.os_version, "22.04");
}

TEST(DetectHost, BrokenFilesBecomeIssues) {
  machine_facts f = host_of(machine("broken"));
  EXPECT_EQ(f.host.os_id, "");
  EXPECT_EQ(count_issues(f, "/etc/os-release", "not an os-release file"), 1);
  EXPECT_EQ(f.host.kernel, "");
  EXPECT_EQ(count_issues(f, "/proc/sys/kernel/osrelease", "not text"), 1);
  EXPECT_EQ(f.host.cpu_logical, 3);  // the file is cut inside the third block
  EXPECT_EQ(f.host.ram_total_bytes, 0u);
  EXPECT_EQ(count_issues(f, "/proc/meminfo", "no MemTotal"), 1);
  EXPECT_EQ(f.host.ram_available_bytes, 1024u * 1024);  // no MemAvailable: MemFree
  EXPECT_EQ(f.host.zram_bytes, 0u);  // the zram line's size is not a number
}

TEST(DetectHost, OsReleaseFallbackAndMissingFiles) {
  testing::scratch_tree t;
  t.write("/usr/lib/os-release", "ID=fedora\nVERSION_ID=41\nNAME=\"Fedora Linux\"\n");
  machine_facts f = host_of(t.sys());
  EXPECT_EQ(f.host.os_id, "fedora");
  EXPECT_EQ(f.host.os_pretty, "Fedora Linux");  // no PRETTY_NAME: NAME
  EXPECT_EQ(count_issues(f, "/proc/cpuinfo", "ENOENT"), 1);
  EXPECT_EQ(count_issues(f, "/proc/meminfo", "ENOENT"), 1);
  EXPECT_EQ(count_issues(f, "/proc/swaps", ""), 0);  // optional

  testing::scratch_tree empty;
  machine_facts g = host_of(empty.sys());
  EXPECT_EQ(count_issues(g, "/etc/os-release", "/usr/lib/os-release: ENOENT"), 1);
}

TEST(DetectHost, WslIsNotAContainer) {
  testing::scratch_tree t;
  t.write("/proc/sys/kernel/osrelease", "6.6.87.2-microsoft-standard-WSL2\n");
  machine_facts f = host_of(t.sys());
  EXPECT_EQ(f.host.container_kind, "wsl");
  EXPECT_FALSE(f.host.in_container);
  t.write("/.dockerenv", "");
  machine_facts g = host_of(t.sys());
  EXPECT_EQ(g.host.container_kind, "docker");  // docker inside WSL is docker
  EXPECT_TRUE(g.host.in_container);
}

TEST(DetectHost, ContainerFromCgroupAndSystemd) {
  testing::scratch_tree t;
  t.write("/proc/1/cgroup", "11:devices:/kubepods/burstable/pod12/0c1d\n");
  EXPECT_EQ(host_of(t.sys()).host.container_kind, "kubernetes");
  testing::scratch_tree p;
  p.write("/run/.containerenv", "engine=\"podman-4.9\"\n");
  EXPECT_EQ(host_of(p.sys()).host.container_kind, "podman");
  testing::scratch_tree n;
  n.write("/run/systemd/container", "systemd-nspawn\n");
  EXPECT_EQ(host_of(n.sys()).host.container_kind, "systemd-nspawn");
}

TEST(DetectHost, LiveMachineDoesNotCrash) {
  machine_facts f = host_of(sysroot::live());
  EXPECT_FALSE(f.host.machine.empty());
  EXPECT_GT(f.host.cpu_logical, 0);
  EXPECT_GT(f.host.ram_total_bytes, 0u);
}

}  // namespace
}  // namespace gs
