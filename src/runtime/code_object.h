// What a compiled code object says about itself, from its ELF header alone: a CUDA cubin
// (e_machine EM_CUDA 190, SM number in e_flags) or an AMD code object (EM_AMDGPU 224,
// EF_AMDGPU_MACH in the low byte of e_flags). Used to prove that a JIT produced code for the
// arch it was asked for, and to reject a corrupt cache entry before a driver sees it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace gs {

constexpr uint16_t kEmCuda = 190;
constexpr uint16_t kEmAmdgpu = 224;

struct code_object_info {
  bool elf = false;           ///< a well-formed ELF64 little-endian header
  uint16_t machine = 0;       ///< e_machine
  uint32_t flags = 0;         ///< e_flags
  uint8_t os_abi = 0;         ///< e_ident[EI_OSABI]
  uint8_t abi_version = 0;    ///< e_ident[EI_ABIVERSION]
  std::string arch;           ///< "sm_90", "gfx90a"; "" when the flags name nothing we know
  std::string features;       ///< AMD: ":sramecc+:xnack-" style suffix for explicit settings
  std::string error;          ///< why `elf` is false
};

/// Decode the ELF header of `image` (never reads past it; any size is safe).
code_object_info inspect_code_object(std::string_view image);

/// EF_AMDGPU_MACH value -> "gfx1201"; "" for values we do not know.
std::string amdgpu_mach_name(unsigned mach);
/// Inverse, for tests and for checking a requested arch: "gfx90a" -> 0x3f; 0 when unknown.
unsigned amdgpu_mach_value(std::string_view gfx);

/// SM number from a cubin's e_flags. ELF ABI version 8 (CUDA 12.8+ / 13, seen here from NVRTC
/// 13.0: sm_90 -> 0x6005a04) keeps it in bits 8-15; older cubins (ABI 7 and below) in bits 0-7.
int cuda_sm_from_flags(uint32_t flags, uint8_t abi_version);

}  // namespace gs
