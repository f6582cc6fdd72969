// ELF header decoding for cubins and AMD code objects. EF_AMDGPU_MACH values are LLVM's
// (llvm/include/llvm/BinaryFormat/ELF.h). Those up to 0x40 were checked against binutils 2.40
// readelf's decoding of a header carrying them, gfx90a (0x3f) and gfx1030 (0x36) also against
// Debian comgr's own output; the later ones are from LLVM's table. 0x40 (gfx940) and 0x4b
// (gfx941) are "reserved" in current LLVM but older compilers emitted them.
#include "runtime/code_object.h"

#include <cstring>
#include <utility>

namespace gs {

namespace {

struct mach_entry {
  unsigned value;
  const char* name;
};

constexpr mach_entry kMach[] = {
    {0x020, "gfx600"},  {0x021, "gfx601"},  {0x022, "gfx700"},  {0x023, "gfx701"},  {0x024, "gfx702"},
    {0x025, "gfx703"},  {0x026, "gfx704"},  {0x028, "gfx801"},  {0x029, "gfx802"},  {0x02a, "gfx803"},
    {0x02b, "gfx810"},  {0x02c, "gfx900"},  {0x02d, "gfx902"},  {0x02e, "gfx904"},  {0x02f, "gfx906"},
    {0x030, "gfx908"},  {0x031, "gfx909"},  {0x032, "gfx90c"},  {0x033, "gfx1010"}, {0x034, "gfx1011"},
    {0x035, "gfx1012"}, {0x036, "gfx1030"}, {0x037, "gfx1031"}, {0x038, "gfx1032"}, {0x039, "gfx1033"},
    {0x03a, "gfx602"},  {0x03b, "gfx705"},  {0x03c, "gfx805"},  {0x03d, "gfx1035"}, {0x03e, "gfx1034"},
    {0x03f, "gfx90a"},  {0x040, "gfx940"},  {0x041, "gfx1100"}, {0x042, "gfx1013"}, {0x043, "gfx1150"},
    {0x044, "gfx1103"}, {0x045, "gfx1036"}, {0x046, "gfx1101"}, {0x047, "gfx1102"}, {0x048, "gfx1200"},
    {0x049, "gfx1250"}, {0x04a, "gfx1151"}, {0x04b, "gfx941"},  {0x04c, "gfx942"},  {0x04e, "gfx1201"}, {0x04f, "gfx950"},
    {0x051, "gfx9-generic"}, {0x052, "gfx10-1-generic"}, {0x053, "gfx10-3-generic"},
    {0x054, "gfx11-generic"}, {0x055, "gfx1152"}, {0x058, "gfx1153"}, {0x059, "gfx12-generic"},
    {0x05f, "gfx9-4-generic"},
};

uint16_t le16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t le32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

// Code object v4+ feature fields: 2 bits each, 0 unsupported, 1 any, 2 off, 3 on. "any" and
// "unsupported" print nothing, as in a target ID.
std::string amd_features(uint32_t flags) {
  std::string out;
  const std::pair<const char*, unsigned> fields[] = {{"sramecc", (flags >> 10) & 3u}, {"xnack", (flags >> 8) & 3u}};
  for (const auto& [name, v] : fields) {
    if (v == 2) out += std::string(":") + name + "-";
    if (v == 3) out += std::string(":") + name + "+";
  }
  return out;
}

}  // namespace

std::string amdgpu_mach_name(unsigned mach) {
  for (const mach_entry& e : kMach)
    if (e.value == mach) return e.name;
  return {};
}

unsigned amdgpu_mach_value(std::string_view gfx) {
  for (const mach_entry& e : kMach)
    if (gfx == e.name) return e.value;
  return 0;
}

int cuda_sm_from_flags(uint32_t flags, uint8_t abi_version) {
  return static_cast<int>(abi_version >= 8 ? (flags >> 8) & 0xffu : flags & 0xffu);
}

code_object_info inspect_code_object(std::string_view image) {
  code_object_info info;
  constexpr size_t kEhdr64 = 64;
  if (image.size() < kEhdr64) {
    info.error = "shorter than an ELF64 header (" + std::to_string(image.size()) + " bytes)";
    return info;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(image.data());
  if (std::memcmp(p, "\x7f" "ELF", 4) != 0) {
    info.error = "no ELF magic";
    return info;
  }
  if (p[4] != 2 || p[5] != 1) {  // EI_CLASS ELFCLASS64, EI_DATA ELFDATA2LSB
    info.error = "not a 64-bit little-endian ELF";
    return info;
  }
  info.elf = true;
  info.os_abi = p[7];
  info.abi_version = p[8];
  info.machine = le16(p + 18);
  info.flags = le32(p + 48);
  if (info.machine == kEmCuda) {
    int sm = cuda_sm_from_flags(info.flags, info.abi_version);
    if (sm > 0) info.arch = "sm_" + std::to_string(sm);
  } else if (info.machine == kEmAmdgpu) {
    info.arch = amdgpu_mach_name(info.flags & 0xffu);
    info.features = amd_features(info.flags);
  }
  return info;
}

}  // namespace gs
