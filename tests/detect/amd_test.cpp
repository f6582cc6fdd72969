// detect_amd on the machine fixtures (R9700, MI300X, container with EPERM, broken, no GPU) and
// on scratch trees for the generation_id retry and the PCI-only fallbacks.
#include <gtest/gtest.h>

#include <fstream>

#include "detect/detect.h"
#include "detect/kfd_topology.h"
#include "detect/machine_fixtures.h"

namespace gs {
namespace {

using testing::count_issues;
using testing::machine;

machine_facts amd_of(const sysroot& sys) {
  machine_facts f;
  detect_amd(sys, f);
  return f;
}

TEST(DetectAmd, R9700FromKfdDrmAndTable) {
  machine_facts f = amd_of(machine("r9700-rocm72"));
  ASSERT_EQ(f.gpus.size(), 1u);
  const gpu_info& g = f.gpus[0];
  EXPECT_EQ(g.vendor, "amd");
  EXPECT_EQ(g.source, "kfd");
  EXPECT_EQ(g.arch, "gfx1201");
  EXPECT_EQ(g.gfx_target_version, 120001u);
  EXPECT_EQ(g.family, "rdna4");
  EXPECT_EQ(g.name, "Radeon AI PRO R9700");
  EXPECT_EQ(g.compute_units, 64);  // simd_count 128 / simd_per_cu 2
  EXPECT_EQ(g.wave_size, 32);
  EXPECT_EQ(g.vram_bytes, 32ull << 30);
  EXPECT_EQ(g.pci_id, "1002:7551");
  EXPECT_EQ(g.pci_revision, "c0");
  EXPECT_EQ(g.pci_address, "0000:03:00.0");
  EXPECT_EQ(g.kfd_node, 1);  // CPU node 0 counted, as HSA_OVERRIDE_GFX_VERSION_<n> counts
  EXPECT_EQ(g.render_minor, 128);
  EXPECT_EQ(g.serial, "5a3c1f0e92b7d441");
  EXPECT_TRUE(f.stack.amdgpu_loaded);
  EXPECT_EQ(f.stack.amdgpu_initstate, "live");
  EXPECT_EQ(f.stack.amdgpu_version, "");  // in-kernel driver: no version file
  EXPECT_TRUE(f.issues.empty()) << f.issues[0].source << ": " << f.issues[0].message;
}

TEST(DetectAmd, Mi300xTwoGpusDkms) {
  machine_facts f = amd_of(machine("mi300x"));
  ASSERT_EQ(f.gpus.size(), 2u);
  for (const gpu_info& g : f.gpus) {
    EXPECT_EQ(g.arch, "gfx942");
    EXPECT_EQ(g.family, "cdna3");
    EXPECT_EQ(g.name, "Instinct MI300X");
    EXPECT_EQ(g.compute_units, 304);  // 1216 SIMDs / 4
    EXPECT_EQ(g.wave_size, 64);
    EXPECT_EQ(g.vram_bytes, 192ull << 30);
    EXPECT_EQ(g.pci_id, "1002:74a1");
    EXPECT_EQ(g.pci_revision, "00");
    EXPECT_EQ(g.source, "kfd");
  }
  EXPECT_EQ(f.gpus[0].pci_address, "0000:05:00.0");
  EXPECT_EQ(f.gpus[1].pci_address, "0000:26:00.0");
  EXPECT_EQ(f.gpus[0].render_minor, 128);
  EXPECT_EQ(f.gpus[1].render_minor, 129);
  EXPECT_NE(f.gpus[0].serial, f.gpus[1].serial);
  EXPECT_EQ(f.stack.amdgpu_version, "6.12.12");
  EXPECT_TRUE(f.issues.empty()) << f.issues[0].source << ": " << f.issues[0].message;
}

TEST(DetectAmd, ContainerHiddenNodeIsEpermAndGpuComesFromPci) {
  machine_facts f = amd_of(machine("container-eperm"));
  EXPECT_EQ(count_issues(f, "/sys/class/kfd/kfd/topology/nodes/1/properties",
                         "EPERM: hidden by the container's device cgroup"), 1);
  ASSERT_EQ(f.gpus.size(), 1u);
  const gpu_info& g = f.gpus[0];
  EXPECT_EQ(g.source, "pci");
  EXPECT_EQ(g.pci_id, "1002:7550");
  EXPECT_EQ(g.pci_revision, "c0");
  EXPECT_EQ(g.name, "Radeon RX 9070 XT");  // revision c0 of 0x7550
  EXPECT_EQ(g.arch, "gfx1201");            // from the table: no KFD node to read
  EXPECT_EQ(g.family, "rdna4");
  EXPECT_EQ(g.wave_size, 32);
  EXPECT_EQ(g.render_minor, -1);
  EXPECT_EQ(count_issues(f, "/sys/bus/pci/devices/0000:0c:00.0", "hidden (EPERM)"), 1);
}

TEST(DetectAmd, BrokenTruncatedPropertiesStillYieldAGpu) {
  machine_facts f = amd_of(machine("broken"));
  const std::string n1 = "/sys/class/kfd/kfd/topology/nodes/1/properties";
  const std::string n2 = "/sys/class/kfd/kfd/topology/nodes/2/properties";
  EXPECT_EQ(count_issues(f, n1, "truncated"), 1);
  EXPECT_GE(count_issues(f, n2, "malformed line"), 1);
  EXPECT_EQ(count_issues(f, "/sys/module/amdgpu/version", "not text"), 1);
  EXPECT_EQ(count_issues(f, "/sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties", "malformed"), 1);
  // Node 1 was cut inside "location_id 768": what came before is used, the address is unknown,
  // and the PCI device it must be (1002:7551) is not reported a second time.
  ASSERT_EQ(f.gpus.size(), 1u);
  const gpu_info& g = f.gpus[0];
  EXPECT_EQ(g.source, "kfd");
  EXPECT_EQ(g.arch, "gfx1201");
  EXPECT_EQ(g.compute_units, 64);
  EXPECT_EQ(g.wave_size, 32);
  EXPECT_EQ(g.pci_id, "1002:7551");
  EXPECT_EQ(g.pci_address, "");
  EXPECT_EQ(g.render_minor, -1);
  EXPECT_EQ(g.vram_bytes, 0u);  // the bank file was cut before its size
  EXPECT_EQ(g.name, "Radeon AI PRO R9700");  // revision unknown: the device's default entry
}

TEST(DetectAmd, NoGpuMachineHasNothing) {
  machine_facts f = amd_of(machine("no-gpu"));
  EXPECT_TRUE(f.gpus.empty());  // the Intel iGPU on the bus is not ours
  EXPECT_FALSE(f.stack.amdgpu_loaded);
  EXPECT_TRUE(f.issues.empty());
}

/// A minimal KFD tree with one GPU node.
void write_kfd(const testing::scratch_tree& t, const std::string& gfx, const std::string& location) {
  t.write("/sys/devices/virtual/kfd/kfd/topology/generation_id", "1\n");
  t.write("/sys/devices/virtual/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 8\nsimd_count 0\ngfx_target_version 0\n");
  t.write("/sys/devices/virtual/kfd/kfd/topology/nodes/1/properties",
          "simd_count 120\nwave_front_size 32\nsimd_per_cu 2\ngfx_target_version " + gfx +
              "\nvendor_id 4098\ndevice_id 29772\nlocation_id " + location + "\ndomain 0\ndrm_render_minor 129\n");
  t.write("/sys/devices/virtual/kfd/kfd/topology/nodes/1/mem_banks/0/properties", "heap_type 2\nsize_in_bytes 100\n");
  t.write("/sys/devices/virtual/kfd/kfd/topology/nodes/1/mem_banks/1/properties", "heap_type 0\nsize_in_bytes 5000\n");
}

TEST(DetectAmd, VirtualTopologyPathAndHeapTypes) {
  testing::scratch_tree t;
  write_kfd(t, "110000", "2048");
  t.write("/sys/module/amdgpu/initstate", "live\n");
  machine_facts f = amd_of(t.sys());
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].arch, "gfx1100");
  EXPECT_EQ(f.gpus[0].family, "rdna3");
  EXPECT_EQ(f.gpus[0].name, "Radeon RX 7900 series");  // no revision known: device default
  EXPECT_EQ(f.gpus[0].vram_bytes, 100u);                // heap_type 0 (system) excluded
  EXPECT_EQ(f.gpus[0].pci_address, "0000:08:00.0");
  EXPECT_EQ(f.gpus[0].compute_units, 60);
}

TEST(DetectAmd, DrmVramWhenBanksAreMissing) {
  testing::scratch_tree t;
  write_kfd(t, "110000", "2048");
  std::filesystem::remove_all(t.root() + "/sys/devices/virtual/kfd/kfd/topology/nodes/1/mem_banks");
  const std::string dev = "/sys/devices/pci0000:00/0000:08:00.0";
  t.write(dev + "/vendor", "0x1002\n");
  t.write(dev + "/device", "0x744c\n");
  t.write(dev + "/revision", "0xc8\n");
  t.write(dev + "/mem_info_vram_total", "25753026560\n");
  std::filesystem::create_directories(t.root() + "/sys/class/drm");
  std::filesystem::create_directories(t.root() + dev + "/drm/card0");
  std::filesystem::create_directory_symlink("../../devices/pci0000:00/0000:08:00.0/drm/card0",
                                            t.root() + "/sys/class/drm/card0");
  std::filesystem::create_directory_symlink("../../../0000:08:00.0", t.root() + dev + "/drm/card0/device");
  machine_facts f = amd_of(t.sys());
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].vram_bytes, 25753026560u);
  EXPECT_EQ(f.gpus[0].pci_revision, "c8");
  EXPECT_EQ(f.gpus[0].name, "Radeon RX 7900 XTX");
}

TEST(DetectAmd, PciOnlyWhenDriverNotLoaded) {
  testing::scratch_tree t;
  const std::string dev = "/sys/bus/pci/devices/0000:03:00.0";
  t.write(dev + "/vendor", "0x1002\n");
  t.write(dev + "/device", "0x7551\n");
  t.write(dev + "/revision", "0xc0\n");
  t.write(dev + "/class", "0x030000\n");
  t.write("/sys/bus/pci/devices/0000:03:00.1/vendor", "0x1002\n");  // the HDMI audio function
  t.write("/sys/bus/pci/devices/0000:03:00.1/class", "0x040300\n");
  machine_facts f = amd_of(t.sys());
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].source, "pci");
  EXPECT_EQ(f.gpus[0].name, "Radeon AI PRO R9700");
  EXPECT_EQ(f.gpus[0].vram_bytes, 32ull << 30);  // table figures stand in for a driver
  EXPECT_EQ(f.gpus[0].compute_units, 64);
  EXPECT_FALSE(f.stack.amdgpu_loaded);
  EXPECT_EQ(count_issues(f, dev, "amdgpu kernel driver is not loaded"), 1);
}

TEST(DetectAmd, Mi300PartitionsMapToTheirPciDevice) {
  // CPX mode: one PCI device, several KFD nodes whose location_id carries the node id in the
  // function bits (0x0500 | n). All are the device 0000:05:00.0; none is reported twice.
  testing::scratch_tree t;
  t.write("/sys/module/amdgpu/initstate", "live\n");
  t.write("/sys/class/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 8\nsimd_count 0\ngfx_target_version 0\n");
  for (int n = 0; n < 3; ++n)
    t.write("/sys/class/kfd/kfd/topology/nodes/" + std::to_string(n + 1) + "/properties",
            "simd_count 152\nsimd_per_cu 4\nwave_front_size 64\ngfx_target_version 90402\nvendor_id 4098\n"
            "device_id 29857\nlocation_id " + std::to_string(0x0500 | n) + "\ndomain 0\n");
  const std::string dev = "/sys/bus/pci/devices/0000:05:00.0";
  t.write(dev + "/vendor", "0x1002\n");
  t.write(dev + "/device", "0x74a1\n");
  t.write(dev + "/revision", "0x00\n");
  t.write(dev + "/class", "0x120000\n");
  machine_facts f = amd_of(t.sys());
  ASSERT_EQ(f.gpus.size(), 3u);
  for (const gpu_info& g : f.gpus) {
    EXPECT_EQ(g.source, "kfd");
    EXPECT_EQ(g.pci_address, "0000:05:00.0");
    EXPECT_EQ(g.compute_units, 38);
    EXPECT_EQ(g.pci_revision, "00");
  }
  EXPECT_TRUE(f.issues.empty()) << f.issues[0].source << ": " << f.issues[0].message;
}

TEST(DetectAmd, InitstateNotLive) {
  testing::scratch_tree t;
  t.write("/sys/module/amdgpu/initstate", "coming\n");
  machine_facts f = amd_of(t.sys());
  EXPECT_FALSE(f.stack.amdgpu_loaded);
  EXPECT_EQ(count_issues(f, "/sys/module/amdgpu/initstate", "'coming'"), 1);
}

TEST(KfdTopology, RetriesWhileGenerationChanges) {
  testing::scratch_tree t;
  write_kfd(t, "120001", "768");
  const std::string gen = t.root() + "/sys/devices/virtual/kfd/kfd/topology/generation_id";
  // Bump generation_id each time the reader samples it: the scan can never settle.
  sysroot sys = t.sys();
  int reads = 0;
  sys.set_recorder([&](const std::string& path, int) {
    if (path.ends_with("/generation_id")) std::ofstream(gen) << 100 + ++reads << "\n";
  });
  kfd_topology topo = read_kfd_topology(sys);
  EXPECT_EQ(reads, 6);  // before and after, three times
  ASSERT_EQ(topo.issues.size(), 1u);
  EXPECT_NE(topo.issues[0].message.find("kept changing"), std::string::npos);
  EXPECT_EQ(topo.nodes.size(), 2u);

  // Changes once, then settles: the second scan is taken and no issue remains.
  reads = 0;
  sys.set_recorder([&](const std::string& path, int) {
    if (path.ends_with("/generation_id") && ++reads == 1) std::ofstream(gen) << "7\n";
  });
  kfd_topology settled = read_kfd_topology(sys);
  EXPECT_EQ(reads, 4);
  EXPECT_TRUE(settled.issues.empty());
  EXPECT_TRUE(settled.present);
}

TEST(KfdTopology, AbsentWithoutKfd) {
  testing::scratch_tree t;
  kfd_topology topo = read_kfd_topology(t.sys());
  EXPECT_FALSE(topo.present);
  EXPECT_TRUE(topo.nodes.empty());
}

}  // namespace
}  // namespace gs
