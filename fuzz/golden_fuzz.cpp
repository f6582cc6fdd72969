// libFuzzer target for the golden-vector reader and comparer (src/quant/golden*.cpp): any bytes
// must give a report (malformed or compared), never a crash, a sanitizer finding or a hang.
// Build: CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DGPUSTACK_FUZZ=ON
//        -DGPUSTACK_BUILD_BENCH=OFF && cmake --build build-asan --target golden_fuzz
// Run:   build-asan/fuzz/golden_fuzz -max_total_time=30 CORPUS_DIR tests/fixtures/golden
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "quant/golden.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const gs::golden_report r = gs::compare_golden(std::string_view(reinterpret_cast<const char*>(data), size));
  // The report must be self-consistent whatever the input.
  if (r.malformed() && (!r.cases.empty() || r.exit_code() != 2)) __builtin_trap();
  if (!r.malformed() && r.exit_code() == 2) __builtin_trap();
  (void)r.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
