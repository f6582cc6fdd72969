// Streaming zlib / zstd decompression with an output cap, for compressed offload bundles
// (CCOB) and zstd-compressed fatbin entries. "Prefix" decompression stops once `want` bytes
// are out: a bundle's entry table is its first few hundred bytes, so listing targets never
// needs the whole (often multi-MB) payload.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace gs {

enum class compression { zlib, zstd };

struct decompress_result {
  std::string data;     ///< what came out (at most `want` bytes)
  bool complete = false;///< the stream ended (data is all of it)
  std::string error;    ///< "" on success ("corrupt zstd stream: ..."), also when cut at `want`
};

/// Decompress `src` until `want` bytes are out or the stream ends. A stream that ends early, or
/// corrupt input, sets `error`; `want` caps memory whatever the input claims.
decompress_result decompress_prefix(compression method, std::string_view src, uint64_t want);

const char* compression_name(compression c);

}  // namespace gs
