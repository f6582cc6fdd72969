// A read-only memory map of a whole file, so the parsers see one std::string_view while the
// kernel reads only the pages they touch. libtorch_cuda.so is ~1 GB and its fatbin entry
// headers are 64 B every few KB to MB: madvise(MADV_RANDOM) turns off the fault read-around
// (128 KiB a fault by default), which would otherwise pull most of the file in for a header walk.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace gs {

class mapped_file {
 public:
  mapped_file() = default;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  mapped_file(mapped_file&& o) noexcept { *this = std::move(o); }
  mapped_file& operator=(mapped_file&& o) noexcept;
  ~mapped_file();

  /// Map `path`; false with error() set ("ENOENT", "not a regular file", ...). An empty file
  /// maps to an empty view.
  bool open(const std::string& path);
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }
  uint64_t size() const { return size_; }
  const std::string& error() const { return error_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
  std::string error_;
};

}  // namespace gs
