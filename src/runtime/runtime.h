// One interface over the places a kernel can run (GUIDE "Shape", issue 3): cpu (the kernel's CPU
// reference), cuda (libcuda + NVRTC via dlopen) and hip (libamdhip64 + hiprtc or amd_comgr via
// dlopen). Probes compile a kernel source from kernels/ for the device's arch, then allocate,
// copy, launch, synchronise and time with events. Every call returns a runtime_status; nothing
// throws or exits, because a broken driver is a finding, not a crash.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/runtime_status.h"

namespace gs {

struct device_props {
  std::string backend;      ///< "cpu" | "cuda" | "hip"
  int ordinal = 0;
  std::string name;         ///< "NVIDIA H200", "AMD Radeon AI PRO R9700"
  std::string arch;         ///< "sm_90", "gfx1201" (HIP: from HSA/KFD, never the old prop layout)
  int wave_size = 32;       ///< passed to kernels as -DGS_WARP_SIZE
  int compute_units = 0;    ///< SMs / CUs
  uint64_t total_memory = 0;
  int clock_khz = 0;
  /// Shared memory (LDS) one block may use, opt-in included; 0: no limit (the cpu backend).
  unsigned max_shared_bytes = 0;
  std::string driver_version;   ///< "13.0" (CUDA driver API) / HIP runtime version
  std::string compiler;         ///< "nvrtc 13.0" / "hiprtc 7.2" / "comgr 2.4"
  std::string driver_build;     ///< kernel driver version where known ("580.95.05" from NVML), else ""
};

/// A compiled, loaded module.
struct module_handle { void* impl = nullptr; };
struct kernel_handle { void* impl = nullptr; };
struct buffer { void* ptr = nullptr; size_t bytes = 0; };

struct launch_dims {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned shared_bytes = 0;
};

/// A compile request: one source file from kernels/. The GPU backends add the device prelude
/// (kernels/gs_device.h, in memory) and GS_CUDA/GS_HIP + GS_WARP_SIZE (runtime/kernel_source.h).
struct compile_request {
  std::string name;                  ///< "vector_add.cu" (for logs and the cache key)
  std::string source;                ///< full text
  std::vector<std::string> defines;  ///< "GS_WARP_SIZE=32"
  /// CUDA: compile for the arch-specific target (sm_90a, not sm_90), whose instructions (wgmma,
  /// setmaxnreg) run on that one arch only; the probe asks for it only on that arch. Ignored
  /// elsewhere.
  bool arch_specific = false;
};

struct compiled_code {
  std::vector<char> image;  ///< cubin / hsaco
  std::string log;          ///< compiler output (warnings)
  std::string cache_key;    ///< content hash + arch + compiler version
  bool from_cache = false;
};

/// Element type of a tensor map: what cuTensorMapEncodeTiled is told (fp8 goes as uint8: TMA only
/// moves bytes, and CUDA 12's CUtensorMapDataType has no fp8 entry).
enum class tensor_elem { bf16, f16, u8 };
inline unsigned tensor_elem_bytes(tensor_elem e) { return e == tensor_elem::u8 ? 1u : 2u; }

/// A row-major 2-D tensor of 8- or 16-bit elements as the tensor memory accelerator (Hopper's TMA)
/// sees it: the arguments of cuTensorMapEncodeTiled (CUDA driver API, "Tensor Map Object
/// Management"), extents innermost first. Reads outside the extents give zeros.
struct tensor_map_2d {
  void* base = nullptr;            ///< device address, 16-byte aligned
  tensor_elem elem = tensor_elem::bf16;
  uint64_t cols = 0, rows = 0;     ///< extents in elements
  uint64_t row_stride_bytes = 0;   ///< a multiple of 16
  uint32_t box_cols = 0, box_rows = 0;  ///< the box one copy moves (each <= 256)
  uint32_t swizzle_bytes = 0;      ///< 0 (none), 32, 64 or 128; box_cols x element bytes must not exceed it
};
/// An encoded map: 128 opaque bytes a kernel takes by value (a __grid_constant__ parameter).
struct alignas(64) tensor_map_bytes {
  uint64_t words[16] = {};
};

class runtime {
 public:
  virtual ~runtime() = default;
  virtual const device_props& props() const = 0;
  virtual runtime_status compile(const compile_request& req, compiled_code& out) = 0;
  virtual runtime_status load(const compiled_code& code, module_handle& mod) = 0;
  virtual runtime_status get_kernel(module_handle mod, const std::string& name, kernel_handle& k) = 0;
  virtual runtime_status alloc(size_t bytes, buffer& b) = 0;
  virtual runtime_status free(buffer& b) = 0;
  virtual runtime_status copy_to_device(buffer dst, const void* src, size_t bytes) = 0;
  virtual runtime_status copy_to_host(void* dst, buffer src, size_t bytes) = 0;
  /// args: pointers to each kernel argument, as cuLaunchKernel takes them.
  virtual runtime_status launch(kernel_handle k, const launch_dims& d, void** args) = 0;
  virtual runtime_status synchronize() = 0;
  /// Elapsed GPU time of `fn`'s launches, measured with events around them.
  virtual runtime_status time_ms(const std::function<runtime_status()>& fn, double& ms) = 0;
  /// Encode `t` for a kernel's TMA copies: the cuda backend on sm_90+ (cuTensorMapEncodeTiled);
  /// every other backend has no tensor memory accelerator and says so.
  virtual runtime_status encode_tensor_map(const tensor_map_2d& t, tensor_map_bytes& out) {
    (void)t, (void)out;
    return runtime_status::failure("cuTensorMapEncodeTiled", 0, "this backend has no tensor memory accelerator");
  }
};

/// Open a backend for a device: "cpu", "cuda:N", "hip:N", "N" (device N of the first GPU backend
/// that has it), or "auto" (first GPU found, else cpu; why.message then says why no GPU was used).
/// On failure `why` says what is missing ("libcuda.so.1 not found", "hipErrorNoDevice").
std::unique_ptr<runtime> open_runtime(const std::string& device, runtime_status& why);

/// A parsed device string. backend: "cpu" | "auto" | "cuda" | "hip" | "gpu" (a bare ordinal).
struct device_spec {
  bool valid = false;
  std::string backend;
  int ordinal = 0;
};
device_spec parse_device(const std::string& device);

/// The cpu backend (src/runtime/runtime_cpu.h declares it with its parameter's default).
std::unique_ptr<runtime> open_cpu_runtime(int wave_size);

}  // namespace gs
