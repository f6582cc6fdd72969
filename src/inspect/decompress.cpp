// decompress.h over zlib's inflate and zstd's ZSTD_decompressStream (both linked; neither is a
// GPU vendor library). Output grows in 64 KiB steps up to `want`.
#include "inspect/decompress.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>

namespace gs {

const char* compression_name(compression c) { return c == compression::zlib ? "zlib" : "zstd"; }

namespace {

constexpr size_t kStep = 64 << 10;

decompress_result inflate_prefix(std::string_view src, uint64_t want) {
  decompress_result r;
  z_stream z{};
  if (inflateInit(&z) != Z_OK) {
    r.error = "zlib: inflateInit failed";
    return r;
  }
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(src.data()));
  // zlib's avail_in is 32-bit: feed at most 1 GiB at a time.
  size_t fed = 0;
  auto feed = [&] {
    size_t n = std::min<size_t>(src.size() - fed, 1u << 30);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(src.data() + fed));
    z.avail_in = static_cast<uInt>(n);
    fed += n;
  };
  feed();
  while (r.data.size() < want) {
    size_t old = r.data.size();
    size_t grow = static_cast<size_t>(std::min<uint64_t>(kStep, want - old));
    r.data.resize(old + grow);
    z.next_out = reinterpret_cast<Bytef*>(r.data.data() + old);
    z.avail_out = static_cast<uInt>(grow);
    int rc = inflate(&z, Z_NO_FLUSH);
    r.data.resize(old + grow - z.avail_out);
    if (rc == Z_STREAM_END) {
      r.complete = true;
      break;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && fed < src.size()) {
      feed();
      continue;
    }
    if (rc != Z_OK) {
      r.error = std::string("corrupt zlib stream: ") + (z.msg ? z.msg : (rc == Z_BUF_ERROR ? "input ends early" : "error"));
      break;
    }
    if (z.avail_in == 0 && fed < src.size()) feed();
    if (z.avail_in == 0 && fed >= src.size() && z.avail_out != 0) {
      r.error = "zlib stream ends early (truncated input)";
      break;
    }
  }
  inflateEnd(&z);
  return r;
}

decompress_result zstd_prefix(std::string_view src, uint64_t want) {
  decompress_result r;
  ZSTD_DStream* ds = ZSTD_createDStream();
  if (!ds) {
    r.error = "zstd: cannot create a stream";
    return r;
  }
  ZSTD_inBuffer in{src.data(), src.size(), 0};
  while (r.data.size() < want) {
    size_t old = r.data.size();
    size_t grow = static_cast<size_t>(std::min<uint64_t>(kStep, want - old));
    r.data.resize(old + grow);
    ZSTD_outBuffer out{r.data.data() + old, grow, 0};
    size_t rc = ZSTD_decompressStream(ds, &out, &in);
    r.data.resize(old + out.pos);
    if (ZSTD_isError(rc)) {
      r.error = std::string("corrupt zstd stream: ") + ZSTD_getErrorName(rc);
      break;
    }
    if (rc == 0) {  // a frame ended; one frame is what both producers write
      r.complete = true;
      break;
    }
    if (in.pos == in.size && out.pos < grow) {
      r.error = "zstd stream ends early (truncated input)";
      break;
    }
  }
  ZSTD_freeDStream(ds);
  return r;
}

}  // namespace

decompress_result decompress_prefix(compression method, std::string_view src, uint64_t want) {
  return method == compression::zlib ? inflate_prefix(src, want) : zstd_prefix(src, want);
}

}  // namespace gs
