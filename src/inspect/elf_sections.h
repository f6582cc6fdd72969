// ELF section headers of a host binary, from an in-memory (mapped) image, bounds-checked: the
// GPU code lives in named sections (.hip_fatbin, .nv_fatbin, __nv_relfatbin), and finding them
// costs the section header table and its string table only (a few tens of KB even for a 1 GB
// libtorch_cuda.so). ELF32/ELF64, either byte order, extended section numbering.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

struct elf_section {
  std::string name;
  uint32_t type = 0;     ///< SHT_*; SHT_NOBITS (8) has no bytes in the file
  uint64_t offset = 0;   ///< file offset
  uint64_t size = 0;
};

struct elf_sections {
  bool is_elf = false;       ///< "\x7fELF" with a known class and byte order
  uint16_t machine = 0;      ///< e_machine (62 x86-64, 224 AMDGPU, 190 CUDA)
  uint16_t type = 0;         ///< e_type (1 REL, 2 EXEC, 3 DYN)
  std::vector<elf_section> sections;
  std::string error;         ///< why the table could not be read ("" when it was)

  /// The first section called `name`; nullptr when there is none.
  const elf_section* find(std::string_view name) const;
};

elf_sections read_elf_sections(std::string_view image);

}  // namespace gs
