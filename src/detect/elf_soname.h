// DT_SONAME of a shared library, read from its program headers and dynamic segment with small
// ranged reads (libcuda and libtorch_hip are hundreds of MB; the SONAME needs a few KB). Every
// offset is bounds-checked: fake libraries in fixtures and truncated files give "not ELF" or an
// error, never a crash.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "sys/sysroot.h"

namespace gs {

struct elf_soname_result {
  bool is_elf = false;   ///< the file starts with a well-formed ELF header
  std::string soname;    ///< "libamdhip64.so.7"; "" when absent or unreadable
  std::string error;     ///< why the SONAME could not be read ("" when it was, or when there is none)
};

/// Returns up to `len` bytes at `offset`; fewer at end of file, nullopt on a read error.
using elf_byte_reader = std::function<std::optional<std::string>(uint64_t offset, size_t len)>;

/// ELF32/ELF64, either byte order. A file without PT_DYNAMIC or DT_SONAME is ELF with "".
elf_soname_result read_elf_soname(const elf_byte_reader& read);
/// The same over an in-memory image (tests and the fuzz target).
elf_soname_result elf_soname_from_bytes(std::string_view image);
/// The same over a file of the machine, through sysroot::read_at.
elf_soname_result elf_soname_from_file(const sysroot& sys, std::string_view path);

}  // namespace gs
