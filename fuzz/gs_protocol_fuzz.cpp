// libFuzzer target for the `@gs` line protocol Python probe children speak on stdout
// (src/python/gs_line_protocol.h): bytes arrive in any split, so the first byte picks the chunk
// size the stream is fed in; every event and the log tail must come out without a crash, and
// a result payload is parsed as the JSON the probe runner reads.
// Run: scripts/fuzz.sh build-asan 20 (seeds: tests/fixtures/python_outputs/).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "python/gs_line_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 64;
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  gs::gs_line_parser parser;
  std::vector<gs::gs_line_event> events;
  for (size_t off = 0; off < bytes.size(); off += chunk) parser.feed(bytes.substr(off, chunk), events);
  parser.finish(events);
  gs::log_tail tail(8, 64);
  for (const gs::gs_line_event& e : events) {
    if (e.kind == gs::gs_line_event::log) tail.add(e.text);
    if (e.kind == gs::gs_line_event::result) {
      nlohmann::json j = nlohmann::json::parse(e.text, nullptr, false);
      (void)j;
    }
    gs::gs_line_event again = gs::parse_gs_line(e.text);  // a line's text parses again without a crash
    (void)again;
  }
  return 0;
}
