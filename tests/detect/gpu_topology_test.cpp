// How GPUs reach each other (detect/gpu_topology.h): the link kind of every pair from their places
// in scratch PCI trees (one switch, two host bridges on one NUMA node, two NUMA nodes, an XGMI
// hive), the IOMMU from the GPUs' groups, ACS read from the bridges' config space (and left unknown
// when the read stops at 64 bytes, as it does for a user that is not root), the captured MI300X
// pair, and the knowledge base's two rules on what a tree shows.
#include "detect/gpu_topology.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "detect/machine_fixtures.h"
#include "rules/error_findings.h"
#include "rules/knowledge_base.h"

namespace gs {
namespace {

using testing::machine;
using testing::scratch_tree;

/// 4096 bytes of PCIe config space whose extended capability list holds AER (0x0001) at 0x100 and,
/// when `acs` is not negative, ACS (0x000D) at 0x148 with that control word.
std::string config_space(int acs) {
  std::string c(4096, '\0');
  auto put32 = [&](size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) c[at + size_t(i)] = char((v >> (8 * i)) & 0xff);
  };
  put32(0x100, 0x0001 | (1u << 16) | (acs >= 0 ? 0x148u << 20 : 0));  // AER, version 1, next
  if (acs >= 0) {
    put32(0x148, 0x000d | (1u << 16));  // ACS, version 1, end of list
    c[0x148 + 6] = char(acs & 0xff);
    c[0x148 + 7] = char((acs >> 8) & 0xff);
  }
  return c;
}

/// A GPU at `path` (under /sys/devices) with its bus link, NUMA node and IOMMU group.
void gpu(const scratch_tree& t, const std::string& path, int numa, const std::string& group_type, int group) {
  const std::string addr = path.substr(path.rfind('/') + 1);
  t.write("/sys/devices/" + path + "/numa_node", std::to_string(numa) + "\n");
  std::filesystem::create_directories(t.root() + "/sys/bus/pci/devices");
  std::filesystem::create_symlink("../../../devices/" + path, t.root() + "/sys/bus/pci/devices/" + addr);
  if (!group_type.empty()) {
    t.write("/sys/kernel/iommu_groups/" + std::to_string(group) + "/type", group_type + "\n");
    std::filesystem::create_symlink("../../../../kernel/iommu_groups/" + std::to_string(group),
                                    t.root() + "/sys/devices/" + path + "/iommu_group");
  }
}

/// A bridge's config space, reachable as /sys/bus/pci/devices/ADDR/config like the GPUs.
void bridge(const scratch_tree& t, const std::string& path, const std::string& config) {
  const std::string addr = path.substr(path.rfind('/') + 1);
  t.write("/sys/devices/" + path + "/config", config);
  std::filesystem::create_directories(t.root() + "/sys/bus/pci/devices");
  std::filesystem::create_symlink("../../../devices/" + path, t.root() + "/sys/bus/pci/devices/" + addr);
}

machine_facts two_gpus(const std::string& vendor, const std::string& a, const std::string& b) {
  machine_facts f;
  for (const std::string& addr : {a, b}) {
    gpu_info g;
    g.vendor = vendor;
    g.name = vendor == "amd" ? "Instinct MI300X" : "NVIDIA H100 PCIe";
    g.pci_address = addr;
    f.gpus.push_back(g);
  }
  return f;
}

std::set<std::string> ids_of(const machine_facts& f) {
  std::set<std::string> ids;
  for (const finding& x : builtin_knowledge_base().evaluate(f)) ids.insert(x.id);
  return ids;
}

// Two GPUs below one PLX switch: root port 00:01.0, switch 01:00.0, downstream ports 02:08.0 and
// 02:10.0, GPUs 03:00.0 and 04:00.0; `down_acs` the downstream ports' ACS control word.
void plx_pair(const scratch_tree& t, int down_acs, size_t config_bytes = 4096, const std::string& group = "DMA-FQ") {
  const std::string sw = "pci0000:00/0000:00:01.0/0000:01:00.0";
  bridge(t, "pci0000:00/0000:00:01.0", config_space(-1).substr(0, config_bytes));
  bridge(t, sw, config_space(0).substr(0, config_bytes));
  bridge(t, sw + "/0000:02:08.0", config_space(down_acs).substr(0, config_bytes));
  bridge(t, sw + "/0000:02:10.0", config_space(down_acs).substr(0, config_bytes));
  gpu(t, sw + "/0000:02:08.0/0000:03:00.0", 0, group, 30);
  gpu(t, sw + "/0000:02:10.0/0000:04:00.0", 0, group, 31);
}

TEST(GpuTopology, TwoGpusUnderOneSwitchWithAcsOnAndATranslatingIommu) {
  scratch_tree t;
  plx_pair(t, 0x001d);  // SrcValid, ReqRedir, CmpltRedir, UpstreamFwd: what Linux enables
  machine_facts f = two_gpus("nvidia", "0000:03:00.0", "0000:04:00.0");
  detect_gpu_topology(t.sys(), f);
  EXPECT_EQ(f.gpus[0].pcie_root, "pci0000:00");
  EXPECT_EQ(f.gpus[0].pcie_bridges, (std::vector<std::string>{"0000:00:01.0", "0000:01:00.0", "0000:02:08.0"}));
  EXPECT_EQ(f.gpus[1].numa_node, 0);
  EXPECT_EQ(f.gpus[1].iommu_group_type, "DMA-FQ");
  ASSERT_EQ(f.topology.pairs.size(), 1u);
  EXPECT_EQ(f.topology.pairs[0].kind, "PIX");
  EXPECT_EQ(f.topology.worst, "PIX");
  EXPECT_EQ(f.topology.numa_nodes, 1);
  EXPECT_EQ(f.topology.iommu, "translated");
  EXPECT_TRUE(f.topology.acs_read);
  EXPECT_EQ(f.topology.acs_redirect, (std::vector<std::string>{"0000:02:08.0", "0000:02:10.0"}));
  std::set<std::string> ids = ids_of(f);
  EXPECT_TRUE(ids.count("GS-DIST-504"));
  EXPECT_TRUE(ids.count("GS-DIST-505"));
}

TEST(GpuTopology, AcsReadWithoutRootStaysUnknownAndSaysNothing) {
  scratch_tree t;
  plx_pair(t, 0x001d, 64, "identity");  // an unprivileged read of `config`: the first 64 bytes
  machine_facts f = two_gpus("nvidia", "0000:03:00.0", "0000:04:00.0");
  detect_gpu_topology(t.sys(), f);
  EXPECT_FALSE(f.topology.acs_read);
  EXPECT_TRUE(f.topology.acs_redirect.empty());
  EXPECT_EQ(f.topology.iommu, "passthrough");
  std::set<std::string> ids = ids_of(f);
  EXPECT_FALSE(ids.count("GS-DIST-504"));
  EXPECT_FALSE(ids.count("GS-DIST-505"));
}

TEST(GpuTopology, AcsWithoutRedirectBitsIsOff) {
  scratch_tree t;
  plx_pair(t, 0x0001);  // Source Validation alone routes nothing upstream
  machine_facts f = two_gpus("nvidia", "0000:03:00.0", "0000:04:00.0");
  detect_gpu_topology(t.sys(), f);
  EXPECT_TRUE(f.topology.acs_read);
  EXPECT_TRUE(f.topology.acs_redirect.empty());
}

TEST(GpuTopology, HostBridgesAndNumaNodes) {
  scratch_tree t;
  gpu(t, "pci0000:00/0000:00:01.0/0000:01:00.0", 0, "", 0);
  gpu(t, "pci0000:40/0000:40:01.0/0000:41:00.0", 0, "", 0);
  gpu(t, "pci0000:80/0000:80:01.0/0000:81:00.0", 1, "", 0);
  gpu(t, "pci0000:00/0000:00:03.0/0000:02:00.0", 0, "", 0);
  std::filesystem::create_directories(t.root() + "/sys/class/iommu");  // the kernel lists no IOMMU unit
  machine_facts f = two_gpus("nvidia", "0000:01:00.0", "0000:41:00.0");
  for (const char* addr : {"0000:81:00.0", "0000:02:00.0"}) {
    gpu_info g = f.gpus[0];
    g.pci_address = addr;
    f.gpus.push_back(g);
  }
  detect_gpu_topology(t.sys(), f);
  auto kind = [&](int a, int b) {
    for (const gpu_pair_link& l : f.topology.pairs)
      if (l.a == a && l.b == b) return l.kind;
    return std::string("?");
  };
  EXPECT_EQ(kind(0, 1), "NODE");  // two host bridges, one NUMA node
  EXPECT_EQ(kind(0, 2), "SYS");   // across NUMA nodes
  EXPECT_EQ(kind(0, 3), "PHB");   // two root ports of one host bridge
  EXPECT_EQ(f.topology.worst, "SYS");
  EXPECT_EQ(f.topology.numa_nodes, 2);
  EXPECT_EQ(f.topology.iommu, "off");  // no GPU has an IOMMU group
  EXPECT_FALSE(ids_of(f).count("GS-DIST-505"));
}

TEST(GpuTopology, OneXgmiHiveIsXgmiWhateverThePciTreeSays) {
  scratch_tree t;
  gpu(t, "pci0000:00/0000:00:01.1/0000:05:00.0", 0, "DMA", 1);
  gpu(t, "pci0000:20/0000:20:01.1/0000:26:00.0", 0, "DMA", 2);
  for (const char* dev : {"pci0000:00/0000:00:01.1/0000:05:00.0", "pci0000:20/0000:20:01.1/0000:26:00.0"})
    t.write(std::string("/sys/devices/") + dev + "/xgmi_hive_info/xgmi_hive_id", "14621298429318390818\n");
  machine_facts f = two_gpus("amd", "0000:05:00.0", "0000:26:00.0");
  detect_gpu_topology(t.sys(), f);
  EXPECT_EQ(f.gpus[0].xgmi_hive, "14621298429318390818");
  ASSERT_EQ(f.topology.pairs.size(), 1u);
  EXPECT_EQ(f.topology.pairs[0].kind, "XGMI");
  EXPECT_EQ(f.topology.iommu, "translated");
  EXPECT_FALSE(ids_of(f).count("GS-DIST-505"));  // peer traffic goes over XGMI, not PCIe
}

TEST(GpuTopology, TheCapturedMi300xPairSitsOnTwoSockets) {
  // The capture holds the two GPUs' PCI paths and NUMA nodes (0 and 1) but no IOMMU group, XGMI
  // or config files: what it shows is two GPUs on two sockets' host bridges.
  sysroot sys = machine("mi300x");
  machine_facts f = two_gpus("amd", "0000:05:00.0", "0000:26:00.0");
  detect_gpu_topology(sys, f);
  EXPECT_EQ(f.gpus[0].pcie_root, "pci0000:00");
  EXPECT_EQ(f.gpus[1].pcie_root, "pci0000:20");
  EXPECT_EQ(f.gpus[1].pcie_bridges.size(), 5u);
  ASSERT_EQ(f.topology.pairs.size(), 1u);
  EXPECT_EQ(f.topology.pairs[0].kind, "SYS");
  EXPECT_EQ(f.topology.numa_nodes, 2);
  EXPECT_EQ(f.topology.iommu, "");    // not captured: unknown, not "off"
  EXPECT_FALSE(f.topology.acs_read);  // no config files captured
}

TEST(GpuTopology, AcsControlReadsTheExtendedCapabilityList) {
  EXPECT_EQ(acs_control(config_space(0x001d)), 0x001d);
  EXPECT_EQ(acs_control(config_space(-1)), 0);  // no ACS capability: nothing to redirect
  EXPECT_FALSE(acs_control(config_space(0x001d).substr(0, 64)));
  EXPECT_FALSE(acs_control(""));
  std::string loop(4096, '\0');
  loop[0x100] = 0x01;
  loop[0x102] = 0x01;
  loop[0x103] = 0x10;  // next = 0x100: itself
  EXPECT_EQ(acs_control(loop), 0);
}

TEST(GpuTopology, OneGpuHasAPlaceButNoTopology) {
  scratch_tree t;
  gpu(t, "pci0000:00/0000:00:01.0/0000:01:00.0", 0, "identity", 3);
  machine_facts f = two_gpus("nvidia", "0000:01:00.0", "0000:02:00.0");
  f.gpus.pop_back();
  detect_gpu_topology(t.sys(), f);
  EXPECT_EQ(f.gpus[0].pcie_root, "pci0000:00");
  EXPECT_TRUE(f.topology.pairs.empty());
  EXPECT_EQ(f.topology.worst, "");
}

}  // namespace
}  // namespace gs
