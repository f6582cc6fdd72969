// A gzip'd POSIX tar writer (ustar headers, pax records for names over 255 bytes), just
// enough for `gpustack snapshot`: regular files, directories and symlinks. zlib does the gzip.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace gs {

struct tar_meta {
  unsigned mode = 0644;
  unsigned uid = 0, gid = 0;  ///< numeric only: names would carry the user's identity
  int64_t mtime = 0;
};

class tar_gz_writer {
 public:
  tar_gz_writer() = default;
  tar_gz_writer(const tar_gz_writer&) = delete;
  tar_gz_writer& operator=(const tar_gz_writer&) = delete;
  ~tar_gz_writer();

  /// Create `path` (truncating). False with a reason ("cannot write X: Permission denied").
  bool open(const std::string& path, std::string& err);
  /// `name` is relative ("sys/class/kfd/kfd/topology/nodes/1/properties"); a leading '/' is dropped.
  bool add_file(std::string_view name, std::string_view data, const tar_meta& m = {});
  bool add_dir(std::string_view name, const tar_meta& m = {0755, 0, 0, 0});
  bool add_symlink(std::string_view name, std::string_view target, const tar_meta& m = {0777, 0, 0, 0});
  /// Two zero blocks and the gzip trailer. False (with a reason) if anything failed on the way.
  bool close(std::string& err);

  uint64_t entries() const { return entries_; }

 private:
  bool header(std::string_view name, char type, uint64_t size, std::string_view link, const tar_meta& m);
  bool write(const void* data, size_t n);

  void* gz_ = nullptr;  ///< gzFile, kept opaque so zlib.h stays out of the header
  std::string path_;
  bool failed_ = false;
  uint64_t entries_ = 0;
};

}  // namespace gs
