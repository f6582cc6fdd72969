// hip backend. Every HIP call goes through GS_VENDOR_CHECK: a failure returns the call's name,
// the hipError_t and hipGetErrorName/String's words instead of aborting.
#include "runtime/runtime_hip.h"

#include <memory>
#include <vector>

#include "runtime/hip_arch.h"
#include "runtime/jit_cache.h"
#include "runtime/kernel_source.h"
#include "vendor/hip_api.h"
#include "vendor/hsa_api.h"

namespace gs {

namespace {

using namespace vendor;

#define HIP_CHECK(expr) GS_VENDOR_CHECK(expr, hipSuccess, api_.status)

class hip_runtime final : public runtime {
 public:
  explicit hip_runtime(std::string cache_dir) : cache_(std::move(cache_dir)) {}

  ~hip_runtime() override {
    if (!opened_) return;
    for (hipEvent_t e : events_)
      if (e) api_.hipEventDestroy(e);
    for (hipModule_t m : modules_) api_.hipModuleUnload(m);
  }

  runtime_status open(int ordinal, const hip_options& opts) {
    runtime_status st = api_.load(opts.hip_library);
    if (!st.ok) return st;
    int count = 0;
    hipError_t rc = api_.hipGetDeviceCount(&count);
    if (rc == hipErrorNoDevice || (rc == hipSuccess && count == 0))
      return runtime_status::failure("hipGetDeviceCount", hipErrorNoDevice,
                                     "no device: " + api_.describe(hipErrorNoDevice) + " (" + api_.lib.path() +
                                         " found no usable AMD GPU)");
    HIP_CHECK(rc);
    if (ordinal < 0 || ordinal >= count)
      return runtime_status::failure("hipSetDevice", 101,
                                     "HIP device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) +
                                         " visible)");
    HIP_CHECK(api_.hipSetDevice(ordinal));
    opened_ = true;

    char name[256] = {};
    HIP_CHECK(api_.hipDeviceGetName(name, sizeof name - 1, ordinal));
    int cus = 0, warp = 0, clock = 0, bus = -1, dev = -1, domain = -1;
    HIP_CHECK(api_.hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, ordinal));
    HIP_CHECK(api_.hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, ordinal));
    if (api_.hipDeviceGetAttribute(&clock, hipDeviceAttributeClockRate, ordinal) != hipSuccess) clock = 0;
    if (api_.hipDeviceGetAttribute(&bus, hipDeviceAttributePciBusId, ordinal) != hipSuccess) bus = -1;
    if (api_.hipDeviceGetAttribute(&dev, hipDeviceAttributePciDeviceId, ordinal) != hipSuccess) dev = -1;
    if (api_.hipDeviceGetAttribute(&domain, hipDeviceAttributePciDomainID, ordinal) != hipSuccess) domain = -1;
    size_t total = 0;
    if (!api_.hipDeviceTotalMem || api_.hipDeviceTotalMem(&total, ordinal) != hipSuccess) {
      // The int attribute saturates at 2 GiB on some releases; better than nothing.
      int t = 0;
      if (api_.hipDeviceGetAttribute(&t, hipDeviceAttributeTotalGlobalMem, ordinal) == hipSuccess && t > 0) total = size_t(t);
    }
    int version = 0;
    if (api_.hipRuntimeGetVersion(&version) != hipSuccess) version = 0;

    props_.backend = "hip";
    props_.ordinal = ordinal;
    props_.name = name;
    props_.wave_size = warp;
    props_.compute_units = cus;
    props_.total_memory = total;
    props_.clock_khz = clock;
    // 64 KiB of LDS per workgroup on every GCN, CDNA and RDNA generation up to gfx12 (gfx950 has
    // 160 KiB; taking 64 there only makes a kernel pick a smaller layout). Not read from the
    // attribute: hipDeviceAttribute's numbering changed between HIP releases.
    props_.max_shared_bytes = 64 * 1024;
    props_.driver_version = hip_version_string(version);

    hip_arch_inputs in;
    in.ordinal = ordinal;
    in.pci_bus = bus;
    in.pci_device = dev;
    in.pci_domain = domain;
    hsa_api hsa;
    runtime_status hs = hsa.load(api_.lib.handle(), api_.lib.path());
    if (hs.ok) hs = hsa.gpus(in.hsa);
    in.hsa_ok = hs.ok;
    if (!hs.ok) in.hsa_error = hs.call + ": " + hs.message;
    if (opts.use_kfd) in.kfd = live_kfd_gpus();
    in.props_arch = api_.props_arch_name(ordinal, &in.props_symbol);
    hip_arch_choice arch = choose_hip_arch(in);
    notes_ = arch.notes;
    notes_.insert(notes_.begin(), "arch from " + (arch.source.empty() ? std::string("nothing") : arch.source));
    if (arch.arch.empty())
      return runtime_status::failure("hsa_agent_get_info", 0,
                                     "the gfx target of HIP device " + std::to_string(ordinal) +
                                         " could not be read from HSA, KFD or hipDeviceProp_t");
    props_.arch = arch.arch;
    if (warp != 32 && warp != 64)
      return runtime_status::failure("hipDeviceGetAttribute", 0,
                                     "wave size " + std::to_string(warp) + " reported for " + props_.arch + " is not 32 or 64");

    compiler_status_ = compiler_.open(opts.compiler, api_.lib.handle(), api_.lib.path(), props_.driver_version);
    props_.compiler = compiler_status_.ok ? compiler_.version() : "";
    if (compiler_.kind() == hip_compiler_kind::comgr) notes_.push_back("comgr HIP header: " + compiler_.header_origin());
    return runtime_status::success();
  }

  const device_props& props() const override { return props_; }
  const std::vector<std::string>& notes() const { return notes_; }

  runtime_status compile(const compile_request& req, compiled_code& out) override {
    if (!compiler_status_.ok) return compiler_status_;
    device_source src;
    if (runtime_status st = prepare_device_source(req, "hip", props_.wave_size, src); !st.ok) return st;
    return compiler_.compile(src, props_.arch, out, cache_.enabled() ? &cache_ : nullptr);
  }

  runtime_status load(const compiled_code& code, module_handle& mod) override {
    if (code.image.empty()) return runtime_status::failure("hipModuleLoadData", 0, "empty image");
    hipModule_t m = nullptr;
    HIP_CHECK(api_.hipModuleLoadData(&m, code.image.data()));
    modules_.push_back(m);
    mod.impl = m;
    return runtime_status::success();
  }

  runtime_status get_kernel(module_handle mod, const std::string& name, kernel_handle& k) override {
    hipFunction_t f = nullptr;
    HIP_CHECK(api_.hipModuleGetFunction(&f, static_cast<hipModule_t>(mod.impl), name.c_str()));
    k.impl = f;
    return runtime_status::success();
  }

  runtime_status alloc(size_t bytes, buffer& b) override {
    void* p = nullptr;
    HIP_CHECK(api_.hipMalloc(&p, bytes));
    b.ptr = p;
    b.bytes = bytes;
    return runtime_status::success();
  }

  runtime_status free(buffer& b) override {
    if (!b.ptr) return runtime_status::success();
    HIP_CHECK(api_.hipFree(b.ptr));
    b = buffer{};
    return runtime_status::success();
  }

  runtime_status copy_to_device(buffer dst, const void* src, size_t bytes) override {
    if (bytes > dst.bytes) return runtime_status::failure("hipMemcpyHtoD", 0, "copy larger than the buffer");
    // hipMemcpyHtoD takes a non-const source in every HIP release; it does not write through it.
    HIP_CHECK(api_.hipMemcpyHtoD(dst.ptr, const_cast<void*>(src), bytes));
    return runtime_status::success();
  }

  runtime_status copy_to_host(void* dst, buffer src, size_t bytes) override {
    if (bytes > src.bytes) return runtime_status::failure("hipMemcpyDtoH", 0, "copy larger than the buffer");
    HIP_CHECK(api_.hipMemcpyDtoH(dst, src.ptr, bytes));
    return runtime_status::success();
  }

  runtime_status launch(kernel_handle k, const launch_dims& d, void** args) override {
    if (!k.impl) return runtime_status::failure("hipModuleLaunchKernel", 0, "null kernel handle");
    HIP_CHECK(api_.hipModuleLaunchKernel(static_cast<hipFunction_t>(k.impl), d.grid[0], d.grid[1], d.grid[2], d.block[0],
                                         d.block[1], d.block[2], d.shared_bytes, nullptr, args, nullptr));
    return runtime_status::success();
  }

  runtime_status synchronize() override {
    HIP_CHECK(api_.hipDeviceSynchronize());
    return runtime_status::success();
  }

  runtime_status time_ms(const std::function<runtime_status()>& fn, double& ms) override {
    if (!events_[0]) {
      HIP_CHECK(api_.hipEventCreate(&events_[0]));
      HIP_CHECK(api_.hipEventCreate(&events_[1]));
    }
    HIP_CHECK(api_.hipEventRecord(events_[0], nullptr));
    if (runtime_status st = fn(); !st.ok) return st;
    HIP_CHECK(api_.hipEventRecord(events_[1], nullptr));
    HIP_CHECK(api_.hipEventSynchronize(events_[1]));
    float t = 0;
    HIP_CHECK(api_.hipEventElapsedTime(&t, events_[0], events_[1]));
    ms = t;
    return runtime_status::success();
  }

 private:
  hip_api api_;
  hip_compiler compiler_;
  runtime_status compiler_status_;
  jit_cache cache_;
  device_props props_;
  bool opened_ = false;
  std::vector<std::string> notes_;
  std::vector<hipModule_t> modules_;
  hipEvent_t events_[2] = {nullptr, nullptr};
};

#undef HIP_CHECK

}  // namespace

std::unique_ptr<runtime> open_hip_runtime(int ordinal, runtime_status& why, const hip_options& opts) {
  std::string dir = opts.cache_dir == "env" ? jit_cache::from_environment().dir() : opts.cache_dir;
  auto rt = std::make_unique<hip_runtime>(dir);
  why = rt->open(ordinal, opts);
  if (!why.ok) return nullptr;
  return rt;
}

const std::vector<std::string>& hip_runtime_notes(const runtime& rt) {
  static const std::vector<std::string> none;
  const auto* h = dynamic_cast<const hip_runtime*>(&rt);
  return h ? h->notes() : none;
}

}  // namespace gs
