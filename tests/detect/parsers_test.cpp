// The small detect/ parsers on hand-written input: KFD properties, gfx decode, PCI location,
// NVIDIA banner and information, os-release, meminfo, cpuinfo, swaps, cgroup.
#include <gtest/gtest.h>

#include "detect/kfd_topology.h"
#include "detect/nvidia_proc.h"
#include "detect/proc_parse.h"
#include "core/text_scan.h"

namespace gs {
namespace {

TEST(GfxDecode, KnownTargets) {
  EXPECT_EQ(gfx_name(90010), "gfx90a");   // stepping 10 prints as hex 'a'
  EXPECT_EQ(gfx_name(90402), "gfx942");
  EXPECT_EQ(gfx_name(90400), "gfx940");
  EXPECT_EQ(gfx_name(90008), "gfx908");
  EXPECT_EQ(gfx_name(90006), "gfx906");
  EXPECT_EQ(gfx_name(100300), "gfx1030");
  EXPECT_EQ(gfx_name(110000), "gfx1100");
  EXPECT_EQ(gfx_name(110001), "gfx1101");
  EXPECT_EQ(gfx_name(110501), "gfx1151");
  EXPECT_EQ(gfx_name(120000), "gfx1200");
  EXPECT_EQ(gfx_name(120001), "gfx1201");
  EXPECT_EQ(gfx_name(120500), "gfx1250");
}

TEST(GfxDecode, ZeroIsCpuAndJunkStaysBounded) {
  EXPECT_EQ(gfx_name(0), "");
  // Out-of-range parts never print more than two hex digits each, never crash.
  EXPECT_EQ(gfx_name(999999), "gfx996363");
  EXPECT_FALSE(gfx_name(UINT64_MAX).empty());
}

TEST(KfdProperties, ParsesKeyValueLines) {
  auto p = parse_kfd_properties("cpu_cores_count 0\nsimd_count 128\ngfx_target_version 120001\n"
                                "hive_id 11638818706288400384\nnew_future_key 7\n");
  EXPECT_FALSE(p.truncated);
  EXPECT_EQ(p.malformed_lines, 0);
  EXPECT_EQ(p.get_or("simd_count", 0), 128u);
  EXPECT_EQ(p.get_or("gfx_target_version", 0), 120001u);
  EXPECT_EQ(p.get_or("hive_id", 0), 11638818706288400384ull);  // > INT64_MAX: kept unsigned
  EXPECT_EQ(p.get_or("new_future_key", 0), 7u);                 // unknown keys are kept
  EXPECT_FALSE(p.get("missing").has_value());
}

TEST(KfdProperties, TruncatedFileKeepsCompleteLinesOnly) {
  auto p = parse_kfd_properties("simd_count 128\nsimd_per_cu 2\nlocation_id 7");
  EXPECT_TRUE(p.truncated);
  EXPECT_EQ(p.get_or("simd_count", 0), 128u);
  EXPECT_EQ(p.get_or("simd_per_cu", 0), 2u);
  EXPECT_FALSE(p.get("location_id").has_value()) << "a value cut mid-write must not be trusted";
  EXPECT_TRUE(parse_kfd_properties("simd_c").truncated);
  EXPECT_TRUE(parse_kfd_properties("simd_c").values.empty());
}

TEST(KfdProperties, MalformedLinesAreCountedNotFatal) {
  auto p = parse_kfd_properties("good 1\nbad\nvalue notanumber\n\xff\xfe 3\nspace  \nneg -1\n99999999999999999999999 1\n"
                                "toolong 999999999999999999999999\nok 2\n");
  EXPECT_EQ(p.get_or("good", 0), 1u);
  EXPECT_EQ(p.get_or("ok", 0), 2u);
  EXPECT_EQ(p.get_or("neg", 0), static_cast<uint64_t>(-1));  // a %d field printed as -1
  EXPECT_EQ(p.malformed_lines, 5);
  EXPECT_EQ(p.values.size(), 4u);
}

TEST(KfdProperties, NodeGpuTest) {
  kfd_node cpu;
  cpu.props = parse_kfd_properties("cpu_cores_count 32\nsimd_count 0\ngfx_target_version 0\n");
  EXPECT_FALSE(cpu.is_gpu());
  kfd_node gpu;
  gpu.props = parse_kfd_properties("cpu_cores_count 0\nsimd_count 128\ngfx_target_version 120001\n");
  EXPECT_TRUE(gpu.is_gpu());
  kfd_node apu;  // an APU node has CPU cores and SIMDs
  apu.props = parse_kfd_properties("cpu_cores_count 16\nsimd_count 24\ngfx_target_version 110501\n");
  EXPECT_TRUE(apu.is_gpu());
  kfd_node cut;  // truncated before gfx_target_version: unknown arch, still a GPU
  cut.props = parse_kfd_properties("cpu_cores_count 0\nsimd_count 128\n");
  EXPECT_TRUE(cut.is_gpu());
  kfd_node empty;
  EXPECT_FALSE(empty.is_gpu());
  gpu.mem_banks = {{1, 100}, {2, 20}, {0, 5000}, {5, 7}};
  EXPECT_EQ(gpu.vram_bytes(), 120u);  // heap types 1 and 2 only
}

TEST(KfdLocation, DecodesBusDeviceFunction) {
  EXPECT_EQ(pci_address_from_location(0, 0x0300), "0000:03:00.0");
  EXPECT_EQ(pci_address_from_location(0, 0x050b), "0000:05:01.3");
  EXPECT_EQ(pci_address_from_location(1, 0x7500), "0001:75:00.0");
  EXPECT_EQ(pci_address_from_location(0, 0xf500), "0000:f5:00.0");
  EXPECT_EQ(pci_address_from_location(0, 0x30000 | 0x2600), "0000:26:00.0");  // bits above the BDF ignored
  EXPECT_EQ(pci_address_from_location(0, 0x2600 | 3), "0000:26:00.3");     // a partition's node id shows
}

TEST(NvidiaBanner, OpenModule) {
  auto b = parse_nvidia_version(
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n"
      "GCC version:  gcc version 15.3.0 (GCC) \n");
  EXPECT_TRUE(b.ok);
  EXPECT_EQ(b.version, "580.159.04");
  EXPECT_TRUE(b.open_module);
}

TEST(NvidiaBanner, ProprietaryModule) {
  auto b = parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n");
  EXPECT_TRUE(b.ok);
  EXPECT_EQ(b.version, "550.54.14");
  EXPECT_FALSE(b.open_module);
  EXPECT_EQ(parse_nvidia_version("NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104\n").version, "535.104");
}

TEST(NvidiaBanner, GarbageIsNotOk) {
  EXPECT_FALSE(parse_nvidia_version("").ok);
  EXPECT_FALSE(parse_nvidia_version("GCC version: gcc 12.2.0\n").ok);  // the only version is GCC's
  EXPECT_FALSE(parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module (garbled)\n").ok);
  EXPECT_FALSE(parse_nvidia_version("NVRM version: 580. 1.2.3.4 x86_64\n").ok);
  EXPECT_EQ(find_driver_version("for x86_64 580.159.04"), "580.159.04");
}

TEST(NvidiaInformation, SplitsOnFirstColon) {
  auto m = parse_nvidia_information("Model: \t\t NVIDIA H200\nGPU UUID: \t GPU-055601fb-ae22\n"
                                    "Bus Location: \t 0000:00:06.0\nDevice Minor: \t 0\nno colon here\n: empty key\n");
  EXPECT_EQ(m["Model"], "NVIDIA H200");
  EXPECT_EQ(m["Bus Location"], "0000:00:06.0");  // later colons stay in the value
  EXPECT_EQ(m["Device Minor"], "0");
  EXPECT_EQ(m.size(), 4u);
}

TEST(OsRelease, QuotesEscapesComments) {
  auto m = parse_os_release("# comment\nID=ubuntu\nVERSION_ID=\"24.04\"\nPRETTY_NAME='Ubuntu 24.04.3 LTS'\n"
                            "NAME=\"Say \\\"hi\\\"\"\nnot a pair\n=novalue\n");
  EXPECT_EQ(m["ID"], "ubuntu");
  EXPECT_EQ(m["VERSION_ID"], "24.04");
  EXPECT_EQ(m["PRETTY_NAME"], "Ubuntu 24.04.3 LTS");
  EXPECT_EQ(m["NAME"], "Say \"hi\"");
  EXPECT_EQ(m.size(), 4u);
  EXPECT_EQ(parse_os_release("ID=\"unterminated\n")["ID"], "unterminated");
}

TEST(Meminfo, KibToBytesAndCounts) {
  auto m = parse_meminfo("MemTotal:       65011928 kB\nHugePages_Total:       0\nbogus\nMemFree: x kB\n");
  EXPECT_EQ(m["MemTotal"], 65011928ull * 1024);
  EXPECT_EQ(m["HugePages_Total"], 0u);
  EXPECT_FALSE(m.count("MemFree"));
  EXPECT_FALSE(parse_meminfo("Big: 99999999999999999999 kB\n").count("Big"));
  EXPECT_FALSE(parse_meminfo("Huge: 18014398509481984 kB\n").count("Huge"));  // would overflow bytes
}

TEST(Cpuinfo, CountsThreadsAndCores) {
  std::string text;
  for (int i = 0; i < 8; ++i)
    text += "processor\t: " + std::to_string(i) + "\nmodel name\t: Test CPU\nphysical id\t: 0\ncore id\t\t: " +
            std::to_string(i % 4) + "\nflags\t\t: fpu lm sse\n\n";
  auto c = parse_cpuinfo(text);
  EXPECT_EQ(c.logical, 8);
  EXPECT_EQ(c.physical_cores, 4);  // SMT: two threads per core
  EXPECT_EQ(c.model, "Test CPU");
  EXPECT_EQ(c.arch_hint, "x86_64");
  auto arm = parse_cpuinfo("processor\t: 0\nBogoMIPS\t: 50.00\nCPU architecture: 8\n\nprocessor\t: 1\n\n");
  EXPECT_EQ(arm.logical, 2);
  EXPECT_EQ(arm.physical_cores, 0);  // no core ids: unknown, not 2
  EXPECT_EQ(arm.arch_hint, "aarch64");
}

TEST(Swaps, ZramIsSeparated) {
  auto s = parse_swaps("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                       "/swap.img   file  8388604  1024  -2\n/dev/zram0 partition 4194300 0 100\nbroken line\n");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_FALSE(s[0].zram);
  EXPECT_EQ(s[0].size_bytes, 8388604ull * 1024);
  EXPECT_EQ(s[0].used_bytes, 1024ull * 1024);
  EXPECT_TRUE(s[1].zram);
  EXPECT_TRUE(parse_swaps("Filename Type Size Used Priority\n").empty());
}

TEST(Cgroup, ContainerKinds) {
  EXPECT_EQ(container_kind_from_cgroup("12:pids:/docker/3f9a\n"), "docker");
  EXPECT_EQ(container_kind_from_cgroup("0::/kubepods/besteffort/pod1/docker-3f9a.scope\n"), "kubernetes");
  EXPECT_EQ(container_kind_from_cgroup("0::/machine.slice/libpod-3f9a.scope\n"), "podman");
  EXPECT_EQ(container_kind_from_cgroup("0::/lxc.payload.c1\n"), "lxc");
  EXPECT_EQ(container_kind_from_cgroup("0::/init.scope\n"), "");
  EXPECT_EQ(container_kind_from_cgroup("0::/\n"), "");
}

TEST(TextScan, LastPathPart) {
  EXPECT_EQ(scan::last_path_part("/usr/bin/docker"), "docker");
  EXPECT_EQ(scan::last_path_part("podman"), "podman");
  EXPECT_EQ(scan::last_path_part("dir/"), "");
}

TEST(TextScan, StrictNumbers) {
  EXPECT_EQ(scan::parse_u64(" 42\n"), 42u);
  EXPECT_FALSE(scan::parse_u64("12abc"));
  EXPECT_FALSE(scan::parse_u64(""));
  EXPECT_FALSE(scan::parse_u64("18446744073709551616"));  // 2^64
  EXPECT_EQ(scan::parse_u64("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(scan::parse_hex("0x7551\n"), 0x7551u);
  EXPECT_EQ(scan::parse_hex("C0"), 0xc0u);
  EXPECT_FALSE(scan::parse_hex("0x"));
  EXPECT_FALSE(scan::parse_hex("0xZZZZ"));
  EXPECT_EQ(scan::hex(0xc0, 2), "c0");
  EXPECT_EQ(scan::hex(3, 4), "0003");
  EXPECT_TRUE(scan::icontains("6.6.87.2-microsoft-standard-WSL2", "Microsoft"));
  EXPECT_FALSE(scan::printable(std::string("a\0b", 3)));
}

}  // namespace
}  // namespace gs
