// Device-code target scan (device_code_scan.h). Containers are found by their magic at any
// offset and read with bounds checks only: a file is untrusted input, and a false magic match
// in random data must end as "nothing found", never a read past the buffer.
#include "probes/device_code_scan.h"

#include <cstring>

#include "inspect/nv_fatbin.h"
#include "inspect/offload_bundle.h"
#include "inspect/read_le.h"

namespace gs {
namespace {

/// "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" -> "gfx942"; "" when not an AMD GPU entry.
std::string amd_target(std::string_view id) {
  size_t p = id.find("amdgcn-amd-amdhsa-");
  if (p == std::string_view::npos) return {};
  std::string_view rest = id.substr(p + 18);
  if (!rest.empty() && rest.front() == '-') rest.remove_prefix(1);  // empty environment: "--"
  rest = rest.substr(0, rest.find(':'));
  if (!rest.starts_with("gfx") || rest.size() > 16) return {};
  return std::string(rest);
}

void parse_bundle(std::string_view b, size_t at, device_code_targets& out) {
  uint64_t n = 0;
  size_t off = at + kBundleMagic.size();
  if (!read_le(b, off, n) || n == 0 || n > 4096) return;
  off += 8;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t entry_off, size, id_len;
    if (!read_le(b, off, entry_off) || !read_le(b, off + 8, size) || !read_le(b, off + 16, id_len)) return;
    off += 24;
    if (id_len > 256 || off + id_len > b.size()) return;
    std::string t = amd_target(b.substr(off, id_len));
    if (!t.empty()) out.amd.insert(t);
    off += id_len;
  }
}

void parse_fatbin(std::string_view b, size_t at, device_code_targets& out) {
  uint16_t version = 0, header = 0;
  uint64_t fat_size = 0;
  if (!read_le(b, at + 4, version) || !read_le(b, at + 6, header) || !read_le(b, at + 8, fat_size)) return;
  if (version != 1 || header != 16) return;
  size_t off = at + 16;
  size_t end = fat_size > b.size() - off ? b.size() : off + fat_size;
  for (int guard = 0; off + 64 <= end && guard < 100000; ++guard) {
    uint16_t kind = 0;
    uint32_t hdr = 0, arch = 0;
    uint64_t payload = 0;
    read_le(b, off, kind);
    read_le(b, off + 4, hdr);
    read_le(b, off + 8, payload);
    read_le(b, off + 28, arch);
    if ((kind != 1 && kind != 2 && kind != 4) || hdr < 64 || hdr > 4096 || arch == 0 || arch > 2000) return;
    (kind == 1 ? out.ptx : out.sass).insert((kind == 1 ? "compute_" : "sm_") + std::to_string(arch));
    if (hdr > end - off || payload > end - off - hdr) return;
    off += hdr + payload;
  }
}

}  // namespace

void scan_device_code(std::string_view bytes, device_code_targets& out) {
  for (size_t p = bytes.find(kBundleMagic); p != std::string_view::npos; p = bytes.find(kBundleMagic, p + 1))
    parse_bundle(bytes, p, out);
  for (size_t p = bytes.find(kCcobMagic); p != std::string_view::npos; p = bytes.find(kCcobMagic, p + 1)) {
    uint16_t version = 0, method = 0;
    // version 1-3 and method 0 (zlib) or 1 (zstd): "CCOB" in a string table fails this check
    if (read_le(bytes, p + 4, version) && read_le(bytes, p + 6, method) && version >= 1 && version <= 3 &&
        method <= 1)
      ++out.compressed_bundles;
  }
  std::string_view magic(kFatbinMagicBytes, 4);
  for (size_t p = bytes.find(magic); p != std::string_view::npos; p = bytes.find(magic, p + 1))
    parse_fatbin(bytes, p, out);
}

device_code_targets scan_device_code_file(const sysroot& sys, const std::string& path, uint64_t max_bytes) {
  device_code_targets out;
  // Chunks overlap by 64 KiB so a container header cut by a chunk boundary is seen whole in the
  // next one; a fatbin's entry walk can span more than that and then ends early (fewer targets
  // listed, never wrong ones). Sets make the overlap's double sightings harmless.
  constexpr uint64_t kChunk = 16ull << 20, kOverlap = 64ull << 10;
  for (uint64_t off = 0; off < max_bytes;) {
    read_result r = sys.read_at(path, off, kChunk);
    if (!r) {
      if (off == 0) out.error = path + ": " + errno_name(r.err);
      break;
    }
    scan_device_code(*r.text, out);
    out.bytes_scanned = off + r.text->size();
    if (r.text->size() < kChunk) break;
    off += kChunk - kOverlap;
  }
  return out;
}

}  // namespace gs
