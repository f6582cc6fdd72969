// Malformed input never crashes: every detect/ parser on seeded random bytes and on mutations
// of real files, and every hardware detector on trees filled with junk. Run under
// GPUSTACK_SANITIZE=ON this also catches out-of-bounds reads.
#include <gtest/gtest.h>

#include <random>

#include "detect/detect.h"
#include "detect/gpu_tables.h"
#include "detect/kfd_topology.h"
#include "detect/machine_fixtures.h"
#include "detect/nvidia_proc.h"
#include "detect/proc_parse.h"

namespace gs {
namespace {

void parse_everything(std::string_view s) {
  (void)parse_kfd_properties(s);
  (void)parse_nvidia_version(s);
  (void)parse_nvidia_information(s);
  (void)parse_os_release(s);
  (void)parse_meminfo(s);
  (void)parse_cpuinfo(s);
  (void)parse_swaps(s);
  (void)container_kind_from_cgroup(s);
  std::vector<gpu_table_entry> g;
  std::vector<arch_family> f;
  std::vector<table_error> e;
  parse_gpu_table("fuzz.toml", s, g, f, e);
}

TEST(Malformed, RandomBytes) {
  std::mt19937 rng(20261202);
  // Bias toward the bytes the parsers split on, so the random input reaches deep paths.
  const std::string alphabet = " \t\n:=\"'\\#-.0123456789abcdefxNVRM version_ID\xff";
  for (int i = 0; i < 3000; ++i) {
    std::string s(rng() % 300, '\0');
    for (char& c : s) c = (rng() % 3) ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng());
    parse_everything(s);
  }
}

TEST(Malformed, MutatedRealFiles) {
  const char* seeds[] = {
      "cpu_cores_count 0\nsimd_count 128\ngfx_target_version 120001\nlocation_id 768\n",
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n",
      "Model: \t\t NVIDIA H200\nBus Location: \t 0000:00:06.0\nDevice Minor: \t 0\n",
      "ID=ubuntu\nVERSION_ID=\"24.04\"\nPRETTY_NAME=\"Ubuntu 24.04.3 LTS\"\n",
      "MemTotal:       65011928 kB\nSwapTotal:      16777208 kB\n",
      "processor\t: 0\nphysical id\t: 0\ncore id\t\t: 0\nflags\t\t: lm\n\n",
      "Filename Type Size Used Priority\n/dev/zram0 partition 8388604 0 100\n",
      "[[gpu]]\ndevice = 0x7551\nrevision = 0xc0\nname = \"R9700\"\nvram_gib = 32\n",
  };
  std::mt19937 rng(7);
  for (const char* seed : seeds) {
    for (int i = 0; i < 400; ++i) {
      std::string s = seed;
      for (int m = 0, n = 1 + static_cast<int>(rng() % 4); m < n && !s.empty(); ++m) {
        size_t at = rng() % s.size();
        switch (rng() % 3) {
          case 0: s[at] = static_cast<char>(rng()); break;
          case 1: s.erase(at, 1 + rng() % 8); break;
          default: s.insert(at, 1 + rng() % 4, static_cast<char>(rng())); break;
        }
      }
      parse_everything(s);
      parse_everything(s.substr(0, rng() % (s.size() + 1)));  // and every truncation point
    }
  }
}

TEST(Malformed, DetectorsOnJunkTrees) {
  std::mt19937 rng(99);
  const char* files[] = {
      "/etc/os-release", "/proc/cpuinfo", "/proc/meminfo", "/proc/swaps", "/proc/sys/kernel/osrelease",
      "/proc/1/cgroup", "/sys/module/amdgpu/initstate", "/sys/module/amdgpu/version",
      "/sys/class/kfd/kfd/topology/generation_id", "/sys/class/kfd/kfd/topology/nodes/0/properties",
      "/sys/class/kfd/kfd/topology/nodes/1/properties", "/sys/class/kfd/kfd/topology/nodes/1/gpu_id",
      "/sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties", "/sys/bus/pci/devices/0000:03:00.0/vendor",
      "/sys/bus/pci/devices/0000:03:00.0/device", "/sys/bus/pci/devices/0000:03:00.0/class",
      "/sys/bus/pci/devices/0000:03:00.0/revision", "/proc/driver/nvidia/version",
      "/proc/driver/nvidia/gpus/0000:03:00.0/information", "/sys/module/nvidia/version", "/dev/kfd"};
  for (int round = 0; round < 20; ++round) {
    testing::scratch_tree t;
    for (const char* f : files) {
      std::string s(rng() % 200, '\0');
      for (char& c : s) c = static_cast<char>(rng());
      if (round % 2) s = "vendor 0x1002\nsimd_count 4\ngfx_target_version " + std::to_string(rng()) + "\n" + s;
      t.write(f, s);
    }
    machine_facts facts;
    sysroot sys = t.sys();
    detect_host(sys, facts);
    detect_amd(sys, facts);
    detect_nvidia(sys, facts);
    detect_access(sys, facts);
    EXPECT_FALSE(facts.issues.empty()) << "junk everywhere must leave a trace";
  }
}

TEST(Malformed, EveryFixtureEndToEnd) {
  for (const char* name : {"r9700-rocm72", "mi300x", "h200", "no-gpu", "container-eperm", "broken"}) {
    machine_facts facts;
    sysroot sys = testing::machine(name);
    detect_host(sys, facts);
    detect_amd(sys, facts);
    detect_nvidia(sys, facts);
    detect_access(sys, facts);
    for (const detection_issue& i : facts.issues) {
      EXPECT_FALSE(i.source.empty()) << name;
      EXPECT_FALSE(i.message.empty()) << name;
    }
    for (const gpu_info& g : facts.gpus) {
      EXPECT_TRUE(g.vendor == "amd" || g.vendor == "nvidia") << name;
      EXPECT_TRUE(g.source == "kfd" || g.source == "proc-nvidia" || g.source == "pci") << name;
      EXPECT_FALSE(g.name.empty()) << name;
    }
  }
}

}  // namespace
}  // namespace gs
