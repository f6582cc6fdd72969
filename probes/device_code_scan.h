// Which GPU targets a binary or library carries code for, by scanning its bytes for the two
// containers (research/detection.md 6): clang offload bundles ("__CLANG_OFFLOAD_BUNDLE__", entry
// ids like "hipv4-amdgcn-amd-amdhsa--gfx1201") and NVIDIA fatbins (magic 0xBA55ED50, entry
// kind + SM number in clear headers). Compressed offload bundles ("CCOB") are counted, not
// opened. Used by the llama.cpp probe on libggml-cuda/libggml-hip; a scan, not an ELF parse,
// so a statically linked binary works the same.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "sys/sysroot.h"

namespace gs {

struct device_code_targets {
  std::set<std::string> amd;     ///< "gfx1201", "gfx942" (feature suffixes stripped)
  std::set<std::string> sass;    ///< "sm_90", from fatbin ELF entries
  std::set<std::string> ptx;     ///< "compute_90", from fatbin PTX entries
  int compressed_bundles = 0;    ///< CCOB bundles seen (targets inside not listed)
  uint64_t bytes_scanned = 0;
  std::string error;             ///< why the file could not be read
};

/// Scan a byte buffer (a test feeds synthetic containers); adds to `out`.
void scan_device_code(std::string_view bytes, device_code_targets& out);
/// Scan a file through the sysroot in chunks, up to `max_bytes`.
device_code_targets scan_device_code_file(const sysroot& sys, const std::string& path,
                                          uint64_t max_bytes = 4ull << 30);

}  // namespace gs
