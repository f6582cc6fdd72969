// The card's state through NVML (card/nvml_card.h) against the NVML test double
// (tests/fixtures/nvml_double: nvml.h's ABI, one idle H200 at 0000:00:06.0) loaded through
// GPUSTACK_NVML_LIBRARY, and the paths where NVML is missing, fails or lacks symbols.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <vector>

#include "card/card_source.h"
#include "card/nvml_card.h"
#include "detect/detect.h"
#include "detect/machine_fixtures.h"
#include "support/probe_harness.h"
#include "vendor/nvml_api.h"

namespace gs {
namespace {

using testing::count_issues;

machine_facts one_nvidia(const std::string& address = "0000:00:06.0") {
  machine_facts f;
  gpu_info g;
  g.vendor = "nvidia";
  g.pci_address = address;
  f.gpus.push_back(g);
  return f;
}

TEST(NvmlCard, ReadsEveryFigureOfTheDouble) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", GPUSTACK_NVML_DOUBLE);
  machine_facts f = one_nvidia();
  detect_nvml_cards(f);
  EXPECT_TRUE(f.issues.empty()) << f.issues[0].message;
  const card_state& c = f.gpus[0].card;
  EXPECT_EQ(c.source, "nvml");
  EXPECT_EQ(c.clock_sm_mhz, 1980);
  EXPECT_EQ(c.clock_sm_max_mhz, 1980);
  EXPECT_EQ(c.clock_mem_mhz, 3201);
  EXPECT_EQ(c.clock_mem_max_mhz, 3201);
  ASSERT_TRUE(c.power_w);
  EXPECT_GE(*c.power_w, 70);  // milliwatts became watts
  EXPECT_LE(*c.power_w, 160);
  EXPECT_EQ(c.power_limit_w, 700);
  EXPECT_EQ(c.power_default_limit_w, 700);
  EXPECT_EQ(c.temp_c, 31);
  EXPECT_EQ(c.pstate, 0);
  EXPECT_EQ(c.busy_percent, 0);
  // The CUDA 12.2+ entry point is preferred: the double answers it with a second bit.
  ASSERT_TRUE(c.throttle_reasons);
  EXPECT_EQ(*c.throttle_reasons, (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
  EXPECT_EQ(c.pcie_gen, 5);
  EXPECT_EQ(c.pcie_max_gen, 5);
  EXPECT_EQ(c.pcie_lanes, 16);
  EXPECT_EQ(c.pcie_max_lanes, 16);
  EXPECT_EQ(c.vram_total_bytes, 150754820096.0);
  EXPECT_EQ(c.vram_used_bytes, 566231040.0);
  EXPECT_EQ(c.compute_processes, 1);
  ASSERT_EQ(c.processes.size(), 1u);
  EXPECT_EQ(c.processes[0].pid, 4242u);  // the 24-byte nvmlProcessInfo_t read at the right stride
  EXPECT_EQ(c.processes[0].used_bytes, 1ull << 30);
  EXPECT_EQ(c.processes[0].name, "/usr/bin/python3.12 (pid 4242)");
  EXPECT_EQ(c.ecc_enabled, true);
  EXPECT_EQ(c.ecc_uncorrected, 0);  // uncorrected + volatile: any other counter reads 7
  EXPECT_EQ(c.mig_enabled, false);
  EXPECT_EQ(c.vbios, "96.00.A5.00.01");
}

TEST(NvmlCard, ProcessesPastTheBufferAreCountedNotListed) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", GPUSTACK_NVML_DOUBLE);
  test::scoped_env procs("GS_NVML_DOUBLE_PROCS", "3");
  machine_facts f = one_nvidia();
  detect_nvml_cards(f);
  EXPECT_EQ(f.gpus[0].card.compute_processes, 3);
  EXPECT_EQ(f.gpus[0].card.processes.size(), 3u);
  EXPECT_EQ(f.gpus[0].card.processes[2].pid, 4244u);
  test::scoped_env many("GS_NVML_DOUBLE_PROCS", "70");
  machine_facts g = one_nvidia();
  detect_nvml_cards(g);
  EXPECT_EQ(g.gpus[0].card.compute_processes, 70);
  EXPECT_TRUE(g.gpus[0].card.processes.empty());
  EXPECT_TRUE(g.issues.empty());
}

TEST(NvmlCard, MissingLibraryIsOneIssueAndNoFigures) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  machine_facts f = one_nvidia();
  detect_nvml_cards(f);
  EXPECT_EQ(count_issues(f, "NVML", "libnvidia-ml.so.1"), 1);
  EXPECT_TRUE(f.gpus[0].card.source.empty());
  EXPECT_FALSE(f.gpus[0].card.clock_sm_mhz);
}

TEST(NvmlCard, NothingIsLoadedWithoutAnNvidiaGpu) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  machine_facts f = one_nvidia();
  f.gpus[0].vendor = "amd";
  detect_nvml_cards(f);
  EXPECT_TRUE(f.issues.empty());  // a load would have failed and said so
}

TEST(NvmlCard, InitFailureSaysWhy) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", GPUSTACK_NVML_DOUBLE);
  test::scoped_env init("GS_NVML_DOUBLE_INIT", "fail");
  machine_facts f = one_nvidia();
  detect_nvml_cards(f);
  EXPECT_EQ(count_issues(f, "NVML", "nvmlInit_v2: Driver Not Loaded"), 1);
  EXPECT_TRUE(f.gpus[0].card.source.empty());
}

TEST(NvmlCard, AGpuNvmlCannotSeeIsSaid) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", GPUSTACK_NVML_DOUBLE);
  machine_facts f = one_nvidia();
  f.gpus.push_back(f.gpus[0]);
  f.gpus[1].pci_address = "0000:41:00.0";
  detect_nvml_cards(f);
  EXPECT_EQ(count_issues(f, "NVML", "NVML sees 1 GPU(s) where the kernel lists 2"), 1);
  EXPECT_EQ(f.gpus[0].card.source, "nvml");  // the one it sees is still read
}

TEST(NvmlCard, UnknownAddressIsAnIssue) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", GPUSTACK_NVML_DOUBLE);
  machine_facts f = one_nvidia("0000:41:00.0");
  detect_nvml_cards(f);
  EXPECT_EQ(count_issues(f, "NVML", "nvmlDeviceGetHandleByPciBusId_v2(0000:41:00.0): Not Found"), 1);
  EXPECT_TRUE(f.gpus[0].card.source.empty());
}

TEST(NvmlCard, ACallThatFailsCostsOnlyItsFigure) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", GPUSTACK_NVML_DOUBLE);
  test::scoped_env power("GS_NVML_DOUBLE_POWER", "noperm");
  test::scoped_env ecc("GS_NVML_DOUBLE_ECC", "unsupported");
  machine_facts f = one_nvidia();
  detect_nvml_cards(f);
  const card_state& c = f.gpus[0].card;
  EXPECT_FALSE(c.power_w);
  EXPECT_EQ(c.power_limit_w, 700);
  EXPECT_EQ(c.clock_sm_mhz, 1980);
  // No permission is said; "not supported" (ECC on a consumer card) is silence.
  EXPECT_EQ(count_issues(f, "NVML", "nvmlDeviceGetPowerUsage: Insufficient Permissions"), 1);
  EXPECT_EQ(count_issues(f, "NVML", "Ecc"), 0);
  EXPECT_FALSE(c.ecc_enabled);
  EXPECT_FALSE(c.ecc_uncorrected);
}

TEST(NvmlCard, AnOldDriverWithoutTheNewSymbolsStillAnswers) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", GPUSTACK_NVML_DOUBLE_OLD);
  machine_facts f = one_nvidia();
  detect_nvml_cards(f);
  EXPECT_TRUE(f.issues.empty());
  const card_state& c = f.gpus[0].card;
  EXPECT_EQ(c.source, "nvml");
  EXPECT_EQ(c.clock_sm_mhz, 1980);
  EXPECT_FALSE(c.clock_sm_max_mhz);  // not exported: unset, not an error
  EXPECT_FALSE(c.power_w);
  EXPECT_FALSE(c.compute_processes);
  ASSERT_TRUE(c.throttle_reasons);  // from the pre-12.2 name
  EXPECT_EQ(*c.throttle_reasons, std::vector<std::string>{"gpu_idle"});
}

TEST(NvmlCard, ReasonBitsAreNamedAndNewOnesKept) {
  EXPECT_EQ(vendor::nvml_clock_reason_names(0), std::vector<std::string>{});
  EXPECT_EQ(vendor::nvml_clock_reason_names(0x1 | 0x20 | 0x40 | 0x80),
            (std::vector<std::string>{"gpu_idle", "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake"}));
  EXPECT_EQ(vendor::nvml_clock_reason_names(1ull << 20), std::vector<std::string>{"bit_20"});
}

TEST(NvmlCard, DriverVersionStillReadsThroughTheTable) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", GPUSTACK_NVML_DOUBLE);
  vendor::nvml_api api;
  ASSERT_TRUE(api.load().ok);
  std::string v;
  ASSERT_TRUE(api.driver_version(v).ok);
  EXPECT_EQ(v, "580.95.05");
}

TEST(NvmlCard, TheCapturedH200IsReadAtItsAddress) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", GPUSTACK_NVML_DOUBLE);
  machine_facts f = detect_machine(testing::machine("h200"), {});
  ASSERT_EQ(f.gpus.size(), 1u);
  ASSERT_EQ(f.gpus[0].pci_address, "0000:00:06.0");
  detect_nvml_cards(f);
  EXPECT_EQ(f.gpus[0].card.source, "nvml");
  EXPECT_EQ(f.gpus[0].card.clock_sm_max_mhz, 1980);
}

TEST(CardSource, NvmlSourceReadsTheProbedGpu) {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", GPUSTACK_NVML_DOUBLE);
  machine_facts f = one_nvidia();
  std::string why;
  auto src = open_card_source(sysroot::live(), f, "auto", &why);
  ASSERT_TRUE(src) << why;
  EXPECT_EQ(src->name(), "nvml 0000:00:06.0");
  card_state a, b;
  ASSERT_TRUE(src->read(a));
  ASSERT_TRUE(src->read(b));
  EXPECT_EQ(a.clock_sm_mhz, 1980);
  EXPECT_FALSE(a.power_limit_w);  // the fast subset only
  ASSERT_TRUE(a.power_w && b.power_w);
  EXPECT_NE(*a.power_w, *b.power_w);  // the double's power moves per reading
}

TEST(CardSource, NoSourceForCpuOrAMissingGpu) {
  machine_facts f = one_nvidia();
  std::string why;
  EXPECT_FALSE(open_card_source(sysroot::live(), f, "cpu", &why));
  EXPECT_FALSE(open_card_source(sysroot::live(), f, "hip:0", &why));
  EXPECT_NE(why.find("GPU 0 of vendor amd is not one"), std::string::npos) << why;
  EXPECT_FALSE(open_card_source(sysroot::live(), f, "cuda:1", &why));
}

/// Three NVIDIA GPUs in PCI order; `names` gives each its model.
machine_facts three_nvidia(std::vector<std::string> names, std::map<std::string, std::string> env) {
  machine_facts f;
  for (size_t i = 0; i < names.size(); ++i) {
    gpu_info g;
    g.vendor = "nvidia";
    g.name = names[i];
    g.pci_address = "0000:0" + std::to_string(i + 1) + ":00.0";
    f.gpus.push_back(g);
  }
  f.env = std::move(env);
  return f;
}

TEST(CardSource, TheProbedGpuFollowsTheVisibilityVariablesOrIsNotGuessed) {
  std::vector<std::string> same = {"NVIDIA H200", "NVIDIA H200", "NVIDIA H200"};
  EXPECT_EQ(pci_position(three_nvidia(same, {}), "nvidia", 1), 1u);
  EXPECT_EQ(pci_position(three_nvidia(same, {{"CUDA_VISIBLE_DEVICES", "2,0"}}), "nvidia", 0), 2u);
  EXPECT_EQ(pci_position(three_nvidia(same, {{"CUDA_VISIBLE_DEVICES", "2,0"}}), "nvidia", 1), 0u);
  EXPECT_EQ(pci_position(three_nvidia(same, {{"CUDA_VISIBLE_DEVICES", "2"}}), "nvidia", 1), std::nullopt);
  EXPECT_EQ(pci_position(three_nvidia(same, {{"CUDA_VISIBLE_DEVICES", ""}}), "nvidia", 0), std::nullopt);
  EXPECT_EQ(pci_position(three_nvidia(same, {{"CUDA_VISIBLE_DEVICES", "GPU-8c1f"}}), "nvidia", 0), std::nullopt)
      << "a UUID among several GPUs is not mapped here";
  // CUDA orders fastest first unless told PCI_BUS_ID: between different models the order is unknown.
  std::vector<std::string> mixed = {"NVIDIA GeForce RTX 3060", "NVIDIA GeForce RTX 4090", "NVIDIA H200"};
  EXPECT_EQ(pci_position(three_nvidia(mixed, {}), "nvidia", 0), std::nullopt);
  EXPECT_EQ(pci_position(three_nvidia(mixed, {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}), "nvidia", 0), 0u);
  EXPECT_EQ(pci_position(three_nvidia(mixed, {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}, {"CUDA_VISIBLE_DEVICES", "1"}}),
                         "nvidia", 0),
            1u);
  machine_facts one = three_nvidia({"NVIDIA H200"}, {{"CUDA_VISIBLE_DEVICES", "GPU-8c1f"}});
  EXPECT_EQ(pci_position(one, "nvidia", 0), 0u) << "one GPU: the one a UUID can name";
}

TEST(CardSource, AmdMasksStackRocrThenHip) {
  machine_facts f = three_nvidia({"a", "b", "c"}, {{"ROCR_VISIBLE_DEVICES", "1,2"}, {"HIP_VISIBLE_DEVICES", "1"}});
  for (gpu_info& g : f.gpus) g.vendor = "amd";
  EXPECT_EQ(pci_position(f, "amd", 0), 2u);
}

}  // namespace
}  // namespace gs
