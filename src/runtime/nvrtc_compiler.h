// NVRTC as a compiler that needs no GPU: the cuda backend uses it for the device's sm_XX, and the
// CI tests use it directly to compile every kernels/*.cu for sm_80, sm_90 and sm_120. A JIT
// failure carries NVRTC's full log, the options and the arch (aesthetics.md (b)9).
#pragma once
#include <string>
#include <vector>

#include "runtime/jit_cache.h"
#include "runtime/kernel_source.h"
#include "vendor/nvrtc_api.h"

namespace gs {

class nvrtc_compiler {
 public:
  /// Load NVRTC (see vendor::nvrtc_api::load for the search order) and check its builtins.
  runtime_status open(const std::vector<std::string>& extra_dirs = {});
  bool is_open() const { return open_; }
  /// "nvrtc 13.0"
  std::string version() const { return "nvrtc " + api_.version(); }
  const std::string& library_path() const { return api_.lib.path(); }
  /// Real archs this NVRTC can emit a CUBIN for (75, 80, ...); empty when it cannot say.
  std::vector<int> supported_archs() const { return api_.supported_archs(); }

  /// Compile `src` for `arch` ("sm_90") into a CUBIN. Refuses an arch that NVRTC does not list
  /// (torch's bundled NVRTC 12.8 has no sm_121), checks the CUBIN's ELF says the same arch, and
  /// reads/writes `cache` when given.
  runtime_status compile(const device_source& src, const std::string& arch, compiled_code& out,
                         const jit_cache* cache = nullptr);

 private:
  vendor::nvrtc_api api_;
  bool open_ = false;
};

/// "sm_90" -> 90, "sm_90a" -> 90 (suffix kept by the caller); 0 when malformed.
int parse_sm(const std::string& arch);

}  // namespace gs
