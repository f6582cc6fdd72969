// mapped_file.h: mmap + MADV_RANDOM, errors as errno names.
#include "inspect/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "sys/sysroot.h"

namespace gs {

mapped_file& mapped_file::operator=(mapped_file&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(data_, size_);
    data_ = o.data_;
    size_ = o.size_;
    error_ = std::move(o.error_);
    o.data_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

mapped_file::~mapped_file() {
  if (data_) ::munmap(data_, size_);
}

bool mapped_file::open(const std::string& path) {
  if (data_) ::munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error_ = errno_name(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    error_ = errno_name(errno);
    ::close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error_ = "not a regular file";
    ::close(fd);
    return false;
  }
  if (st.st_size > 0) {
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      error_ = errno_name(errno);
      ::close(fd);
      return false;
    }
    ::madvise(p, static_cast<size_t>(st.st_size), MADV_RANDOM);
    data_ = p;
    size_ = static_cast<size_t>(st.st_size);
  }
  ::close(fd);
  error_.clear();
  return true;
}

}  // namespace gs
