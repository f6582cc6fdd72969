// One binary's GPU code: where it sits (ELF sections .hip_fatbin, .nv_fatbin, __nv_relfatbin,
// or the whole file when it is a bundle, a CCOB, a fatbin or a bare code object), the parsed
// containers, and the summary (device_code_library) that `check` and the judge use.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"
#include "inspect/nv_fatbin.h"
#include "inspect/offload_bundle.h"

namespace gs {

struct library_scan {
  std::string path;
  uint64_t file_size = 0;
  std::string format;                  ///< "elf", "offload-bundle", "ccob", "fatbin", "code-object", "other"
  std::vector<std::string> sections;   ///< code sections present: ".hip_fatbin", ".nv_fatbin", ...
  std::vector<offload_bundle> bundles;
  std::vector<fatbin_container> fatbins;
  std::string code_object_isa;         ///< format "code-object": its ISA ("gfx90a", "sm_90")
  std::string error;                   ///< the file could not be read / is not what it claims
  double elapsed_ms = 0;
};

struct scan_options {
  bool deep = false;  ///< decompress CCOB payloads fully and read every cubin's ELF header
  std::function<std::string(std::string_view)> isa_namer;  ///< comgr, for AMD code objects
};

/// Scan bytes (a mapped file, or a test/fuzz buffer).
library_scan scan_library_bytes(std::string_view bytes, const scan_options& opts = {});
/// Map and scan a file. Reads the section table and the container/entry headers only.
library_scan scan_library_file(const std::string& path, const scan_options& opts = {});

/// The summary: code units grouped by their target sets; errors joined.
device_code_library summarize_scan(const library_scan& s, std::string package = {});

}  // namespace gs
