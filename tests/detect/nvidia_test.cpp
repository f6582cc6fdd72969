// detect_nvidia on the H200 capture, the broken tree and the GPU-less box; the NVIDIA table.
#include <gtest/gtest.h>

#include "detect/detect.h"
#include "detect/gpu_tables.h"
#include "detect/machine_fixtures.h"

namespace gs {
namespace {

using testing::count_issues;
using testing::machine;

machine_facts nvidia_of(const sysroot& sys) {
  machine_facts f;
  detect_nvidia(sys, f);
  return f;
}

TEST(DetectNvidia, H200Capture) {
  machine_facts f = nvidia_of(machine("h200"));
  EXPECT_EQ(f.stack.nvidia_driver, "580.159.04");
  EXPECT_TRUE(f.stack.nvidia_open_module);
  ASSERT_EQ(f.gpus.size(), 1u);
  const gpu_info& g = f.gpus[0];
  EXPECT_EQ(g.vendor, "nvidia");
  EXPECT_EQ(g.source, "proc-nvidia");
  EXPECT_EQ(g.name, "NVIDIA H200");
  EXPECT_EQ(g.serial, "GPU-055601fb-ae22-c465-cc42-48b9ac336c06");  // raw here; redaction is at output
  EXPECT_EQ(g.pci_address, "0000:00:06.0");
  EXPECT_EQ(g.pci_id, "10de:2335");
  EXPECT_EQ(g.pci_revision, "a1");
  EXPECT_EQ(g.arch, "sm_90");
  EXPECT_EQ(g.compute_capability, "9.0");
  EXPECT_EQ(g.compute_units, 132);
  EXPECT_EQ(g.vram_bytes, 143771ull << 20);  // nvidia-smi's FB total on that machine
  EXPECT_EQ(g.wave_size, 32);
  EXPECT_TRUE(f.issues.empty()) << f.issues[0].source << ": " << f.issues[0].message;
}

TEST(DetectNvidia, BrokenBannerJunkInformationAndVfio) {
  machine_facts f = nvidia_of(machine("broken"));
  EXPECT_EQ(f.stack.nvidia_driver, "");
  EXPECT_EQ(count_issues(f, "/proc/driver/nvidia/version", "not recognised"), 1);
  EXPECT_EQ(count_issues(f, "/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/device", "not a hex"), 0)
      << "issues name the path that was read, not its resolved target";
  EXPECT_EQ(count_issues(f, "/sys/bus/pci/devices/0000:41:00.0/device", "not a hex number"), 1);
  ASSERT_EQ(f.gpus.size(), 2u);
  const gpu_info& a = f.gpus[0];
  EXPECT_EQ(a.source, "proc-nvidia");
  EXPECT_EQ(a.name, "NVIDIA GeForce RTX 4090");  // the Model line survived the junk around it
  EXPECT_EQ(a.pci_address, "0000:41:00.0");
  EXPECT_EQ(a.pci_id, "");                       // device id unreadable
  EXPECT_EQ(a.arch, "");
  const gpu_info& b = f.gpus[1];
  EXPECT_EQ(b.source, "pci");
  EXPECT_EQ(b.pci_id, "10de:2684");
  EXPECT_EQ(b.name, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(b.arch, "sm_89");
  EXPECT_EQ(count_issues(f, "/sys/bus/pci/devices/0000:42:00.0", "bound to vfio-pci"), 1);
}

TEST(DetectNvidia, NoGpuMachine) {
  machine_facts f = nvidia_of(machine("no-gpu"));
  EXPECT_TRUE(f.gpus.empty());
  EXPECT_EQ(f.stack.nvidia_driver, "");
  EXPECT_TRUE(f.issues.empty());
}

TEST(DetectNvidia, PciOnlyWithoutDriverAndUnknownDevice) {
  testing::scratch_tree t;
  t.write("/sys/bus/pci/devices/0000:01:00.0/vendor", "0x10de\n");
  t.write("/sys/bus/pci/devices/0000:01:00.0/device", "0x2b85\n");
  t.write("/sys/bus/pci/devices/0000:01:00.0/revision", "0xa1\n");
  t.write("/sys/bus/pci/devices/0000:01:00.0/class", "0x030000\n");
  t.write("/sys/bus/pci/devices/0000:01:00.1/vendor", "0x10de\n");  // its audio function
  t.write("/sys/bus/pci/devices/0000:01:00.1/class", "0x040300\n");
  machine_facts f = nvidia_of(t.sys());
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].source, "pci");
  EXPECT_EQ(f.gpus[0].name, "NVIDIA GeForce RTX 5090");
  EXPECT_EQ(f.gpus[0].arch, "sm_120");
  EXPECT_EQ(f.gpus[0].compute_capability, "12.0");
  EXPECT_EQ(count_issues(f, "/sys/bus/pci/devices/0000:01:00.0", "driver is not loaded"), 1);

  // The driver is loaded (module version only) and lists a GPU the table does not know.
  t.write("/sys/module/nvidia/version", "590.10.01\n");
  t.write("/proc/driver/nvidia/gpus/0000:01:00.0/information", "Model: \t\t NVIDIA Future GPU\nDevice Minor: \t 0\n");
  t.write("/sys/bus/pci/devices/0000:01:00.0/device", "0x9999\n");
  machine_facts g = nvidia_of(t.sys());
  EXPECT_EQ(g.stack.nvidia_driver, "590.10.01");
  ASSERT_EQ(g.gpus.size(), 1u);
  EXPECT_EQ(g.gpus[0].name, "NVIDIA Future GPU");
  EXPECT_EQ(g.gpus[0].arch, "");
  EXPECT_EQ(count_issues(g, "/sys/bus/pci/devices/0000:01:00.0", "not in matrix/hardware/nvidia_gpus.toml"), 1);
}

TEST(GpuTables, BuiltinTablesLoadCleanly) {
  std::vector<table_error> errors;
  const gpu_tables& t = builtin_gpu_tables(&errors);
  for (const table_error& e : errors) ADD_FAILURE() << e.to_string();
  EXPECT_GT(t.amd.size(), 30u);
  EXPECT_GT(t.nvidia.size(), 30u);
  EXPECT_GT(t.amd_families.size(), 5u);
  auto name = [&](uint32_t dev, std::optional<uint32_t> rev) {
    const gpu_table_entry* e = find_gpu(t.amd, dev, rev);
    return e ? e->name : std::string("<none>");
  };
  EXPECT_EQ(name(0x7550, 0xc0), "Radeon RX 9070 XT");
  EXPECT_EQ(name(0x7550, 0xc2), "Radeon RX 9070 GRE");
  EXPECT_EQ(name(0x7550, 0xc3), "Radeon RX 9070");
  EXPECT_EQ(name(0x7550, 0xd7), "Radeon RX 9070 series");  // unknown revision: the device default
  EXPECT_EQ(name(0x7551, 0xc0), "Radeon AI PRO R9700");
  EXPECT_EQ(name(0x7590, 0xc0), "Radeon RX 9060 XT");
  EXPECT_EQ(name(0x74a1, std::nullopt), "Instinct MI300X");
  EXPECT_EQ(name(0x740f, std::nullopt), "Instinct MI210");
  EXPECT_EQ(name(0x744c, 0xc8), "Radeon RX 7900 XTX");
  EXPECT_EQ(name(0x1234, std::nullopt), "<none>");
  auto fam = [&](const char* gfx) {
    const arch_family* f = find_amd_family(t, gfx);
    return f ? f->family + "/" + std::to_string(f->wave_size) : std::string("<none>");
  };
  EXPECT_EQ(fam("gfx1201"), "rdna4/32");
  EXPECT_EQ(fam("gfx1100"), "rdna3/32");
  EXPECT_EQ(fam("gfx1151"), "rdna3.5/32");
  EXPECT_EQ(fam("gfx1030"), "rdna2/32");
  EXPECT_EQ(fam("gfx942"), "cdna3/64");
  EXPECT_EQ(fam("gfx90a"), "cdna2/64");  // longest prefix beats "gfx9"
  EXPECT_EQ(fam("gfx908"), "cdna1/64");
  EXPECT_EQ(fam("gfx906"), "gcn5/64");
  EXPECT_EQ(fam("xyz"), "<none>");
  const gpu_table_entry* h200 = find_gpu(t.nvidia, 0x2335, std::nullopt);
  ASSERT_NE(h200, nullptr);
  EXPECT_EQ(h200->arch, "sm_90");
  const gpu_table_entry* b200 = find_gpu(t.nvidia, 0x2901, std::nullopt);
  ASSERT_NE(b200, nullptr);
  EXPECT_EQ(b200->arch, "sm_100");
  for (const gpu_table_entry& e : t.nvidia) {
    // arch and compute capability must agree: "sm_" + major + minor.
    std::string cc = e.compute_capability;
    size_t dot = cc.find('.');
    ASSERT_NE(dot, std::string::npos) << e.name;
    EXPECT_EQ(e.arch, "sm_" + cc.substr(0, dot) + cc.substr(dot + 1)) << e.name;
  }
}

TEST(GpuTables, ErrorsCiteFileLineColumn) {
  std::vector<gpu_table_entry> gpus;
  std::vector<arch_family> fams;
  std::vector<table_error> errors;
  parse_gpu_table("t.toml",
                  "[[gpu]]\ndevice = 0x1\nname = \"ok\"\n\n"
                  "[[gpu]]\ndevice = \"x\"\nname = \"bad device\"\n\n"
                  "[[gpu]]\ndevice = 0x2\nnmae = \"typo\"\n\n"
                  "[[family]]\nprefix = \"gfx9\"\n",
                  gpus, fams, errors);
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].name, "ok");
  EXPECT_TRUE(fams.empty());
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].to_string(), "t.toml:6:10: 'device' must be an integer in 0..65535");
  EXPECT_EQ(errors[1].line, 11);
  EXPECT_NE(errors[1].message.find("unknown key 'nmae'"), std::string::npos);
  EXPECT_NE(errors[2].message.find("needs 'prefix' and 'family'"), std::string::npos);

  errors.clear();
  parse_gpu_table("u.toml", "[[gpu]]\ndevice = 1\nname = \"x\xc2\xa1\"\n", gpus, fams, errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].to_string(), "u.toml:3:10: byte 0xc2: the hardware tables are printable ASCII");
  errors.clear();
  parse_gpu_table("c.toml", "[[\x10pu]]\n", gpus, fams, errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].column, 3);

  errors.clear();
  parse_gpu_table("bad.toml", "[[gpu]\n", gpus, fams, errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "bad.toml");
  EXPECT_EQ(errors[0].line, 1);
}

}  // namespace
}  // namespace gs
