// DT_SONAME reader: hand-built ELF images in both classes and byte orders, truncations and
// junk, and a real system library when the machine has one.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>

#include <random>

#include "detect/elf_soname.h"

namespace gs {
namespace {

/// A minimal shared object: ELF header, PT_LOAD + PT_DYNAMIC, dynamic entries, string table.
std::string make_elf(bool is64, bool big_endian, const std::string& soname, uint64_t load_vaddr = 0x1000) {
  const size_t word = is64 ? 8 : 4, ehsize = is64 ? 64 : 52, phentsize = is64 ? 56 : 32;
  const size_t phoff = ehsize, dyn_off = phoff + 2 * phentsize, dyn_size = 4 * 2 * word;
  const size_t str_off = dyn_off + dyn_size;
  std::string strtab = std::string("\0", 1) + soname + std::string("\0", 1);
  std::string b(str_off + strtab.size(), '\0');
  auto put = [&](size_t off, uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i)
      b[off + (big_endian ? n - 1 - i : i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  b[0] = 0x7f, b[1] = 'E', b[2] = 'L', b[3] = 'F';
  b[4] = is64 ? 2 : 1;
  b[5] = big_endian ? 2 : 1;
  b[6] = 1;
  put(16, 3, 2);  // ET_DYN
  put(is64 ? 0x20 : 0x1C, phoff, word);
  put(is64 ? 0x36 : 0x2A, phentsize, 2);
  put(is64 ? 0x38 : 0x2C, 2, 2);
  // The whole file is one PT_LOAD mapped at load_vaddr.
  size_t p0 = phoff, p1 = phoff + phentsize;
  put(p0, 1, 4);
  put(p1, 2, 4);
  if (is64) {
    put(p0 + 8, 0, 8), put(p0 + 16, load_vaddr, 8), put(p0 + 32, b.size(), 8);
    put(p1 + 8, dyn_off, 8), put(p1 + 16, load_vaddr + dyn_off, 8), put(p1 + 32, dyn_size, 8);
  } else {
    put(p0 + 4, 0, 4), put(p0 + 8, load_vaddr, 4), put(p0 + 16, b.size(), 4);
    put(p1 + 4, dyn_off, 4), put(p1 + 8, load_vaddr + dyn_off, 4), put(p1 + 16, dyn_size, 4);
  }
  uint64_t dyn[4][2] = {{5, load_vaddr + str_off}, {10, strtab.size()}, {14, 1}, {0, 0}};
  for (size_t i = 0; i < 4; ++i) {
    put(dyn_off + i * 2 * word, dyn[i][0], word);
    put(dyn_off + i * 2 * word + word, dyn[i][1], word);
  }
  b.replace(str_off, strtab.size(), strtab);
  return b;
}

TEST(ElfSoname, AllClassesAndByteOrders) {
  for (bool is64 : {true, false})
    for (bool be : {false, true}) {
      auto r = elf_soname_from_bytes(make_elf(is64, be, "libamdhip64.so.7"));
      EXPECT_TRUE(r.is_elf) << is64 << be;
      EXPECT_EQ(r.soname, "libamdhip64.so.7") << is64 << be;
      EXPECT_EQ(r.error, "") << is64 << be;
    }
}

TEST(ElfSoname, NotElfIsUnknownWithoutError) {
  for (std::string junk : {std::string(), std::string("fake libamdhip64.so.7 for gpustack tests\n"),
                           std::string("/* GNU ld script */ INPUT(libc.so.6)"), std::string("\x7f" "EL", 3)}) {
    auto r = elf_soname_from_bytes(junk);
    EXPECT_FALSE(r.is_elf);
    EXPECT_EQ(r.soname, "");
    EXPECT_EQ(r.error, "");
  }
}

TEST(ElfSoname, EveryTruncationIsHandled) {
  std::string elf = make_elf(true, false, "libz.so.1");
  for (size_t n = 0; n < elf.size(); ++n) {
    auto r = elf_soname_from_bytes(std::string_view(elf).substr(0, n));
    EXPECT_NE(r.soname, "libz.so.1") << n;  // never a full answer from a cut file
  }
}

TEST(ElfSoname, StrtabOutsideEveryLoadedSegment) {
  std::string elf = make_elf(true, false, "libx.so.1");
  elf[64 + 16 + 2] = 0x7f;  // PT_LOAD p_vaddr 0x1000 -> 0x7f1000: DT_STRTAB maps to no file offset
  auto r = elf_soname_from_bytes(elf);
  EXPECT_TRUE(r.is_elf);
  EXPECT_EQ(r.soname, "");
  EXPECT_EQ(r.error, "DT_STRTAB is not in a loaded segment");
}

TEST(ElfSoname, ImplausibleCountsAndClass) {
  std::string elf = make_elf(true, false, "libx.so.1");
  std::string many = elf;
  many[0x38] = static_cast<char>(0xff), many[0x39] = static_cast<char>(0xff);  // e_phnum = 65535
  auto r = elf_soname_from_bytes(many);
  EXPECT_TRUE(r.is_elf);
  EXPECT_EQ(r.soname, "");
  EXPECT_NE(r.error, "");
  // Unknown class byte.
  std::string bad_class = elf;
  bad_class[4] = 7;
  EXPECT_NE(elf_soname_from_bytes(bad_class).error, "");
}

TEST(ElfSoname, RandomMutationsNeverCrash) {
  std::string elf = make_elf(true, false, "libhiprtc.so.7");
  std::mt19937 rng(1234);
  for (int i = 0; i < 5000; ++i) {
    std::string m = elf;
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < flips; ++k) m[rng() % m.size()] = static_cast<char>(rng() & 0xff);
    auto r = elf_soname_from_bytes(m);
    EXPECT_LE(r.soname.size(), 255u);
  }
}

TEST(ElfSoname, RealSystemLibrary) {
  const char* candidates[] = {"/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1",
                              "/usr/lib64/libz.so.1", "/usr/lib/aarch64-linux-gnu/libz.so.1"};
  for (const char* p : candidates) {
    if (::access(p, R_OK) != 0) continue;
    auto r = elf_soname_from_file(sysroot::live(), p);
    EXPECT_TRUE(r.is_elf);
    EXPECT_EQ(r.soname, "libz.so.1");
    return;
  }
  GTEST_SKIP() << "no libz.so.1 on this machine";
}

TEST(ElfSoname, UnreadableFileIsAnError) {
  sysroot sys = sysroot::captured(std::string(GPUSTACK_TEST_FIXTURES));
  sys.inject_error("/locked/libamdhip64.so.7", EACCES);
  auto r = elf_soname_from_file(sys, "/locked/libamdhip64.so.7");
  EXPECT_FALSE(r.is_elf);
  EXPECT_EQ(r.error, "read error");
}

}  // namespace
}  // namespace gs
