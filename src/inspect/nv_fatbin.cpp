// nv_fatbin.h. Caps: 1,000,000 entries a container (libcublasLt has ~2,800 containers of a few
// entries each), entry headers of 64..4096 bytes, SM numbers 10..1000.
#include "inspect/nv_fatbin.h"

#include <cstring>

#include "inspect/decompress.h"
#include "inspect/read_le.h"
#include "runtime/code_object.h"

namespace gs {
namespace {

constexpr std::string_view kMagic(kFatbinMagicBytes, 4);
constexpr uint64_t kFlagLz = 0x2000, kFlagZstd = 0x8000, kFlagArchSpecific = 0x100000,
                   kFlagFamilySpecific = 0x1000000;
constexpr int kMaxFatbinEntries = 1000000;

void confirm_elf_arch(std::string_view body, fatbin_entry& e) {
  std::string head;
  if (e.compression.empty()) {
    head = std::string(body.substr(0, 64));
  } else if (e.compression == "zstd") {
    head = decompress_prefix(compression::zstd, body, 64).data;
  } else {
    return;  // NVIDIA's LZ codec is undocumented: the clear header is all there is
  }
  code_object_info info = inspect_code_object(head);
  if (info.elf && info.machine == kEmCuda) e.elf_arch = info.arch;
}

}  // namespace

std::string fatbin_entry::name() const {
  return (is_ptx() ? "compute_" : "sm_") + std::to_string(sm) + variant;
}

fatbin_container parse_fatbin_container(std::string_view bytes, const fatbin_options& opts) {
  fatbin_container c;
  uint32_t magic = 0;
  uint16_t version = 0, header = 0;
  uint64_t fat_size = 0;
  if (!read_le(bytes, 0, magic) || magic != kFatbinMagic) {
    c.error = "no fatbin magic";
    return c;
  }
  if (!read_le(bytes, 4, version) || !read_le(bytes, 6, header) || !read_le(bytes, 8, fat_size)) {
    c.error = "fatbin header truncated";
    c.size = bytes.size();
    return c;
  }
  if (version != 1 || header != 16) {
    c.error = "unknown fatbin version " + std::to_string(version) + " / header size " + std::to_string(header);
    return c;
  }
  uint64_t end = 16 + fat_size;
  if (fat_size > bytes.size() - 16) {
    c.error = "fatbin truncated: header says " + std::to_string(end) + " bytes, " + std::to_string(bytes.size()) +
              " present";
    end = bytes.size();
  }
  c.size = end;
  uint64_t off = 16;
  for (int n = 0; off < end; ++n) {
    if (n >= kMaxFatbinEntries) {
      c.error = "more than " + std::to_string(kMaxFatbinEntries) + " entries";
      break;
    }
    if (end - off < 64) {
      if (c.error.empty()) c.error = "entry header truncated at byte " + std::to_string(off);
      break;
    }
    fatbin_entry e;
    uint16_t kind = 0, minor = 0, major = 0;
    uint32_t arch = 0;
    read_le(bytes, off, kind);
    read_le(bytes, off + 4, e.header_size);
    read_le(bytes, off + 8, e.payload_size);
    read_le(bytes, off + 24, minor);
    read_le(bytes, off + 26, major);
    read_le(bytes, off + 28, arch);
    read_le(bytes, off + 40, e.flags);
    read_le(bytes, off + 56, e.uncompressed_size);
    if (kind != 1 && kind != 2 && kind != 4) {
      if (c.error.empty()) c.error = "entry at byte " + std::to_string(off) + " has unknown kind " + std::to_string(kind);
      break;
    }
    if (e.header_size < 64 || e.header_size > 4096 || arch < 10 || arch > 1000) {
      if (c.error.empty()) c.error = "entry at byte " + std::to_string(off) + " has an implausible header (size " +
                std::to_string(e.header_size) + ", sm " + std::to_string(arch) + ")";
      break;
    }
    e.kind = kind;
    e.sm = static_cast<int>(arch);
    e.major = major;
    e.minor = minor;
    e.offset = off;
    if (e.flags & kFlagArchSpecific) e.variant = "a";
    else if (e.flags & kFlagFamilySpecific) e.variant = "f";
    if (e.flags & kFlagZstd) e.compression = "zstd";
    else if (e.flags & kFlagLz) e.compression = "nvidia-lz";
    bool fits = e.header_size <= end - off && e.payload_size <= end - off - e.header_size;
    if (opts.deep && kind != 1 && fits)
      confirm_elf_arch(bytes.substr(static_cast<size_t>(off + e.header_size), static_cast<size_t>(e.payload_size)), e);
    c.entries.push_back(std::move(e));
    if (!fits) {
      if (c.error.empty()) c.error = "entry at byte " + std::to_string(off) + " runs past the end of its container";
      break;
    }
    off += e.header_size + e.payload_size;
  }
  return c;
}

std::vector<fatbin_container> scan_nv_fatbins(std::string_view bytes, const fatbin_options& opts) {
  std::vector<fatbin_container> out;
  size_t pos = 0;
  while (pos + 16 <= bytes.size()) {
    // Containers follow each other, padded to 8 bytes; a 64 KiB window first keeps a 1 GB
    // section from being read end to end when the tail holds none.
    constexpr size_t kWindow = 64 << 10;
    std::string_view rest = bytes.substr(pos);
    size_t hit = rest.substr(0, kWindow + 4).find(kMagic);
    if (hit == std::string_view::npos && rest.size() > kWindow) hit = rest.find(kMagic);
    if (hit == std::string_view::npos) break;
    size_t at = pos + hit;
    fatbin_container c = parse_fatbin_container(bytes.substr(at), opts);
    c.offset = at;
    for (fatbin_entry& e : c.entries) e.offset += at;
    // A chance magic (4 bytes) in other data fails the version check: drop it silently.
    bool plausible = !c.entries.empty() || c.error.find("entry") != std::string::npos ||
                     c.error.find("truncated") != std::string::npos;
    uint64_t advance = c.size > 0 && !c.entries.empty() ? c.size : 4;
    if (plausible) out.push_back(std::move(c));
    pos = at + static_cast<size_t>(advance);
  }
  return out;
}

}  // namespace gs
