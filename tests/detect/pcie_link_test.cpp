// The PCIe path of a GPU (detect/pci_bus.h read_pcie_path): the narrowest link between the root
// complex and the GPU, read from every device on the sysfs path. The captured R9700 and H200
// trees run at full width; a scratch tree puts a discrete AMD card (GPU behind the card's own
// switch, whose internal links always read x16) in a slot that trained x4, which the GPU's own
// link files cannot show, and the knowledge base turns that into GS-HOST-025.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "detect/detect.h"
#include "detect/machine_fixtures.h"
#include "detect/pci_bus.h"
#include "rules/error_findings.h"
#include "rules/knowledge_base.h"

namespace gs {
namespace {

using testing::machine;
using testing::scratch_tree;

TEST(PcieLink, CapturedMachinesRunAtFullWidth) {
  pcie_path_link r = read_pcie_path(machine("r9700-rocm72"), "0000:03:00.0");
  EXPECT_EQ(r.width, 16);
  EXPECT_EQ(r.max_width, 16);
  EXPECT_DOUBLE_EQ(r.gts, 32.0);
  EXPECT_DOUBLE_EQ(r.max_gts, 32.0);
  EXPECT_EQ(r.narrowest, "0000:03:00.0");  // the only device on the path with link files there
  machine_facts f = detect_machine(machine("r9700-rocm72"), {});
  ASSERT_FALSE(f.gpus.empty());
  EXPECT_EQ(f.gpus[0].pcie_width, 16);
  EXPECT_EQ(f.gpus[0].pcie_max_width, 16);
}

/// An RDNA card behind its own switch: root port 00:01.1 -> card upstream 01:00.0 -> downstream
/// 02:00.0 -> GPU 03:00.0, the slot link (root port and upstream port) trained at `slot` lanes.
void rdna_card(const scratch_tree& t, int slot, const char* slot_speed = "16.0 GT/s PCIe") {
  const std::string root = "/sys/devices/pci0000:00/0000:00:01.1";
  const std::string up = root + "/0000:01:00.0", down = up + "/0000:02:00.0", gpu = down + "/0000:03:00.0";
  auto link = [&](const std::string& dir, int w, int mw, const char* s, const char* ms) {
    t.write(dir + "/current_link_width", std::to_string(w) + "\n");
    t.write(dir + "/max_link_width", std::to_string(mw) + "\n");
    t.write(dir + "/current_link_speed", std::string(s) + "\n");
    t.write(dir + "/max_link_speed", std::string(ms) + "\n");
  };
  link(root, slot, 16, slot_speed, "16.0 GT/s PCIe");
  link(up, slot, 16, slot_speed, "16.0 GT/s PCIe");
  link(down, 16, 16, "16.0 GT/s PCIe", "16.0 GT/s PCIe");
  link(gpu, 16, 16, "16.0 GT/s PCIe", "16.0 GT/s PCIe");  // the card's internal link: always full
  std::filesystem::create_directories(t.root() + "/sys/bus/pci/devices");
  std::filesystem::create_symlink("../../../devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0",
                                  t.root() + "/sys/bus/pci/devices/0000:03:00.0");
}

TEST(PcieLink, ASlotThatTrainedX4IsSeenAboveTheCardsOwnSwitch) {
  scratch_tree t;
  rdna_card(t, 4, "2.5 GT/s PCIe");
  pcie_path_link r = read_pcie_path(t.sys(), "0000:03:00.0");
  EXPECT_EQ(r.width, 4);
  EXPECT_EQ(r.max_width, 16);
  EXPECT_EQ(r.narrowest, "0000:00:01.1");  // the first device on the path at that width
  EXPECT_DOUBLE_EQ(r.gts, 2.5);            // idle downclocking: reported, not judged
  EXPECT_DOUBLE_EQ(r.max_gts, 16.0);

  machine_facts f;
  gpu_info g;
  g.vendor = "amd";
  g.name = "Radeon RX 7900 XTX";
  g.pci_address = "0000:03:00.0";
  fill_pcie_link(t.sys(), g.pci_address, g);
  f.gpus.push_back(g);
  std::vector<std::string> ids;
  for (const finding& x : builtin_knowledge_base().evaluate(f)) ids.push_back(x.id);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "GS-HOST-025"), ids.end());
  EXPECT_EQ(std::find(ids.begin(), ids.end(), "GS-HOST-026"), ids.end());
}

TEST(PcieLink, AFullSlotAndAnUnreadablePathSayNothing) {
  scratch_tree t;
  rdna_card(t, 16);
  EXPECT_EQ(read_pcie_path(t.sys(), "0000:03:00.0").width, 16);
  pcie_path_link none = read_pcie_path(t.sys(), "0000:09:00.0");  // no such device: all unknown
  EXPECT_EQ(none.width, 0);
  EXPECT_EQ(none.max_width, 0);
  EXPECT_EQ(none.narrowest, "");
}

}  // namespace
}  // namespace gs
