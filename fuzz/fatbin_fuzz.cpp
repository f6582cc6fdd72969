// libFuzzer target over the device-code parsers of `gpustack inspect`: the ELF section table,
// plain and compressed (CCOB, zlib/zstd) offload bundles, NVIDIA fatbins, and the summary and
// judge on top. The first byte picks the entry point (and deep mode), so one corpus covers all.
// Seeds (fuzz/seeds/fatbin_fuzz/): a real nvcc object, a real comgr bundle, and CCOB forms of
// it, each cut to the first 64 KiB (scripts/fuzz.sh passes -max_len=65536).
// Run: scripts/fuzz.sh build-asan 20
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "inspect/code_judge.h"
#include "inspect/elf_sections.h"
#include "inspect/library_scan.h"
#include "inspect/nv_fatbin.h"
#include "inspect/offload_bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  const bool deep = data[0] & 0x80;
  switch (data[0] % 5) {
    case 0: (void)gs::read_elf_sections(bytes); break;
    case 1: {
      gs::bundle_options o;
      o.full_decompress = deep;
      o.max_uncompressed = 1 << 20;  // the fuzzer's memory limit, not a real one
      (void)gs::scan_offload_bundles(bytes, o);
      break;
    }
    case 2: {
      gs::fatbin_options o;
      o.deep = deep;
      (void)gs::scan_nv_fatbins(bytes, o);
      break;
    }
    default: {
      gs::scan_options o;  // not deep: a CCOB may claim up to 1 GiB here (case 1 fuzzes deep with a cap)
      gs::library_scan s = gs::scan_library_bytes(bytes, o);
      gs::device_code_library lib = gs::summarize_scan(s);
      for (const char* gpu : {"sm_90", "gfx1201", "gfx90a:xnack-"}) (void)gs::judge_library(lib, gs::parse_gpu_target(gpu));
      break;
    }
  }
  return 0;
}
