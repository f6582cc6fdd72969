// HIP device compilation without a GPU: hiprtc when the machine has it (ROCm 6+ libhiprtc, or
// the copy inside ROCm 5's libamdhip64), else amd_comgr driven directly, with the 2.x or 3.x
// enum numbering chosen from amd_comgr_get_version(). comgr alone has no HIP runtime headers,
// so that path pre-includes one: the preprocessed header hiprtc itself ships in
// libhiprtc-builtins (when present) or, failing that, gpustack's own small shim
// (hip_rtc_shim.cpp). A JIT failure names the arch and the compiler version and carries the log.
#pragma once
#include <string>
#include <vector>

#include "runtime/jit_cache.h"
#include "runtime/kernel_source.h"
#include "vendor/comgr_api.h"
#include "vendor/hiprtc_api.h"

namespace gs {

enum class hip_compiler_kind { automatic, hiprtc, comgr };
/// Where the comgr path takes the HIP device declarations from.
enum class hip_header_source { automatic, builtins, shim };

struct hip_compiler_options {
  hip_compiler_kind kind = hip_compiler_kind::automatic;  ///< $GPUSTACK_HIP_COMPILER overrides automatic
  hip_header_source headers = hip_header_source::automatic;
};

class hip_compiler {
 public:
  /// Pick and load a compiler. `hip_handle`/`hip_path` (may be null/empty) let hiprtc be found
  /// inside a ROCm 5 libamdhip64 and libraries be searched next to it; `hip_version` labels a
  /// hiprtc that cannot report its own version.
  runtime_status open(const hip_compiler_options& opts, void* hip_handle = nullptr, const std::string& hip_path = {},
                      const std::string& hip_version = {});
  bool is_open() const { return kind_ != hip_compiler_kind::automatic; }
  hip_compiler_kind kind() const { return kind_; }
  /// "hiprtc (HIP 5.2.21153)", "comgr 2.4"
  std::string version() const;
  /// For comgr: where the HIP declarations came from ("libhiprtc-builtins.so.5" or "gpustack shim").
  const std::string& header_origin() const { return header_origin_; }
  /// comgr only: the ISA names it knows; empty for hiprtc (which cannot list them).
  std::vector<std::string> known_isas() const { return kind_ == hip_compiler_kind::comgr ? comgr_.isa_names() : std::vector<std::string>{}; }

  /// Compile for `arch` ("gfx1201", feature suffixes such as ":xnack-" allowed) with the wave size
  /// in src.wave_size (64 on RDNA adds -mwavefrontsize64). Checks the code object's EF_AMDGPU_MACH.
  runtime_status compile(const device_source& src, const std::string& arch, compiled_code& out,
                         const jit_cache* cache = nullptr);

 private:
  runtime_status compile_hiprtc(const device_source& src, const std::string& arch,
                                const std::vector<std::string>& options, compiled_code& out);
  runtime_status compile_comgr(const device_source& src, const std::string& arch,
                               const std::vector<std::string>& options, compiled_code& out);
  runtime_status load_builtins_header(const std::string& hip_path);

  hip_compiler_kind kind_ = hip_compiler_kind::automatic;
  vendor::hiprtc_api hiprtc_;
  vendor::comgr_api comgr_;
  std::string rtc_header_;     ///< the HIP declarations the comgr path pre-includes
  std::string header_origin_;
};

/// gpustack's minimal HIP device header for comgr without hiprtc's builtins: attribute macros,
/// threadIdx/blockIdx/blockDim/gridDim, __syncthreads, __shfl_xor, bit casts, a few math
/// functions. It covers what kernels/*.cu use; a test compiles every kernel through it.
const std::string& hip_rtc_shim();

/// "gfx90a:sramecc+:xnack-" -> "gfx90a"; "gfx1201" -> "gfx1201".
std::string gfx_base(const std::string& arch);
/// The gfx major (9 for gfx90a, 12 for gfx1201); 0 when not a gfx name.
int gfx_major(const std::string& arch);

}  // namespace gs
