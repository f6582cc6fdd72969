// ustar (POSIX.1-1988) with pax extended headers (POSIX.1-2001) for long names. A header is
// one 512-byte block; data is padded to 512; the archive ends with two zero blocks. Names
// up to 100 bytes fit `name`, up to 255 split into `prefix`/`name` at a '/', longer ones (deep
// sysfs PCI paths reach ~200) get a pax "path=" record, which GNU tar and bsdtar both read.
#include "report/tar_writer.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gs {
namespace {

constexpr size_t kBlock = 512;

void octal(char* field, size_t width, uint64_t v) {
  // width-1 octal digits and a NUL, zero padded: "0000644\0". 11 digits hold 8 GiB; snapshot
  // files are capped at 1 MiB, so the base-256 extension for bigger sizes is never needed.
  field[width - 1] = '\0';
  for (size_t i = width - 1; i-- > 0; v >>= 3) field[i] = static_cast<char>('0' + (v & 7));
}

std::string_view relative(std::string_view name) {
  while (!name.empty() && name.front() == '/') name.remove_prefix(1);
  return name;
}

/// A pax record "<len> key=value\n" where <len> counts the whole record, itself included.
std::string pax_record(std::string_view key, std::string_view value) {
  size_t body = 1 + key.size() + 1 + value.size() + 1;  // ' ' key '=' value '\n'
  size_t len = body + 1;
  while (std::to_string(len).size() + body != len) len = std::to_string(len).size() + body;
  return std::to_string(len) + " " + std::string(key) + "=" + std::string(value) + "\n";
}

}  // namespace

tar_gz_writer::~tar_gz_writer() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
}

bool tar_gz_writer::open(const std::string& path, std::string& err) {
  path_ = path;
  errno = 0;
  gzFile f = gzopen(path.c_str(), "wb6");
  if (!f) {
    err = "cannot write " + path + ": " + (errno ? std::strerror(errno) : "cannot open");
    return false;
  }
  gz_ = f;
  return true;
}

bool tar_gz_writer::write(const void* data, size_t n) {
  if (failed_ || !gz_) return false;
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(n, 1u << 30));
    if (gzwrite(static_cast<gzFile>(gz_), p, chunk) != static_cast<int>(chunk)) {
      failed_ = true;
      return false;
    }
    p += chunk;
    n -= chunk;
  }
  return true;
}

bool tar_gz_writer::header(std::string_view name, char type, uint64_t size, std::string_view link, const tar_meta& m) {
  std::string_view nm = name, prefix;
  if (nm.size() > 100) {
    // Split at the last '/' that leaves name <= 100 and prefix <= 155.
    size_t cut = std::string_view::npos;
    for (size_t i = nm.size() > 101 ? nm.size() - 101 : 0; i < nm.size() && i <= 155; ++i)
      if (nm[i] == '/') {
        cut = i;
        break;
      }
    if (cut != std::string_view::npos && cut > 0 && nm.size() - cut - 1 <= 100 && nm.size() - cut - 1 > 0) {
      prefix = nm.substr(0, cut);
      nm = nm.substr(cut + 1);
    }
  }
  bool pax = nm.size() > 100 || link.size() > 100;
  if (pax) {
    std::string recs;
    if (nm.size() > 100) recs += pax_record("path", name);
    if (link.size() > 100) recs += pax_record("linkpath", link);
    tar_meta pm{0644, 0, 0, m.mtime};
    if (!header("PaxHeaders/entry", 'x', recs.size(), {}, pm) || !write(recs.data(), recs.size())) return false;
    static const char zeros[kBlock] = {};
    size_t pad = (kBlock - recs.size() % kBlock) % kBlock;
    if (!write(zeros, pad)) return false;
    if (nm.size() > 100) nm = nm.substr(nm.size() - 100), prefix = {};  // readers take the pax path
    if (link.size() > 100) link = link.substr(0, 100);
  }
  char h[kBlock] = {};
  // (memcpy from an empty string_view's null data() is undefined even for 0 bytes.)
  if (!nm.empty()) std::memcpy(h, nm.data(), nm.size());
  octal(h + 100, 8, m.mode & 07777);
  octal(h + 108, 8, m.uid);
  octal(h + 116, 8, m.gid);
  octal(h + 124, 12, size);
  octal(h + 136, 12, static_cast<uint64_t>(m.mtime < 0 ? 0 : m.mtime));
  std::memset(h + 148, ' ', 8);
  h[156] = type;
  if (!link.empty()) std::memcpy(h + 157, link.data(), std::min<size_t>(link.size(), 100));
  std::memcpy(h + 257, "ustar", 6);  // with its NUL
  std::memcpy(h + 263, "00", 2);
  if (!prefix.empty()) std::memcpy(h + 345, prefix.data(), std::min<size_t>(prefix.size(), 155));
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h + 148, 8, "%06o", sum);  // six digits, NUL, and the space already there
  h[155] = ' ';
  return write(h, kBlock);
}

bool tar_gz_writer::add_file(std::string_view name, std::string_view data, const tar_meta& m) {
  name = relative(name);
  if (name.empty() || !header(name, '0', data.size(), {}, m) || !write(data.data(), data.size())) return false;
  static const char zeros[kBlock] = {};
  ++entries_;
  return write(zeros, (kBlock - data.size() % kBlock) % kBlock);
}

bool tar_gz_writer::add_dir(std::string_view name, const tar_meta& m) {
  std::string n(relative(name));
  if (n.empty()) return true;  // the root itself
  if (n.back() != '/') n += '/';
  ++entries_;
  return header(n, '5', 0, {}, m);
}

bool tar_gz_writer::add_symlink(std::string_view name, std::string_view target, const tar_meta& m) {
  name = relative(name);
  if (name.empty()) return false;
  ++entries_;
  return header(name, '2', 0, target, m);
}

bool tar_gz_writer::close(std::string& err) {
  if (!gz_) {
    err = "cannot write " + path_ + ": not open";
    return false;
  }
  static const char zeros[2 * kBlock] = {};
  write(zeros, sizeof zeros);
  int rc = gzclose(static_cast<gzFile>(gz_));
  gz_ = nullptr;
  if (failed_ || rc != Z_OK) {
    err = "cannot write " + path_ + (rc == Z_ERRNO ? std::string(": ") + std::strerror(errno) : ": write failed");
    return false;
  }
  return true;
}

}  // namespace gs
