// code_object: arch from a cubin's or an AMD code object's ELF header, and every malformed
// header rejected without reading past the buffer.
#include "runtime/code_object.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace gs {
namespace {

std::string header(uint16_t machine, uint32_t flags, uint8_t abi_version, uint8_t os_abi = 0) {
  std::string h(64, '\0');
  std::memcpy(h.data(), "\x7f" "ELF", 4);
  h[4] = 2;  // ELFCLASS64
  h[5] = 1;  // little endian
  h[7] = static_cast<char>(os_abi);
  h[8] = static_cast<char>(abi_version);
  h[18] = static_cast<char>(machine & 0xff);
  h[19] = static_cast<char>(machine >> 8);
  for (int i = 0; i < 4; ++i) h[48 + i] = static_cast<char>((flags >> (8 * i)) & 0xff);
  return h;
}

TEST(CodeObject, CubinAbi8KeepsTheSmInBits8To15) {
  // Flags seen on NVRTC 13.0 CUBINs: sm_75 0x6004b04, sm_80 0x6005004, sm_90 0x6005a04,
  // sm_100 0x6006402, sm_120 0x6007802, sm_121 0x6007902 (ELF ABI version 8).
  const std::pair<uint32_t, const char*> seen[] = {{0x6004b04, "sm_75"},  {0x6005004, "sm_80"},  {0x6005a04, "sm_90"},
                                                   {0x6006402, "sm_100"}, {0x6007802, "sm_120"}, {0x6007902, "sm_121"}};
  for (const auto& [flags, arch] : seen) {
    code_object_info i = inspect_code_object(header(kEmCuda, flags, 8, 0x41));
    EXPECT_TRUE(i.elf);
    EXPECT_EQ(i.machine, kEmCuda);
    EXPECT_EQ(i.arch, arch) << std::hex << flags;
  }
}

TEST(CodeObject, OlderCubinsKeepTheSmInTheLowByte) {
  EXPECT_EQ(inspect_code_object(header(kEmCuda, 0x005a005a, 7)).arch, "sm_90");
  EXPECT_EQ(cuda_sm_from_flags(0x500550, 7), 80);
}

TEST(CodeObject, AmdMachAndFeatures) {
  // Debian comgr 2.4's own outputs: gfx90a 0x53f (xnack any, sramecc any), gfx1030 0x36.
  code_object_info i = inspect_code_object(header(kEmAmdgpu, 0x53f, 2, 64));
  EXPECT_EQ(i.arch, "gfx90a");
  EXPECT_EQ(i.features, "");
  EXPECT_EQ(inspect_code_object(header(kEmAmdgpu, 0x36, 2, 64)).arch, "gfx1030");
  EXPECT_EQ(inspect_code_object(header(kEmAmdgpu, 0x4e, 3, 64)).arch, "gfx1201");
  // sramecc on (0xc00), xnack off (0x200).
  EXPECT_EQ(inspect_code_object(header(kEmAmdgpu, 0xe3f, 2, 64)).features, ":sramecc+:xnack-");
  EXPECT_EQ(inspect_code_object(header(kEmAmdgpu, 0x0ff, 2, 64)).arch, "");  // unknown mach
}

TEST(CodeObject, MachTableRoundTrips) {
  for (unsigned v = 0; v < 0x100; ++v) {
    std::string name = amdgpu_mach_name(v);
    if (!name.empty()) {
      EXPECT_EQ(amdgpu_mach_value(name), v) << name;
    }
  }
  EXPECT_EQ(amdgpu_mach_value("gfx90a"), 0x3fu);
  EXPECT_EQ(amdgpu_mach_value("gfx1030"), 0x36u);
  EXPECT_EQ(amdgpu_mach_value("gfx1201"), 0x4eu);
  EXPECT_EQ(amdgpu_mach_value("gfx9999"), 0u);
}

TEST(CodeObject, MalformedInputIsRejected) {
  EXPECT_FALSE(inspect_code_object("").elf);
  EXPECT_FALSE(inspect_code_object(std::string(63, '\x7f')).elf);
  std::string h = header(kEmCuda, 0x6005a04, 8);
  EXPECT_FALSE(inspect_code_object(h.substr(0, 40)).elf);
  std::string bad_magic = h;
  bad_magic[1] = 'X';
  EXPECT_EQ(inspect_code_object(bad_magic).error, "no ELF magic");
  std::string elf32 = h;
  elf32[4] = 1;
  EXPECT_FALSE(inspect_code_object(elf32).elf);
  EXPECT_EQ(inspect_code_object(header(62 /*x86-64*/, 0, 0)).arch, "");
}

}  // namespace
}  // namespace gs
