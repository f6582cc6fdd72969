#include "sys/fd_io.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace gs {
namespace {

template <typename Transfer>
bool write_loop(std::string_view bytes, Transfer transfer) {
  while (!bytes.empty()) {
    ssize_t n = transfer(bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

bool write_all(int fd, std::string_view bytes) {
  return write_loop(bytes, [fd](const char* p, size_t n) { return ::write(fd, p, n); });
}

bool send_all(int fd, std::string_view bytes) {
  return write_loop(bytes, [fd](const char* p, size_t n) { return ::send(fd, p, n, MSG_NOSIGNAL); });
}

bool read_exact(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

}  // namespace gs
