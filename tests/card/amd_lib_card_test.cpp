// AMD firmware and VBIOS through libdrm_amdgpu and rocm-smi (card/amd_lib_card.h): Debian's real
// libdrm_amdgpu and librocm_smi64 in their no-device state (the error paths CI can reach), and a
// double with their ABIs (tests/fixtures/amd_double) for the data: firmware ids, the
// DRM_AMDGPU_INFO request layout for the VBIOS, rocm-smi's device matching by PCI address and
// its stable firmware blocks, and the fallback from one library to the other.
#include <gtest/gtest.h>

#include <filesystem>

#include "card/amd_lib_card.h"
#include "card/card_fields.h"
#include "detect/machine_fixtures.h"
#include "support/probe_harness.h"
#include "vendor/rocm_smi_api.h"

namespace gs {
namespace {

using testing::count_issues;
using testing::scratch_tree;

const card_firmware* fw(const card_state& c, const std::string& name) {
  for (const card_firmware& f : c.firmware)
    if (f.name == name) return &f;
  return nullptr;
}

machine_facts one_amd(int minor = 128) {
  machine_facts f;
  gpu_info g;
  g.vendor = "amd";
  g.pci_address = "0000:03:00.0";
  g.render_minor = minor;
  g.card.source = "sysfs";
  f.gpus.push_back(g);
  return f;
}

struct doubles {
  test::scoped_env a{"GPUSTACK_DRM_AMDGPU_LIBRARY", GPUSTACK_AMD_DOUBLE};
  test::scoped_env d{"GPUSTACK_DRM_LIBRARY", GPUSTACK_AMD_DOUBLE};
  test::scoped_env r{"GPUSTACK_ROCM_SMI_LIBRARY", GPUSTACK_AMD_DOUBLE};
};

TEST(AmdLibCard, LibdrmGivesFirmwareAndVbios) {
  doubles d;
  test::scoped_env mes("GS_AMD_DOUBLE_MES", "0x83");
  scratch_tree t;
  t.write("/renderD128", "");  // the double needs an open fd, not a DRM device
  card_state c;
  std::string why;
  std::vector<std::string> failures;
  ASSERT_TRUE(read_amdgpu_card(t.root() + "/renderD128", c, &why, &failures)) << why;
  EXPECT_TRUE(failures.empty()) << failures[0];
  ASSERT_TRUE(fw(c, "mes"));
  EXPECT_EQ(fw(c, "mes")->version, 0x83u);  // AMDGPU_INFO_FW_MES is 0x1a
  EXPECT_EQ(fw(c, "mes")->feature, 1u);
  ASSERT_TRUE(fw(c, "mes_kiq"));
  EXPECT_EQ(fw(c, "mes_kiq")->version, 0x6fu);
  EXPECT_EQ(fw(c, "smc")->version, 0x00684a00u);
  EXPECT_EQ(fw(c, "sos")->version, 0x00a2003du);
  EXPECT_FALSE(fw(c, "vcn"));   // version 0: the card has none
  EXPECT_FALSE(fw(c, "dmcub")); // EINVAL: this kernel does not know the id
  EXPECT_EQ(c.vbios, "113-D7090100-100");  // the 32-byte request and 200-byte answer laid out right
  EXPECT_EQ(c.vram_used_bytes, double(8ull << 30));  // amdgpu_query_info, sysfs having said nothing
  EXPECT_EQ(c.source, "sysfs+libdrm");
}

TEST(AmdLibCard, DetectFallsBackToRocmSmiWithoutLibdrm) {
  doubles d;
  test::scoped_env nodrm("GPUSTACK_DRM_AMDGPU_LIBRARY", "/nonexistent/libdrm_amdgpu.so.1");
  scratch_tree t;
  t.write("/renderD128", "");
  machine_facts f = one_amd();
  detect_amd_lib_cards(f, t.root());
  EXPECT_TRUE(f.issues.empty()) << f.issues[0].message;
  const card_state& c = f.gpus[0].card;
  EXPECT_EQ(c.source, "sysfs+rocm-smi");
  EXPECT_EQ(c.vbios, "113-D7090100-100");
  ASSERT_TRUE(fw(c, "mec"));
  EXPECT_EQ(fw(c, "mec")->version, 0x94u);
  EXPECT_EQ(fw(c, "me")->version, 0x5au);
  EXPECT_FALSE(fw(c, "asd"));  // not supported: silence
  for (const card_firmware& x : c.firmware) EXPECT_NE(x.version, 0xdeadu) << x.name << ": a block past the stable range";
}

TEST(AmdLibCard, DetectUsesLibdrmFirstAndNamesTheNode) {
  doubles d;
  scratch_tree t;
  t.write("/renderD129", "");
  machine_facts f = one_amd(129);
  detect_amd_lib_cards(f, t.root());
  EXPECT_EQ(f.gpus[0].card.source, "sysfs+libdrm");
  EXPECT_TRUE(fw(f.gpus[0].card, "mes"));
  machine_facts missing = one_amd(130);  // no such node, and rocm-smi's device is elsewhere
  test::scoped_env other("GPUSTACK_ROCM_SMI_LIBRARY", "/nonexistent/librocm_smi64.so.7");
  detect_amd_lib_cards(missing, t.root());
  EXPECT_EQ(count_issues(missing, "libdrm_amdgpu", "renderD130: No such file or directory"), 1);
  EXPECT_EQ(count_issues(missing, "libdrm_amdgpu", "rocm-smi: librocm_smi64"), 1);
}

TEST(AmdLibCard, InitFailuresAreReasons) {
  doubles d;
  test::scoped_env fail("GS_AMD_DOUBLE_INIT", "fail");
  scratch_tree t;
  t.write("/renderD128", "");
  card_state c;
  std::string why;
  EXPECT_FALSE(read_amdgpu_card(t.root() + "/renderD128", c, &why, nullptr));
  EXPECT_NE(why.find("amdgpu_device_initialize"), std::string::npos) << why;
  EXPECT_FALSE(read_rsmi_card("0000:03:00.0", c, &why, nullptr));
  EXPECT_NE(why.find("rsmi_init: RSMI_STATUS_INIT_ERROR"), std::string::npos) << why;
  EXPECT_TRUE(c.firmware.empty());
}

TEST(AmdLibCard, NothingIsLoadedWithoutAnAmdGpu) {
  test::scoped_env nodrm("GPUSTACK_DRM_AMDGPU_LIBRARY", "/nonexistent/libdrm_amdgpu.so.1");
  machine_facts f = one_amd();
  f.gpus[0].vendor = "nvidia";
  detect_amd_lib_cards(f);
  EXPECT_TRUE(f.issues.empty());
}

// Debian's own libraries, no AMD device: they load, and every failure is a reason, not a crash.
TEST(AmdLibCard, DebiansLibdrmAmdgpuRefusesANonDrmFd) {
  card_state c;
  std::string why;
  // /dev/null is no DRM device: the real amdgpu_device_initialize fails on it.
  EXPECT_FALSE(read_amdgpu_card("/dev/null", c, &why, nullptr));
  EXPECT_NE(why.find("amdgpu_device_initialize(/dev/null)"), std::string::npos) << why;
  EXPECT_FALSE(read_amdgpu_card("/nonexistent/renderD128", c, &why, nullptr));
  EXPECT_NE(why.find("No such file or directory"), std::string::npos) << why;
}

TEST(AmdLibCard, DebiansRocmSmiFindsNoDevice) {
  card_state c;
  std::string why;
  EXPECT_FALSE(read_rsmi_card("0000:03:00.0", c, &why, nullptr));
  // Either rsmi_init refuses without amdgpu, or it lists no device at that address.
  EXPECT_TRUE(why.find("rsmi_init") != std::string::npos || why.find("rocm-smi lists no device") != std::string::npos) << why;
  EXPECT_TRUE(c.firmware.empty());
}

TEST(AmdLibCard, BdfidToAddress) {
  EXPECT_EQ(vendor::rsmi_bdfid_address((0x1ull << 32) | (0xc1u << 8) | (0x1fu << 3) | 7u), "0001:c1:1f.7");
}

}  // namespace
}  // namespace gs
