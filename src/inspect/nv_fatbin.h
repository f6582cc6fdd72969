// NVIDIA device code: fatbin containers (magic 0xBA55ED50) as found back to back in a host
// library's .nv_fatbin / __nv_relfatbin section or as a whole .fatbin file. The entry headers
// are in the clear even when the payload is compressed, so the archs need no decompression.
// Layout (research/detection.md 6.5, checked against CUDA 13.0 nvcc output here):
//   container: u32 magic, u16 version (1), u16 header size (16), u64 bytes after the header
//   entry:     +0 u16 kind (1 PTX, 2 ELF cubin), +4 u32 header size (64/80/112),
//              +8 u64 payload size, +16 u32 compressed size, +24 u16 minor, +26 u16 major
//              (PTX ISA or cubin ELF version), +28 u32 SM number, +40 u64 flags,
//              +56 u64 uncompressed size
//   flags:     0x1 64-bit, 0x10 Linux, 0x2000 NVIDIA's LZ codec (CUDA <= 12.x), 0x8000 zstd
//              (CUDA 13 compresses PTX by default), 0x100000 arch-specific ("sm_90a"),
//              0x1000000 family-specific ("sm_100f")
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

constexpr uint32_t kFatbinMagic = 0xBA55ED50;
/// The same four bytes as they sit in a file (little-endian), for searching a blob for them.
constexpr char kFatbinMagicBytes[4] = {'\x50', '\xed', '\x55', '\xba'};

struct fatbin_entry {
  int kind = 0;                 ///< 1 PTX, 2 ELF (cubin); 4 old cubin
  int sm = 0;                   ///< 90 for sm_90 / compute_90
  std::string variant;          ///< "" | "a" | "f"
  int major = 0, minor = 0;     ///< PTX ISA version of a PTX entry (9.0)
  uint64_t offset = 0;          ///< entry header, from the start of the scanned buffer
  uint32_t header_size = 0;
  uint64_t payload_size = 0;
  uint64_t flags = 0;
  std::string compression;      ///< "" | "zstd" | "nvidia-lz"
  uint64_t uncompressed_size = 0;
  std::string elf_arch;         ///< a cubin's own e_flags arch ("sm_90"), when read (--deep)

  bool is_ptx() const { return kind == 1; }
  /// "sm_90", "sm_90a", "compute_90"
  std::string name() const;
};

struct fatbin_container {
  uint64_t offset = 0;          ///< in the scanned buffer
  uint64_t size = 0;            ///< header + entries
  std::vector<fatbin_entry> entries;
  std::string error;            ///< "" when every entry header parsed
};

struct fatbin_options {
  /// Also read each uncompressed cubin's ELF header (and decompress a zstd cubin's first bytes)
  /// to confirm its arch: one more page a cubin.
  bool deep = false;
};

/// Every container in `bytes`, found by magic (4-byte aligned, as the linker places them).
std::vector<fatbin_container> scan_nv_fatbins(std::string_view bytes, const fatbin_options& opts = {});
/// The container that starts at bytes[0].
fatbin_container parse_fatbin_container(std::string_view bytes, const fatbin_options& opts = {});

}  // namespace gs
