// cuda backend. Every driver call goes through GS_VENDOR_CHECK, so a failure returns the call's
// name, the CUresult and cuGetErrorName/String's words instead of aborting.
#include "runtime/runtime_cuda.h"

#include <memory>
#include <vector>

#include "runtime/jit_cache.h"
#include "runtime/kernel_source.h"
#include "runtime/nvrtc_compiler.h"
#include "vendor/cuda_api.h"
#include "vendor/nvml_api.h"

namespace gs {

namespace {

using namespace vendor;

#define CU_CHECK(expr) GS_VENDOR_CHECK(expr, CUDA_SUCCESS, api_.status)

class cuda_runtime final : public runtime {
 public:
  cuda_runtime(std::string cache_dir) : cache_(std::move(cache_dir)) {}

  ~cuda_runtime() override {
    if (!ctx_) return;
    api_.cuCtxSetCurrent(ctx_);
    for (CUevent e : events_)
      if (e) api_.cuEventDestroy_v2(e);
    for (CUmodule m : modules_) api_.cuModuleUnload(m);
    api_.cuDevicePrimaryCtxRelease_v2(device_);
  }

  runtime_status open(int ordinal) {
    runtime_status st = api_.load();
    if (!st.ok) return st;
    CU_CHECK(api_.cuInit(0));
    int count = 0;
    CU_CHECK(api_.cuDeviceGetCount(&count));
    if (ordinal < 0 || ordinal >= count)
      return runtime_status::failure("cuDeviceGet", CUDA_ERROR_NO_DEVICE,
                                     "CUDA device " + std::to_string(ordinal) + " does not exist (" +
                                         std::to_string(count) + " visible)");
    CU_CHECK(api_.cuDeviceGet(&device_, ordinal));
    char name[256] = {};
    CU_CHECK(api_.cuDeviceGetName(name, sizeof name - 1, device_));
    int major = 0, minor = 0, sms = 0, clock = 0, warp = 0;
    CU_CHECK(api_.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_));
    CU_CHECK(api_.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device_));
    CU_CHECK(api_.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device_));
    CU_CHECK(api_.cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, device_));
    // CLOCK_RATE is deprecated in CUDA 13's runtime struct but still answered by the driver;
    // a driver that stops answering costs us only the clock, not the device.
    if (api_.cuDeviceGetAttribute(&clock, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, device_) != CUDA_SUCCESS) clock = 0;
    size_t total = 0;
    CU_CHECK(api_.cuDeviceTotalMem_v2(&total, device_));
    int drv = 0;
    CU_CHECK(api_.cuDriverGetVersion(&drv));

    props_.backend = "cuda";
    props_.ordinal = ordinal;
    props_.name = name;
    props_.arch = "sm_" + std::to_string(major * 10 + minor);
    props_.wave_size = warp > 0 ? warp : 32;
    props_.compute_units = sms;
    props_.total_memory = total;
    props_.clock_khz = clock;
    // What a block may opt in to (227 KiB on sm_90); every CUDA device gives at least 48 KiB.
    int smem = 0;
    if (api_.cuDeviceGetAttribute(&smem, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device_) != CUDA_SUCCESS ||
        smem <= 0)
      smem = 48 * 1024;
    props_.max_shared_bytes = unsigned(smem);
    props_.driver_version = std::to_string(drv / 1000) + "." + std::to_string((drv % 1000) / 10);
    nvml_api nvml;
    std::string build;
    if (nvml.load().ok && nvml.driver_version(build).ok) props_.driver_build = build;

    // The primary context is the one the CUDA runtime (and so torch) shares; retaining it
    // instead of creating our own keeps one context per process and per device.
    CU_CHECK(api_.cuDevicePrimaryCtxRetain(&ctx_, device_));
    CU_CHECK(api_.cuCtxSetCurrent(ctx_));

    compiler_status_ = nvrtc_.open();
    props_.compiler = compiler_status_.ok ? nvrtc_.version() : "";
    return runtime_status::success();
  }

  const device_props& props() const override { return props_; }

  runtime_status compile(const compile_request& req, compiled_code& out) override {
    if (!compiler_status_.ok) return compiler_status_;
    device_source src;
    if (runtime_status st = prepare_device_source(req, "cuda", props_.wave_size, src); !st.ok) return st;
    return nvrtc_.compile(src, props_.arch + (req.arch_specific ? "a" : ""), out, cache_.enabled() ? &cache_ : nullptr);
  }

  runtime_status load(const compiled_code& code, module_handle& mod) override {
    if (code.image.empty()) return runtime_status::failure("cuModuleLoadData", 0, "empty image");
    CUmodule m = nullptr;
    CU_CHECK(api_.cuModuleLoadData(&m, code.image.data()));
    modules_.push_back(m);
    mod.impl = m;
    return runtime_status::success();
  }

  runtime_status get_kernel(module_handle mod, const std::string& name, kernel_handle& k) override {
    CUfunction f = nullptr;
    CU_CHECK(api_.cuModuleGetFunction(&f, static_cast<CUmodule>(mod.impl), name.c_str()));
    k.impl = f;
    return runtime_status::success();
  }

  runtime_status alloc(size_t bytes, buffer& b) override {
    CUdeviceptr p = 0;
    CU_CHECK(api_.cuMemAlloc_v2(&p, bytes));
    b.ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(p));
    b.bytes = bytes;
    return runtime_status::success();
  }

  runtime_status free(buffer& b) override {
    if (!b.ptr) return runtime_status::success();
    CU_CHECK(api_.cuMemFree_v2(dptr(b.ptr)));
    b = buffer{};
    return runtime_status::success();
  }

  runtime_status copy_to_device(buffer dst, const void* src, size_t bytes) override {
    if (bytes > dst.bytes) return runtime_status::failure("cuMemcpyHtoD_v2", 0, "copy larger than the buffer");
    CU_CHECK(api_.cuMemcpyHtoD_v2(dptr(dst.ptr), src, bytes));
    return runtime_status::success();
  }

  runtime_status copy_to_host(void* dst, buffer src, size_t bytes) override {
    if (bytes > src.bytes) return runtime_status::failure("cuMemcpyDtoH_v2", 0, "copy larger than the buffer");
    CU_CHECK(api_.cuMemcpyDtoH_v2(dst, dptr(src.ptr), bytes));
    return runtime_status::success();
  }

  runtime_status launch(kernel_handle k, const launch_dims& d, void** args) override {
    if (!k.impl) return runtime_status::failure("cuLaunchKernel", 0, "null kernel handle");
    // A block gets 48 KiB of dynamic shared memory unless the kernel opts in to more (up to
    // 227 KiB on sm_90); the opt-in is per function and idempotent, so it is set on each launch
    // that needs it rather than tracked.
    if (d.shared_bytes > 48u * 1024u)
      CU_CHECK(api_.cuFuncSetAttribute(static_cast<CUfunction>(k.impl), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                       int(d.shared_bytes)));
    CU_CHECK(api_.cuLaunchKernel(static_cast<CUfunction>(k.impl), d.grid[0], d.grid[1], d.grid[2], d.block[0],
                                 d.block[1], d.block[2], d.shared_bytes, nullptr, args, nullptr));
    return runtime_status::success();
  }

  runtime_status encode_tensor_map(const tensor_map_2d& t, tensor_map_bytes& out) override {
    if (!api_.cuTensorMapEncodeTiled)
      return runtime_status::failure("cuTensorMapEncodeTiled", 0,
                                     api_.lib.path() + " lacks cuTensorMapEncodeTiled (a driver older than CUDA 12.0)");
    const int swizzle = t.swizzle_bytes == 128 ? 3 : t.swizzle_bytes == 64 ? 2 : t.swizzle_bytes == 32 ? 1 : 0;
    const uint64_t dims[2] = {t.cols, t.rows}, strides[1] = {t.row_stride_bytes};
    const unsigned box[2] = {t.box_cols, t.box_rows}, element_strides[2] = {1, 1};
    const int type = t.elem == tensor_elem::u8    ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                     : t.elem == tensor_elem::f16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                  : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    CU_CHECK(api_.cuTensorMapEncodeTiled(out.words, type,
                                         2, t.base, dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                         CU_TENSOR_MAP_SWIZZLE_NONE + swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    return runtime_status::success();
  }

  runtime_status synchronize() override {
    CU_CHECK(api_.cuCtxSynchronize());
    return runtime_status::success();
  }

  runtime_status time_ms(const std::function<runtime_status()>& fn, double& ms) override {
    if (!events_[0]) {
      CU_CHECK(api_.cuEventCreate(&events_[0], CU_EVENT_DEFAULT));
      CU_CHECK(api_.cuEventCreate(&events_[1], CU_EVENT_DEFAULT));
    }
    CU_CHECK(api_.cuEventRecord(events_[0], nullptr));
    if (runtime_status st = fn(); !st.ok) return st;
    CU_CHECK(api_.cuEventRecord(events_[1], nullptr));
    CU_CHECK(api_.cuEventSynchronize(events_[1]));
    float t = 0;
    CU_CHECK(api_.cuEventElapsedTime_v2 ? api_.cuEventElapsedTime_v2(&t, events_[0], events_[1])
                                        : api_.cuEventElapsedTime(&t, events_[0], events_[1]));
    ms = t;
    return runtime_status::success();
  }

 private:
  static CUdeviceptr dptr(void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }

  cuda_api api_;
  nvrtc_compiler nvrtc_;
  runtime_status compiler_status_;
  jit_cache cache_;
  device_props props_;
  CUdevice device_ = 0;
  CUcontext ctx_ = nullptr;
  std::vector<CUmodule> modules_;
  CUevent events_[2] = {nullptr, nullptr};
};

#undef CU_CHECK

}  // namespace

std::unique_ptr<runtime> open_cuda_runtime(int ordinal, runtime_status& why, const cuda_options& opts) {
  std::string dir = opts.cache_dir == "env" ? jit_cache::from_environment().dir() : opts.cache_dir;
  auto rt = std::make_unique<cuda_runtime>(dir);
  why = rt->open(ordinal);
  if (!why.ok) return nullptr;
  return rt;
}

}  // namespace gs
