// JIT cache: one file per key, "<key>.bin", holding a one-line header and the image.
//   gpustack-jit 1 <key> <image bytes> <sha256 of image>\n<image>
// The header repeats the key, so a file renamed or copied under another key is rejected too.
#include "runtime/jit_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/sha256.h"
#include "sys/fd_io.h"

namespace gs {

namespace {

constexpr const char* kCacheMagic = "gpustack-jit";
constexpr int kFormat = 1;
constexpr size_t kMaxImage = size_t(256) << 20;  // a kernel image is KBs; 256 MiB means garbage

void add_field(std::string& out, std::string_view v) {
  out += std::to_string(v.size());
  out += ':';
  out += v;
  out += ';';
}

bool valid_key(const std::string& key) {
  if (key.size() != 64) return false;
  for (char c : key)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

runtime_status make_dirs(const std::string& dir) {
  std::string cur;
  size_t pos = 0;
  while (pos <= dir.size()) {
    size_t next = dir.find('/', pos);
    if (next == std::string::npos) next = dir.size();
    cur = dir.substr(0, next);
    if (!cur.empty() && mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      return runtime_status::failure("mkdir", errno, cur + ": " + std::strerror(errno));
    pos = next + 1;
  }
  return runtime_status::success();
}

}  // namespace

std::string jit_cache_key(const jit_key_parts& parts, const device_source& src) {
  std::string blob = "gpustack-jit-key-v1;";
  add_field(blob, parts.backend);
  add_field(blob, parts.arch);
  add_field(blob, parts.compiler);
  add_field(blob, std::to_string(parts.options.size()));
  for (const std::string& o : parts.options) add_field(blob, o);
  add_field(blob, src.name);
  add_field(blob, src.source);
  add_field(blob, std::to_string(src.headers.size()));
  for (const auto& [name, text] : src.headers) {
    add_field(blob, name);
    add_field(blob, text);
  }
  return sha256_hex(blob);
}

jit_cache jit_cache::from_environment() {
  const char* v = std::getenv("GPUSTACK_CACHE_DIR");
  if (v && *v) return jit_cache(std::string(v) == "off" ? std::string() : std::string(v));
  v = std::getenv("XDG_CACHE_HOME");
  if (v && *v == '/') return jit_cache(std::string(v) + "/gpustack/jit");
  v = std::getenv("HOME");
  if (v && *v == '/') return jit_cache(std::string(v) + "/.cache/gpustack/jit");
  return jit_cache(std::string());
}

std::string jit_cache::path_for(const std::string& key) const { return dir_ + "/" + key + ".bin"; }

std::optional<std::vector<char>> jit_cache::get(const std::string& key) const {
  if (!enabled() || !valid_key(key)) return std::nullopt;
  std::ifstream in(path_for(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::string header;
  if (!std::getline(in, header) || header.size() > 256) return std::nullopt;
  std::istringstream h(header);
  std::string magic, stored_key, digest;
  int format = 0;
  size_t size = 0;
  if (!(h >> magic >> format >> stored_key >> size >> digest)) return std::nullopt;
  if (magic != kCacheMagic || format != kFormat || stored_key != key || size > kMaxImage) return std::nullopt;
  std::vector<char> image(size);
  if (size && !in.read(image.data(), static_cast<std::streamsize>(size))) return std::nullopt;
  if (in.peek() != std::ifstream::traits_type::eof()) return std::nullopt;  // trailing bytes: not ours
  if (sha256_hex(std::string_view(image.data(), image.size())) != digest) return std::nullopt;
  return image;
}

runtime_status jit_cache::put(const std::string& key, const std::vector<char>& image) const {
  if (!enabled()) return runtime_status::success();
  if (!valid_key(key)) return runtime_status::failure("jit_cache_put", EINVAL, "malformed cache key '" + key + "'");
  if (runtime_status st = make_dirs(dir_); !st.ok) return st;
  std::string final_path = path_for(key);
  std::string tmp = final_path + ".tmp." + std::to_string(getpid());
  std::string header = std::string(kCacheMagic) + " " + std::to_string(kFormat) + " " + key + " " +
                       std::to_string(image.size()) + " " +
                       sha256_hex(std::string_view(image.data(), image.size())) + "\n";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return runtime_status::failure("open", errno, tmp + ": " + std::strerror(errno));
  bool ok = write_all(fd, header) && write_all(fd, std::string_view(image.data(), image.size()));
  int err = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  // rename() is atomic within a directory: a reader sees the old entry or the whole new one.
  if (ok && ::rename(tmp.c_str(), final_path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return runtime_status::failure("jit_cache_put", err, final_path + ": " + std::strerror(err));
  }
  return runtime_status::success();
}

}  // namespace gs
