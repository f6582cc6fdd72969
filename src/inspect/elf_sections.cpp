// elf_sections.h. Caps: 65535 sections after extended numbering is resolved (real libraries
// have 30-40), names of at most 255 bytes. A section whose bytes run past the end of the image
// (a truncated file) is kept with its numbers so the caller can say "truncated".
#include "inspect/elf_sections.h"

namespace gs {
namespace {

struct field_reader {
  std::string_view b;
  bool big_endian = false;
  bool get(uint64_t off, size_t n, uint64_t& v) const {
    if (off > b.size() || n > b.size() - off) return false;
    v = 0;
    for (size_t i = 0; i < n; ++i) {
      auto byte = static_cast<uint8_t>(b[static_cast<size_t>(off) + (big_endian ? i : n - 1 - i)]);
      v = (v << 8) | byte;
    }
    return true;
  }
};

constexpr uint64_t kMaxSections = 65535;
constexpr uint32_t kShtNobits = 8;

}  // namespace

const elf_section* elf_sections::find(std::string_view name) const {
  for (const elf_section& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

elf_sections read_elf_sections(std::string_view image) {
  elf_sections r;
  if (image.size() < 16 || image.substr(0, 4) != "\x7f" "ELF") return r;
  auto cls = static_cast<uint8_t>(image[4]), data = static_cast<uint8_t>(image[5]);
  if ((cls != 1 && cls != 2) || (data != 1 && data != 2)) {
    r.error = "unknown ELF class or byte order";
    return r;
  }
  r.is_elf = true;
  const bool is64 = cls == 2;
  field_reader f{image, data == 2};
  const size_t word = is64 ? 8 : 4;
  uint64_t type = 0, machine = 0, shoff = 0, shentsize = 0, shnum = 0, shstrndx = 0;
  // e_type 0x10, e_machine 0x12; e_shoff 0x28/0x20, e_shentsize 0x3A/0x2E, e_shnum 0x3C/0x30,
  // e_shstrndx 0x3E/0x32 (ELF64/ELF32).
  if (!f.get(0x10, 2, type) || !f.get(0x12, 2, machine) || !f.get(is64 ? 0x28 : 0x20, word, shoff) ||
      !f.get(is64 ? 0x3A : 0x2E, 2, shentsize) || !f.get(is64 ? 0x3C : 0x30, 2, shnum) ||
      !f.get(is64 ? 0x3E : 0x32, 2, shstrndx)) {
    r.error = "truncated ELF header";
    return r;
  }
  r.type = static_cast<uint16_t>(type);
  r.machine = static_cast<uint16_t>(machine);
  if (shoff == 0) return r;  // no section headers (stripped of them): nothing to find
  const size_t min_ent = is64 ? 64 : 40;
  if (shentsize < min_ent || shentsize > 1024) {
    r.error = "implausible section header size " + std::to_string(shentsize);
    return r;
  }
  // Elf64_Shdr: name 0, type 4, flags 8, addr 16, offset 24, size 32, link 40.
  // Elf32_Shdr: name 0, type 4, flags 8, addr 12, offset 16, size 20, link 24.
  auto field = [&](uint64_t idx, size_t off64, size_t off32, size_t n, uint64_t& v) {
    return f.get(shoff + idx * shentsize + (is64 ? off64 : off32), n, v);
  };
  // Extended numbering: e_shnum 0 means section 0's sh_size holds the count, e_shstrndx 0xffff
  // means its sh_link holds the string table index.
  if (shnum == 0 || shstrndx == 0xffff) {
    uint64_t size0 = 0, link0 = 0;
    if (!field(0, 32, 20, word, size0) || !field(0, 40, 24, 4, link0)) {
      r.error = "truncated section header table";
      return r;
    }
    if (shnum == 0) shnum = size0;
    if (shstrndx == 0xffff) shstrndx = link0;
  }
  if (shnum > kMaxSections) {
    r.error = "implausible section count " + std::to_string(shnum);
    return r;
  }
  if (shoff > image.size() || shnum * shentsize > image.size() - shoff) {
    r.error = "section header table past the end of the file (truncated?)";
    return r;
  }
  uint64_t str_off = 0, str_size = 0;
  bool have_names = shstrndx < shnum && field(shstrndx, 24, 16, word, str_off) && field(shstrndx, 32, 20, word, str_size) &&
                    str_off <= image.size() && str_size <= image.size() - str_off;
  if (!have_names) r.error = "section name table missing or outside the file";
  r.sections.reserve(static_cast<size_t>(shnum));
  for (uint64_t i = 0; i < shnum; ++i) {
    elf_section s;
    uint64_t name = 0, stype = 0;
    field(i, 0, 0, 4, name);
    field(i, 4, 4, 4, stype);
    field(i, 24, 16, word, s.offset);
    field(i, 32, 20, word, s.size);
    s.type = static_cast<uint32_t>(stype);
    if (s.type == kShtNobits) s.size = 0;
    if (have_names && name < str_size) {
      std::string_view names = image.substr(static_cast<size_t>(str_off), static_cast<size_t>(str_size));
      std::string_view n = names.substr(static_cast<size_t>(name));
      n = n.substr(0, std::min<size_t>(n.find('\0'), 255));
      s.name = std::string(n);
    }
    r.sections.push_back(std::move(s));
  }
  return r;
}

}  // namespace gs
