// Bounded little-endian reads from a binary blob (fat binaries, offload bundles): every read is
// checked against the blob's end, because the blob is outside input that may be truncated or
// hostile. x86_64 and aarch64 hosts are little-endian, so memcpy is the decode.
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>

namespace gs {

/// The T at byte `off` of `b`; false (v untouched) when it does not fit.
template <typename T>
bool read_le(std::string_view b, uint64_t off, T& v) {
  if (off > b.size() || b.size() - off < sizeof(T)) return false;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return true;
}

}  // namespace gs
