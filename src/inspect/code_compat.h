// "Can this GPU run that device code?" The loader rules, as the runtimes apply them:
// NVIDIA (CUDA binary compatibility): SASS sm_XY runs on a device X.Z with Z >= Y; sm_XYa only
// on X.Y exactly; sm_XYf on the same major with Z >= Y; PTX compute_XY JIT-compiles on any
// device >= X.Y (compute_XYa only on X.Y). AMD (clr's isCodeObjectCompatibleWithDevice): the
// processor must be equal (or a generic target whose members include it, from
// matrix/hardware/code_compat.toml), and a feature the code object pins (xnack+/-, sramecc+/-)
// must equal the device's when the device's setting is known.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "detect/gpu_tables.h"

namespace gs {

/// A GPU as the judge sees it: "sm_90", "gfx1201", "gfx90a:xnack-" (features optional).
struct gpu_target {
  std::string vendor;     ///< "nvidia" | "amd" | "" (unparsed)
  int sm = 0;             ///< NVIDIA: 90
  std::string processor;  ///< AMD: "gfx90a"
  std::map<std::string, char> features;  ///< AMD: "xnack" -> '+' / '-' when known
  std::string text;       ///< as given
};

/// "sm_90", "sm90", "9.0", "compute_90" (as a device), "gfx1201", "gfx90a:xnack+"; vendor ""
/// when it is none of those.
gpu_target parse_gpu_target(std::string_view arch);

/// Generic target -> member processors, from matrix/hardware/code_compat.toml.
struct code_compat_table {
  std::map<std::string, std::vector<std::string>> amd_generic;
  std::map<std::string, std::string> unjudged;  ///< library file-name prefix -> why
  /// The `why` when a library (file name) is one a header scan cannot judge, else nullptr.
  const std::string* unjudged_reason(std::string_view file_name) const;
};
/// Parse a table file; errors cite file:line:column.
code_compat_table parse_code_compat(std::string_view path, std::string_view text, std::vector<table_error>& errors);
/// The built-in table (embedded asset; loaded once).
const code_compat_table& builtin_code_compat();

/// NVIDIA: does an entry named like fatbin_entry::name() ("sm_90a", "compute_80") run on `gpu`?
/// `jit` is set when it runs only through the driver's PTX JIT.
bool nvidia_code_runs(const gpu_target& gpu, bool ptx, int sm, std::string_view variant, bool* jit = nullptr);
/// AMD: does a code object for target id `target` ("gfx90a:xnack+", "gfx12-generic") run on `gpu`?
bool amd_code_runs(const gpu_target& gpu, std::string_view target, const code_compat_table& table = builtin_code_compat());

}  // namespace gs
