// The NVIDIA side of the matrix-unit and resource check (issue 17): one NVRTC compile per
// kernel source and arch, as the runtime's (runtime/nvrtc_compiler.cpp: the prepared source and
// headers, --gpu-architecture=sm_XX, the defines) plus --ptxas-options=-v. That one compile gives
// both things the check needs:
//  - the PTX (nvrtcGetPTX works after a real-arch compile): gs_mma.h's sm_80+ lowering is inline
//    mma.sync, so its presence is the matrix path and its absence the ALU fallback;
//  - ptxas's own report in the program log (registers, shared memory, stack frame, spill bytes
//    per entry), from the ptxas inside this NVRTC, i.e. what the runtime's CUBIN has.
// Chosen over cuobjdump -sass / -res-usage because this machine's and CI's CUDA 13 toolkit has
// no cuobjdump or nvdisasm in /usr/local/cuda/bin, and because it reads the very compile the
// runtime does rather than a second nvcc build.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "runtime/kernel_source.h"
#include "vendor/nvrtc_api.h"

namespace gs::test {

/// One entry function as ptxas reports it, plus its PTX's .maxntid (the __launch_bounds__).
struct nvrtc_kernel_usage {
  std::string name;
  int registers = 0;
  unsigned smem_bytes = 0;  ///< static shared memory
  unsigned stack_bytes = 0;
  unsigned spill_store_bytes = 0, spill_load_bytes = 0;
  int max_threads = 0;  ///< .maxntid x*y*z; 0 when the kernel has no launch bounds
  int mma_sync = 0;     ///< mma.sync instructions in the entry's PTX
};

struct nvrtc_usage_build {
  bool ok = false;
  std::string message;  ///< why not, with the log
  std::string ptx;
  std::string log;  ///< NVRTC's program log: ptxas's report and its notes (C7515 wgmma serialization)
  std::vector<nvrtc_kernel_usage> kernels;
};

/// Compile `src` for `arch` ("sm_90") with `api` (loaded) and read the PTX and ptxas's report.
nvrtc_usage_build nvrtc_build_with_usage(const vendor::nvrtc_api& api, const device_source& src,
                                         const std::string& arch);

/// The entries of a `ptxas -v` report ("Compiling entry function 'k' for 'sm_90'", "N bytes stack
/// frame, S bytes spill stores, L bytes spill loads", "Used R registers, ... B bytes smem").
std::vector<nvrtc_kernel_usage> parse_ptxas_report(std::string_view log);
/// Adds each entry's .maxntid and mma.sync count from the PTX text to `kernels` (by name).
void add_ptx_entry_facts(std::string_view ptx, std::vector<nvrtc_kernel_usage>& kernels);

}  // namespace gs::test
