// AMD device code: clang offload bundles ("__CLANG_OFFLOAD_BUNDLE__") and their compressed form
// ("CCOB" v1/v2/v3, zlib or zstd), as found back to back in a host library's .hip_fatbin or as
// a whole file (.hipfb, .co). Layouts in research/detection.md 6.2-6.4. Everything is
// bounds-checked against the buffer: a library is untrusted input and a bad bundle becomes an
// error string on that bundle, never a read past the end.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

/// How an offload bundle and a compressed one (CCOB) start.
constexpr std::string_view kBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";
constexpr std::string_view kCcobMagic = "CCOB";

struct code_object_entry {
  std::string id;          ///< "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+" as written
  std::string kind;        ///< "hipv4", "hip", "host", "openmp"
  std::string target;      ///< target id after the triple: "gfx90a:xnack+"; "" for the host entry
  uint64_t offset = 0;     ///< from the start of the (uncompressed) bundle
  uint64_t size = 0;
  std::string elf_isa;     ///< from the code object's ELF header: "gfx90a:xnack+"; "" when not read
  std::string comgr_isa;   ///< amd_comgr_get_data_isa_name, when a namer was given
  std::string error;       ///< what is wrong with this entry's code object
};

struct offload_bundle {
  uint64_t offset = 0;           ///< where it starts in the scanned buffer
  uint64_t size = 0;             ///< bytes it occupies there (the compressed size for CCOB)
  bool compressed = false;
  int ccob_version = 0;          ///< 1, 2 or 3 when compressed
  std::string method;            ///< "zlib" | "zstd"
  uint64_t uncompressed_size = 0;
  std::vector<code_object_entry> entries;
  std::string error;             ///< "" when the bundle parsed
};

struct bundle_options {
  /// Decompress CCOB payloads completely (to read every code object's ELF header or hand it to
  /// comgr); otherwise only the entry table is decompressed.
  bool full_decompress = false;
  uint64_t max_uncompressed = 1ull << 30;  ///< refuse claims above this (1 GiB; real ones are < 100 MB)
  /// Optional: names a code object's ISA (comgr); called with the whole code object.
  std::function<std::string(std::string_view code_object)> isa_namer;
};

/// Every bundle in `bytes` (a .hip_fatbin section or a whole file), found by magic. After a
/// bundle that parsed, the search resumes at its end; after one that did not, one byte later.
std::vector<offload_bundle> scan_offload_bundles(std::string_view bytes, const bundle_options& opts = {});

/// Parse the plain bundle that starts at bytes[0] (magic included).
offload_bundle parse_plain_bundle(std::string_view bytes, const bundle_options& opts = {});
/// Parse the CCOB bundle that starts at bytes[0]; `bytes` may run past its end.
offload_bundle parse_compressed_bundle(std::string_view bytes, const bundle_options& opts = {});

/// "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" -> kind "hipv4", target
/// "gfx942:sramecc+:xnack-"; the old form "hip-amdgcn-amd-amdhsa-gfx906" -> "gfx906".
void split_bundle_id(std::string_view id, std::string& kind, std::string& target);

}  // namespace gs
