// offload_bundle.h. Caps that keep a hostile header cheap: 4096 entries a bundle (ROCm
// libraries carry ~10 targets), ids of at most 1 KiB, and an entry table decompressed in
// doubling steps from 64 KiB.
#include "inspect/offload_bundle.h"

#include <cstdio>
#include <cstring>

#include "inspect/decompress.h"
#include "inspect/read_le.h"
#include "runtime/code_object.h"

namespace gs {
namespace {

constexpr uint64_t kMaxBundleEntries = 4096, kMaxIdLen = 1024;

/// The entry table of a plain bundle; false (with out.error) when it does not fit in `b`.
/// `truncated` tells a table cut by the end of `b` from a malformed one.
bool parse_table(std::string_view b, offload_bundle& out, bool& truncated) {
  truncated = false;
  uint64_t n = 0;
  uint64_t off = kBundleMagic.size();
  if (!read_le(b, off, n)) {
    truncated = true;
    out.error = "bundle header truncated";
    return false;
  }
  if (n == 0 || n > kMaxBundleEntries) {
    out.error = "implausible bundle entry count " + std::to_string(n);
    return false;
  }
  off += 8;
  for (uint64_t i = 0; i < n; ++i) {
    code_object_entry e;
    uint64_t id_len = 0;
    if (!read_le(b, off, e.offset) || !read_le(b, off + 8, e.size) || !read_le(b, off + 16, id_len)) {
      truncated = true;
      out.error = "bundle entry table truncated at entry " + std::to_string(i + 1) + " of " + std::to_string(n);
      return false;
    }
    off += 24;
    if (id_len == 0 || id_len > kMaxIdLen) {
      out.error = "bundle entry " + std::to_string(i + 1) + " has an implausible id length " + std::to_string(id_len);
      return false;
    }
    if (off + id_len > b.size()) {
      truncated = true;
      out.error = "bundle entry table truncated in entry " + std::to_string(i + 1) + "'s id";
      return false;
    }
    e.id = std::string(b.substr(static_cast<size_t>(off), static_cast<size_t>(id_len)));
    for (char c : e.id)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) {
        out.error = "bundle entry " + std::to_string(i + 1) + " id is not printable text";
        return false;
      }
    split_bundle_id(e.id, e.kind, e.target);
    off += id_len;
    out.entries.push_back(std::move(e));
  }
  return true;
}

/// Read each code object's ELF header (and comgr's ISA name) where its bytes are in `b`.
void read_code_objects(std::string_view b, offload_bundle& out, const bundle_options& opts) {
  for (code_object_entry& e : out.entries) {
    if (e.size == 0 || e.target.empty()) continue;  // the host entry
    bool whole = e.offset <= b.size() && e.size <= b.size() - e.offset;
    if (!whole && (!out.compressed || opts.full_decompress)) {
      e.error = "code object lies past the end of the bundle (truncated?)";
      continue;
    }
    // Prefix mode: the ELF header (64 B) is enough when the code object starts in the prefix.
    if (!whole && (e.offset > b.size() || b.size() - e.offset < 64)) continue;
    std::string_view co = b.substr(static_cast<size_t>(e.offset), static_cast<size_t>(e.size));
    code_object_info info = inspect_code_object(co);
    if (!info.elf) {
      e.error = "code object is not ELF (" + info.error + ")";
      continue;
    }
    if (info.machine != kEmAmdgpu) {
      e.error = "code object is not AMDGPU (e_machine " + std::to_string(info.machine) + ")";
      continue;
    }
    e.elf_isa = info.arch.empty() ? "unknown EF_AMDGPU_MACH 0x" : info.arch + info.features;
    if (info.arch.empty()) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "%02x", info.flags & 0xffu);
      e.elf_isa += hex;
    }
    if (opts.isa_namer && whole) e.comgr_isa = opts.isa_namer(co);
  }
}

uint64_t table_end_of_entries(const offload_bundle& b, uint64_t floor) {
  uint64_t end = floor;
  for (const code_object_entry& e : b.entries)
    if (e.offset + e.size > end && e.offset + e.size >= e.offset) end = e.offset + e.size;
  return end;
}

}  // namespace

void split_bundle_id(std::string_view id, std::string& kind, std::string& target) {
  kind.clear();
  target.clear();
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    size_t dash = id.find('-', start);
    parts.push_back(id.substr(start, dash == std::string_view::npos ? std::string_view::npos : dash - start));
    if (dash == std::string_view::npos) break;
    start = dash + 1;
  }
  kind = std::string(parts[0]);
  if (parts.size() < 2 || parts[1] != "amdgcn") return;  // host or another vendor: no GPU target
  if (parts.size() >= 6) {
    // kind, arch, vendor, os, env, then the target id (which may itself hold '-': gfx12-generic)
    size_t at = 0;
    for (int i = 0; i < 5; ++i) at = id.find('-', at) + 1;
    target = std::string(id.substr(at));
  } else if (parts.size() == 5 && parts[4].starts_with("gfx")) {
    target = std::string(parts[4]);  // old "hip-amdgcn-amd-amdhsa-gfx906"
  }
}

offload_bundle parse_plain_bundle(std::string_view bytes, const bundle_options& opts) {
  offload_bundle out;
  if (!bytes.starts_with(kBundleMagic)) {
    out.error = "no offload bundle magic";
    return out;
  }
  bool truncated = false;
  if (!parse_table(bytes, out, truncated)) return out;
  uint64_t table_end = kBundleMagic.size() + 8;
  for (const code_object_entry& e : out.entries) table_end += 24 + e.id.size();
  out.size = table_end_of_entries(out, table_end);
  read_code_objects(bytes, out, opts);
  if (out.size > bytes.size()) {
    out.error = "bundle truncated: its code objects end at byte " + std::to_string(out.size) + ", the data at " +
                std::to_string(bytes.size());
    out.size = bytes.size();
  }
  return out;
}

offload_bundle parse_compressed_bundle(std::string_view bytes, const bundle_options& opts) {
  offload_bundle out;
  out.compressed = true;
  uint16_t version = 0, method = 0;
  if (!bytes.starts_with(kCcobMagic) || !read_le(bytes, 4, version) || !read_le(bytes, 6, method)) {
    out.error = "compressed bundle header truncated";
    return out;
  }
  out.ccob_version = version;
  if (method > 1) {
    out.error = "unknown compression method " + std::to_string(method) + " (0 zlib, 1 zstd)";
    return out;
  }
  compression c = method == 0 ? compression::zlib : compression::zstd;
  out.method = compression_name(c);
  uint64_t header = 0, total = 0;
  if (version == 1) {
    uint32_t u = 0;
    header = 20;
    if (!read_le(bytes, 8, u)) { out.error = "compressed bundle header truncated"; return out; }
    out.uncompressed_size = u;
    // V1 has no total size: it ends at the next bundle (LLVM searches the same way) or the buffer's end.
    size_t next = bytes.find(kCcobMagic, header);
    size_t next_plain = bytes.find(kBundleMagic, header);
    total = std::min(next == std::string_view::npos ? bytes.size() : next,
                     next_plain == std::string_view::npos ? bytes.size() : next_plain);
  } else if (version == 2) {
    uint32_t t = 0, u = 0;
    header = 24;
    if (!read_le(bytes, 8, t) || !read_le(bytes, 12, u)) { out.error = "compressed bundle header truncated"; return out; }
    total = t;
    out.uncompressed_size = u;
  } else if (version == 3) {
    header = 32;
    if (!read_le(bytes, 8, total) || !read_le(bytes, 16, out.uncompressed_size)) {
      out.error = "compressed bundle header truncated";
      return out;
    }
  } else {
    out.error = "unknown compressed bundle version " + std::to_string(version) + " (1, 2 and 3 are known)";
    return out;
  }
  if (total < header) {
    out.error = "compressed bundle total size " + std::to_string(total) + " is smaller than its header";
    return out;
  }
  if (total > bytes.size()) {
    out.error = "compressed bundle truncated: header says " + std::to_string(total) + " bytes, " +
                std::to_string(bytes.size()) + " present";
    out.size = bytes.size();
    return out;
  }
  out.size = total;
  if (out.uncompressed_size > opts.max_uncompressed) {
    out.error = "compressed bundle claims " + std::to_string(out.uncompressed_size) + " uncompressed bytes (limit " +
                std::to_string(opts.max_uncompressed) + ")";
    return out;
  }
  std::string_view payload = bytes.substr(static_cast<size_t>(header), static_cast<size_t>(total - header));
  uint64_t want = opts.full_decompress ? out.uncompressed_size : std::min<uint64_t>(out.uncompressed_size, 64 << 10);
  for (;;) {
    decompress_result d = decompress_prefix(c, payload, want);
    if (!d.error.empty()) {
      out.error = d.error;
      return out;
    }
    if (!d.data.starts_with(kBundleMagic)) {
      out.error = "decompressed data is not an offload bundle";
      return out;
    }
    offload_bundle inner;
    bool truncated = false;
    inner.compressed = true;
    if (parse_table(d.data, inner, truncated)) {
      out.entries = std::move(inner.entries);
      read_code_objects(d.data, out, opts);
      if (opts.full_decompress && d.data.size() != out.uncompressed_size)
        out.error = "decompressed " + std::to_string(d.data.size()) + " bytes, header says " +
                    std::to_string(out.uncompressed_size);
      return out;
    }
    if (!truncated || want >= out.uncompressed_size || d.complete) {
      out.error = inner.error;
      return out;
    }
    want = std::min<uint64_t>(want * 2, out.uncompressed_size);  // a long entry table: read further
  }
}

/// The next bundle magic of either kind at or after `pos`, npos when none. Bundles sit back to
/// back with small alignment gaps, so a 64 KiB window is searched first; only when it holds
/// nothing is the rest searched (each magic only up to the other's first hit), so a section of
/// plain bundles is never read end to end looking for a "CCOB" that is not there.
static size_t next_magic(std::string_view bytes, size_t pos) {
  constexpr size_t kWindow = 64 << 10;
  auto first_of_both = [&](std::string_view hay) {
    size_t p = hay.find(kBundleMagic);
    size_t c = hay.substr(0, p == std::string_view::npos ? hay.size() : p).find(kCcobMagic);
    return c != std::string_view::npos ? c : p;
  };
  std::string_view rest = bytes.substr(pos);
  size_t hit = first_of_both(rest.substr(0, kWindow + kBundleMagic.size()));
  if (hit == std::string_view::npos && rest.size() > kWindow) hit = first_of_both(rest);
  return hit == std::string_view::npos ? hit : pos + hit;
}

std::vector<offload_bundle> scan_offload_bundles(std::string_view bytes, const bundle_options& opts) {
  std::vector<offload_bundle> out;
  size_t pos = 0;
  while (pos < bytes.size()) {
    size_t at = next_magic(bytes, pos);
    if (at == std::string_view::npos) break;
    std::string_view rest = bytes.substr(at);
    bool plain = rest.starts_with(kBundleMagic);
    offload_bundle b = plain ? parse_plain_bundle(rest, opts) : parse_compressed_bundle(rest, opts);
    b.offset = at;
    // "CCOB" inside other data (a string table) is not a bundle: require a known version and
    // method before reporting it. A plain magic is 24 bytes and never appears by chance.
    bool plausible = plain || (b.ccob_version >= 1 && b.ccob_version <= 3 && !b.method.empty());
    uint64_t advance = b.error.empty() && b.size > 0 ? b.size : 1;
    if (plausible) out.push_back(std::move(b));
    pos = at + static_cast<size_t>(advance);
  }
  return out;
}

}  // namespace gs
