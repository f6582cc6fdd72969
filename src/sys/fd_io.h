// Whole reads and writes on a file descriptor: a short transfer is continued, EINTR retried, and
// anything else (EOF, EPIPE from a reader that is gone, a full disk) ends it with false. The one
// home for these loops: pipes to and from watched children, the worker's socket, the breadcrumb
// and JIT cache files.
#pragma once
#include <cstddef>
#include <string_view>

namespace gs {

/// All of `bytes`, or false (errno says why).
bool write_all(int fd, std::string_view bytes);
/// write_all through send(MSG_NOSIGNAL), for a socket whose reader may be gone: EPIPE, not SIGPIPE.
bool send_all(int fd, std::string_view bytes);
/// Exactly `n` bytes into `p`, or false at EOF or on an error.
bool read_exact(int fd, char* p, size_t n);

}  // namespace gs
