// choose_hip_arch: HSA first, then KFD, then hipDeviceProp_t, matched by PCI address, with
// disagreements reported.
#include "runtime/hip_arch.h"

#include <gtest/gtest.h>

namespace gs {
namespace {

hip_arch_inputs base_inputs() {
  hip_arch_inputs in;
  in.ordinal = 0;
  in.pci_domain = 0;
  in.pci_bus = 3;
  in.pci_device = 0;
  return in;
}

TEST(HipArch, HsaWinsAndIsMatchedByPciAddress) {
  hip_arch_inputs in = base_inputs();
  in.hsa_ok = true;
  in.hsa = {{"gfx1100", 32, 0x0100}, {"gfx1201", 32, 0x0300}};  // HIP device 0 is the one on bus 3
  in.kfd = {{0, 0x0100, "gfx1100"}, {0, 0x0300, "gfx1201"}};
  in.props_arch = "gfx1201";
  in.props_symbol = "hipGetDevicePropertiesR0600";
  hip_arch_choice c = choose_hip_arch(in);
  EXPECT_EQ(c.arch, "gfx1201");
  EXPECT_EQ(c.source, "hsa");
  EXPECT_TRUE(c.notes.empty());
}

TEST(HipArch, OverrideShowsAsAKfdDisagreement) {
  hip_arch_inputs in = base_inputs();
  in.hsa_ok = true;
  in.hsa = {{"gfx1100", 32, 0x0300}};  // HSA_OVERRIDE_GFX_VERSION=11.0.0 on a gfx1201
  in.kfd = {{0, 0x0300, "gfx1201"}};
  hip_arch_choice c = choose_hip_arch(in);
  EXPECT_EQ(c.arch, "gfx1100");
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("KFD reports gfx1201"), std::string::npos) << c.notes[0];
  EXPECT_NE(c.notes[0].find("HSA_OVERRIDE_GFX_VERSION"), std::string::npos);
}

TEST(HipArch, WithoutHsaKfdThenPropsDecide) {
  hip_arch_inputs in = base_inputs();
  in.hsa_error = "hsa_init: out of resources";
  in.kfd = {{0, 0x0300, "gfx1201"}};
  in.props_arch = "gfx1201";
  in.props_symbol = "hipGetDevicePropertiesR0600";
  hip_arch_choice c = choose_hip_arch(in);
  EXPECT_EQ(c.arch, "gfx1201");
  EXPECT_EQ(c.source, "kfd");
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes[0].find("HSA unavailable"), std::string::npos);

  in.kfd.clear();
  in.props_arch = "gfx942:sramecc+:xnack-";
  in.props_symbol = "hipGetDevicePropertiesR0000";
  c = choose_hip_arch(in);
  EXPECT_EQ(c.arch, "gfx942");  // features stripped
  EXPECT_EQ(c.source, "hipGetDevicePropertiesR0000");
}

TEST(HipArch, KfdNodeOnAnotherBusIsNotUsed) {
  hip_arch_inputs in = base_inputs();
  in.kfd = {{0, 0x0400, "gfx90a"}};
  hip_arch_choice c = choose_hip_arch(in);
  EXPECT_EQ(c.arch, "");
  in.kfd = {{1, 0x0300, "gfx90a"}};  // same bus, other PCI domain
  EXPECT_EQ(choose_hip_arch(in).arch, "");
}

TEST(HipArch, OrdinalFallbackWhenNoPciAddress) {
  hip_arch_inputs in;
  in.ordinal = 1;
  in.hsa_ok = true;
  in.hsa = {{"gfx90a", 64, 0}, {"gfx942", 64, 0}};
  EXPECT_EQ(choose_hip_arch(in).arch, "gfx942");
  in.hsa = {{"garbage", 64, 0}, {"not-a-gfx", 64, 0}};
  EXPECT_EQ(choose_hip_arch(in).arch, "") << "a name that is not gfx* is not an arch";
  in.ordinal = 5;
  EXPECT_EQ(choose_hip_arch(in).arch, "");
}

TEST(HipArch, PropsDisagreementIsNoted) {
  hip_arch_inputs in = base_inputs();
  in.hsa_ok = true;
  in.hsa = {{"gfx1201", 32, 0x0300}};
  in.props_arch = "gfx906";
  in.props_symbol = "hipGetDeviceProperties";
  hip_arch_choice c = choose_hip_arch(in);
  EXPECT_EQ(c.arch, "gfx1201");
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("gfx906"), std::string::npos);
}

}  // namespace
}  // namespace gs
