// Bounds-checked DT_SONAME reader. Path: ELF header -> program headers -> PT_DYNAMIC entries ->
// DT_STRTAB (a virtual address, mapped to a file offset through the PT_LOAD that holds it) ->
// the NUL-terminated string at DT_SONAME. Sizes are capped so a hostile header cannot make us
// read much: 4096 program headers x 56 B = 224 KiB, a dynamic segment of at most 64 KiB
// (real ones are ~0.5 KiB), a SONAME of at most 255 bytes.
#include "detect/elf_soname.h"

#include <vector>

namespace gs {
namespace {

constexpr uint32_t kPtLoad = 1, kPtDynamic = 2;
constexpr int64_t kDtNull = 0, kDtStrtab = 5, kDtStrsz = 10, kDtSoname = 14;
constexpr size_t kMaxPhnum = 4096, kMaxDynamic = 64 << 10, kMaxSoname = 255;

/// Little/big-endian integer of `n` bytes at `off` of `b`; false when it does not fit.
struct field_reader {
  bool big_endian = false;
  bool get(std::string_view b, size_t off, size_t n, uint64_t& v) const {
    if (off > b.size() || n > b.size() - off) return false;
    v = 0;
    for (size_t i = 0; i < n; ++i) {
      uint8_t byte = static_cast<uint8_t>(b[off + (big_endian ? i : n - 1 - i)]);
      v = (v << 8) | byte;
    }
    return true;
  }
};

struct load_segment {
  uint64_t vaddr, offset, filesz;
};

}  // namespace

elf_soname_result read_elf_soname(const elf_byte_reader& read) {
  elf_soname_result r;
  auto hdr = read(0, 64);
  if (!hdr) {
    r.error = "read error";
    return r;
  }
  std::string_view h = *hdr;
  if (h.size() < 16 || h.substr(0, 4) != "\x7f" "ELF") return r;  // not ELF: a fake or a linker script
  uint8_t cls = static_cast<uint8_t>(h[4]), data = static_cast<uint8_t>(h[5]);
  if ((cls != 1 && cls != 2) || (data != 1 && data != 2)) {
    r.error = "unknown ELF class or byte order";
    return r;
  }
  const bool is64 = cls == 2;
  field_reader f{data == 2};
  const size_t word = is64 ? 8 : 4;
  uint64_t phoff = 0, phentsize = 0, phnum = 0;
  // e_phoff at 0x20 (64) / 0x1C (32); e_phentsize, e_phnum at 0x36/0x38 (64) / 0x2A/0x2C (32).
  if (!f.get(h, is64 ? 0x20 : 0x1C, word, phoff) || !f.get(h, is64 ? 0x36 : 0x2A, 2, phentsize) ||
      !f.get(h, is64 ? 0x38 : 0x2C, 2, phnum)) {
    r.error = "truncated ELF header";
    return r;
  }
  r.is_elf = true;
  const size_t min_phent = is64 ? 56 : 32;
  if (phnum == 0) return r;  // an object file or a static executable: no SONAME
  if (phnum > kMaxPhnum || phentsize < min_phent || phentsize > 256) {
    r.error = "implausible program header table";
    return r;
  }
  auto ph = read(phoff, static_cast<size_t>(phnum * phentsize));
  if (!ph || ph->size() < phnum * phentsize) {
    r.error = "truncated program headers";
    return r;
  }
  std::vector<load_segment> loads;
  uint64_t dyn_off = 0, dyn_size = 0;
  bool have_dyn = false;
  for (uint64_t i = 0; i < phnum; ++i) {
    size_t base = static_cast<size_t>(i * phentsize);
    uint64_t type = 0, offset = 0, vaddr = 0, filesz = 0;
    // Elf64_Phdr: type 0, flags 4, offset 8, vaddr 16, paddr 24, filesz 32.
    // Elf32_Phdr: type 0, offset 4, vaddr 8, paddr 12, filesz 16.
    bool ok = f.get(*ph, base, 4, type) && f.get(*ph, base + (is64 ? 8 : 4), word, offset) &&
              f.get(*ph, base + (is64 ? 16 : 8), word, vaddr) &&
              f.get(*ph, base + (is64 ? 32 : 16), word, filesz);
    if (!ok) continue;
    if (type == kPtLoad) loads.push_back({vaddr, offset, filesz});
    if (type == kPtDynamic && !have_dyn) {
      have_dyn = true;
      dyn_off = offset;
      dyn_size = filesz;
    }
  }
  if (!have_dyn) return r;  // static: no dynamic section, no SONAME
  if (dyn_size > kMaxDynamic) dyn_size = kMaxDynamic;
  auto dyn = read(dyn_off, static_cast<size_t>(dyn_size));
  if (!dyn) {
    r.error = "unreadable dynamic segment";
    return r;
  }
  const size_t entsize = 2 * word;
  uint64_t strtab = 0, strsz = 0, soname = 0;
  bool have_strtab = false, have_soname = false;
  for (size_t off = 0; off + entsize <= dyn->size(); off += entsize) {
    uint64_t tag = 0, val = 0;
    f.get(*dyn, off, word, tag);
    f.get(*dyn, off + word, word, val);
    // Sign-extend 32-bit tags so DT_NULL compares the same in both classes.
    auto stag = static_cast<int64_t>(is64 ? tag : static_cast<uint64_t>(static_cast<int32_t>(tag)));
    if (stag == kDtNull) break;
    if (stag == kDtStrtab) have_strtab = true, strtab = val;
    if (stag == kDtStrsz) strsz = val;
    if (stag == kDtSoname) have_soname = true, soname = val;
  }
  if (!have_soname) return r;
  if (!have_strtab) {
    r.error = "DT_SONAME without DT_STRTAB";
    return r;
  }
  if (strsz != 0 && soname >= strsz) {
    r.error = "DT_SONAME outside the string table";
    return r;
  }
  // DT_STRTAB is a virtual address; find the loaded segment that holds it.
  std::optional<uint64_t> str_file_off;
  for (const load_segment& s : loads)
    if (strtab >= s.vaddr && strtab - s.vaddr < s.filesz) {
      uint64_t delta = strtab - s.vaddr;
      if (s.offset > UINT64_MAX - delta) continue;
      str_file_off = s.offset + delta;
      break;
    }
  if (!str_file_off) {
    r.error = "DT_STRTAB is not in a loaded segment";
    return r;
  }
  if (*str_file_off > UINT64_MAX - soname) {
    r.error = "DT_SONAME offset overflows";
    return r;
  }
  size_t want = kMaxSoname + 1;
  if (strsz != 0 && strsz - soname < want) want = static_cast<size_t>(strsz - soname);
  auto str = read(*str_file_off + soname, want);
  if (!str) {
    r.error = "unreadable string table";
    return r;
  }
  size_t nul = str->find('\0');
  if (nul == std::string::npos || nul == 0) {
    r.error = "unterminated or empty SONAME";
    return r;
  }
  std::string name = str->substr(0, nul);
  for (unsigned char c : name)
    if (c <= 0x20 || c >= 0x7f) {
      r.error = "SONAME has non-printable bytes";
      return r;
    }
  r.soname = std::move(name);
  return r;
}

elf_soname_result elf_soname_from_bytes(std::string_view image) {
  return read_elf_soname([image](uint64_t off, size_t len) -> std::optional<std::string> {
    if (off >= image.size()) return std::string();
    return std::string(image.substr(static_cast<size_t>(off), len));
  });
}

elf_soname_result elf_soname_from_file(const sysroot& sys, std::string_view path) {
  std::string p(path);
  return read_elf_soname([&sys, p](uint64_t off, size_t len) -> std::optional<std::string> {
    read_result rr = sys.read_at(p, off, len);
    return rr.text;
  });
}

}  // namespace gs
