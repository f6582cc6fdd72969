// Turning a kernel source into what a device compiler gets (GUIDE habit 1, aesthetics.md (b)1-2):
// the kernel's text, the device prelude kernels/gs_device.h (and any other kernels/*.h) as
// in-memory headers taken from the embedded assets, never from disk, and the defines that
// select the vendor (GS_CUDA=1 or GS_HIP=1) and the wave size (GS_WARP_SIZE, read from the
// device, never assumed). Both GPU backends call prepare_device_source() in compile().
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/runtime.h"

namespace gs {

/// A source ready for NVRTC / hiprtc / comgr.
struct device_source {
  std::string name;                                         ///< "reduce_sum.cu"
  std::string source;                                       ///< the kernel text, unchanged
  std::vector<std::pair<std::string, std::string>> headers; ///< include name -> text
  std::vector<std::string> defines;                         ///< "GS_HIP=1", "GS_WARP_SIZE=32", then the request's
  int wave_size = 0;                                        ///< the GS_WARP_SIZE in effect
};

/// The in-memory headers every kernel may include: each embedded kernels/<name>.h directly
/// under kernels/ (gs_device.h first), keyed by <name>.h.
std::vector<std::pair<std::string, std::string>> device_headers();

/// Build the device source for `backend` ("cuda" | "hip"). GS_CUDA/GS_HIP is added unless the
/// request has it (the other vendor's define is an error); GS_WARP_SIZE is added as
/// `device_wave` unless the request sets it (CUDA accepts only 32). A malformed define, an
/// empty source or a missing prelude is an error, not a guess.
runtime_status prepare_device_source(const compile_request& req, std::string_view backend, int device_wave,
                                     device_source& out);

/// A request for an embedded kernel by asset path ("kernels/vector_add.cu"): name is the file
/// name, source the asset text. `defines` are passed through.
runtime_status kernel_request(std::string_view asset_path, compile_request& out,
                              const std::vector<std::string>& defines = {});

/// A source's headers and a compiler's options as the C arrays nvrtcCreateProgram and
/// hiprtcCreateProgram (and their Compile calls) take: pointers into `src` and `options`, which
/// must outlive this.
struct rtc_arrays {
  std::vector<const char*> header_text, header_names, options;
  rtc_arrays(const device_source& src, const std::vector<std::string>& opts);
  int header_count() const { return static_cast<int>(header_text.size()); }
  int option_count() const { return static_cast<int>(options.size()); }
};

/// "-DNAME=VALUE" for each define, in order (the option spelling all three compilers accept).
std::vector<std::string> define_options(const std::vector<std::string>& defines);

}  // namespace gs
