// The amdgpu sysfs card state (detect/amd_card.h): DPM level tables, hwmon power and
// temperature, the forced performance level, utilisation, VRAM used, RAS counts. A scratch tree
// shaped like an R9700's /sys/bus/pci/devices/0000:03:00.0 (file formats as amdgpu_pm.c writes
// them), and the captured R9700 tree, which has only mem_info_vram_used and vbios_version of them.
#include <gtest/gtest.h>

#include "detect/amd_card.h"
#include "detect/detect.h"
#include "detect/machine_fixtures.h"

namespace gs {
namespace {

using testing::scratch_tree;

const std::string kDev = "/sys/bus/pci/devices/0000:03:00.0";

void r9700_state(const scratch_tree& t, const char* perf_level = "auto\n") {
  t.write(kDev + "/pp_dpm_sclk", "0: 600Mhz\n1: 2350Mhz *\n2: 2920Mhz\n");
  t.write(kDev + "/pp_dpm_mclk", "0: 96Mhz\n1: 456Mhz\n2: 1258Mhz *\n");
  t.write(kDev + "/power_dpm_force_performance_level", perf_level);
  t.write(kDev + "/gpu_busy_percent", "97\n");
  t.write(kDev + "/mem_info_vram_used", "8589934592\n");
  t.write(kDev + "/mem_info_vram_total", "34342961152\n");
  t.write(kDev + "/vbios_version", "113-D7090100-100\n");
  t.write(kDev + "/hwmon/hwmon4/power1_input", "287000000\n");  // microwatts
  t.write(kDev + "/hwmon/hwmon4/power1_cap", "300000000\n");
  t.write(kDev + "/hwmon/hwmon4/power1_cap_default", "300000000\n");
  t.write(kDev + "/hwmon/hwmon4/temp1_input", "71000\n");  // millidegrees
}

TEST(AmdCard, ReadsTheDriversFiles) {
  scratch_tree t;
  r9700_state(t);
  card_state c;
  read_amd_card(t.sys(), kDev, c);
  EXPECT_EQ(c.source, "sysfs");
  EXPECT_EQ(c.clock_sm_mhz, 2350);  // the starred level
  EXPECT_EQ(c.clock_sm_max_mhz, 2920);  // the highest level
  EXPECT_EQ(c.clock_mem_mhz, 1258);
  EXPECT_EQ(c.clock_mem_max_mhz, 1258);
  EXPECT_EQ(c.busy_percent, 97);
  EXPECT_EQ(c.power_w, 287);
  EXPECT_EQ(c.power_limit_w, 300);
  EXPECT_EQ(c.power_default_limit_w, 300);
  EXPECT_EQ(c.temp_c, 71);
  EXPECT_EQ(c.perf_level, "auto");
  EXPECT_EQ(c.vram_used_bytes, 8589934592.0);
  EXPECT_EQ(c.vbios, "113-D7090100-100");
  EXPECT_FALSE(c.ecc_uncorrected);  // no ras directory: no counters, not zero errors
  EXPECT_FALSE(c.pstate);
}

TEST(AmdCard, OlderPartsReportAveragePowerAndRasCountsAdd) {
  scratch_tree t;
  t.write(kDev + "/hwmon/hwmon1/power1_average", "95000000\n");
  t.write(kDev + "/ras/umc_err_count", "ue: 2\nce: 40\n");
  t.write(kDev + "/ras/gfx_err_count", "ue: 1\nce: 0\n");
  t.write(kDev + "/ras/features", "feature mask: 0x3\n");
  t.write(kDev + "/current_compute_partition", "CPX\n");
  card_state c;
  read_amd_card(t.sys(), kDev, c);
  EXPECT_EQ(c.power_w, 95);
  EXPECT_EQ(c.ecc_uncorrected, 3);
  EXPECT_EQ(c.compute_partition, "CPX");
}

TEST(AmdCard, LiveSubsetLeavesTheLimitsAlone) {
  scratch_tree t;
  r9700_state(t, "low\n");
  card_state c;
  read_amd_card_live(t.sys(), kDev, c);
  EXPECT_EQ(c.clock_sm_mhz, 2350);
  EXPECT_EQ(c.power_w, 287);
  EXPECT_FALSE(c.power_limit_w);
  EXPECT_TRUE(c.perf_level.empty());
  EXPECT_TRUE(c.source.empty());
}

TEST(AmdCard, DpmTablesParseAndGarbageIsNoLevel) {
  double now = 0, max = 0;
  EXPECT_TRUE(parse_dpm_levels("0: 500Mhz\n1: 1800Mhz *\n2: 2350Mhz\n", &now, &max));
  EXPECT_EQ(now, 1800);
  EXPECT_EQ(max, 2350);
  now = max = 0;
  // RDNA3+ list a synthetic "S: 19Mhz *" sleep level; it is read like any other.
  EXPECT_TRUE(parse_dpm_levels("S: 19Mhz *\n0: 500Mhz\n1: 2600Mhz\n", &now, &max));
  EXPECT_EQ(now, 19);
  EXPECT_EQ(max, 2600);
  now = max = 0;
  EXPECT_FALSE(parse_dpm_levels("garbage\n\n1: fast\n", &now, &max));
  EXPECT_EQ(max, 0);
}

TEST(AmdCard, TheCapturedR9700HasWhatItsTreeHolds) {
  machine_facts f = detect_machine(testing::machine("r9700-rocm72"), {});
  ASSERT_FALSE(f.gpus.empty());
  const card_state& c = f.gpus[0].card;
  EXPECT_EQ(c.source, "sysfs");
  EXPECT_TRUE(c.vram_used_bytes.has_value());
  EXPECT_FALSE(c.vbios.empty());
  EXPECT_FALSE(c.clock_sm_mhz);  // not captured: unknown, never 0
}

}  // namespace
}  // namespace gs
