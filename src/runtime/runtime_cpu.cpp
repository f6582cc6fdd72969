// The cpu backend: kernels run as their CPU references (see runtime_cpu.h). It keeps the checks a
// driver would make (unknown kernel, bad launch shape, pointer outside any allocation) so a probe
// bug shows up in CI on the cpu backend instead of as a GPU page fault later.
#include "runtime/runtime_cpu.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <thread>

namespace gs {

runtime_status illegal_address(const char* kernel, const char* what) {
  return runtime_status::failure(kernel, 700, std::string(what) + " range is outside every allocation");
}

int cpu_launch::define_int(const std::string& name, int fallback) const {
  auto it = defines.find(name);
  if (it == defines.end() || it->second.empty()) return fallback;
  char* end = nullptr;
  long v = std::strtol(it->second.c_str(), &end, 0);
  return (end && *end == '\0') ? int(v) : fallback;
}

namespace {

// A loaded "module": the source file it came from and the defines it was compiled with.
struct cpu_module {
  std::string file;
  std::map<std::string, std::string> defines;
};

// The "image" of a compiled cpu module is plain text: "cpu-module v1", the file name, then one
// NAME=VALUE line per define. load() parses it back, so compile -> load round-trips like a cubin.
constexpr const char* image_magic = "cpu-module v1";

std::string fnv1a_hex(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
  return buf;
}

class cpu_runtime final : public runtime {
 public:
  explicit cpu_runtime(int wave_size) {
    props_.backend = "cpu";
    props_.ordinal = 0;
    props_.name = "CPU (kernel references)";
    props_.arch = "cpu";
    props_.wave_size = wave_size;
    props_.compute_units = int(std::thread::hardware_concurrency());
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    props_.total_memory = (pages > 0 && page > 0) ? uint64_t(pages) * uint64_t(page) : 0;
    props_.compiler = "none (CPU references)";
  }
  ~cpu_runtime() override {
    for (auto& [ptr, bytes] : allocations_) std::free(ptr);
  }

  const device_props& props() const override { return props_; }

  runtime_status compile(const compile_request& req, compiled_code& out) override {
    bool known = false;
    for (const cpu_kernel& k : cpu_kernels()) known = known || req.name == k.file;
    if (!known)
      return runtime_status::failure("cpu_compile", 1,
                                     "no CPU implementation is registered for " + req.name);
    if (req.source.empty()) return runtime_status::failure("cpu_compile", 2, req.name + ": empty source");
    std::string image = std::string(image_magic) + "\n" + req.name + "\n";
    for (const std::string& d : req.defines) image += d + "\n";
    out.image.assign(image.begin(), image.end());
    out.log.clear();
    out.cache_key = "cpu:" + req.name + ":" + fnv1a_hex(req.source + image);
    out.from_cache = false;
    return runtime_status::success();
  }

  runtime_status load(const compiled_code& code, module_handle& mod) override {
    std::string text(code.image.begin(), code.image.end());
    size_t pos = text.find('\n');
    if (pos == std::string::npos || text.substr(0, pos) != image_magic)
      return runtime_status::failure("cpu_load", 1, "not a cpu module image");
    auto m = std::make_unique<cpu_module>();
    size_t next = text.find('\n', pos + 1);
    m->file = text.substr(pos + 1, next - pos - 1);
    while (next != std::string::npos && next + 1 < text.size()) {
      size_t end = text.find('\n', next + 1);
      std::string line = text.substr(next + 1, end - next - 1);
      size_t eq = line.find('=');
      m->defines[line.substr(0, eq)] = eq == std::string::npos ? "1" : line.substr(eq + 1);
      next = end;
    }
    mod.impl = m.get();
    modules_.push_back(std::move(m));
    return runtime_status::success();
  }

  runtime_status get_kernel(module_handle mod, const std::string& name, kernel_handle& k) override {
    const cpu_module* m = find_module(mod);
    if (!m) return runtime_status::failure("cpu_get_kernel", 1, "unknown module handle");
    for (const cpu_kernel& ck : cpu_kernels()) {
      if (m->file == ck.file && name == ck.name) {
        bound_.push_back({&ck, m});
        k.impl = &bound_.back();
        return runtime_status::success();
      }
    }
    return runtime_status::failure("cpu_get_kernel", 2, "no kernel " + name + " in " + m->file);
  }

  runtime_status alloc(size_t bytes, buffer& b) override {
    // 256-byte alignment, like cuMemAlloc/hipMalloc: copy_v2's 16-byte vectors rely on it.
    size_t rounded = (bytes + 255) / 256 * 256;
    void* p = std::aligned_alloc(256, rounded ? rounded : 256);
    if (!p) return runtime_status::failure("cpu_alloc", 1, "out of host memory for " + std::to_string(bytes) + " bytes");
    allocations_[p] = bytes;
    b = {p, bytes};
    return runtime_status::success();
  }

  runtime_status free(buffer& b) override {
    auto it = allocations_.find(b.ptr);
    if (it == allocations_.end()) return runtime_status::failure("cpu_free", 1, "pointer is not an allocation");
    std::free(it->first);
    allocations_.erase(it);
    b = {};
    return runtime_status::success();
  }

  runtime_status copy_to_device(buffer dst, const void* src, size_t bytes) override {
    if (!inside_allocation(dst.ptr, bytes))
      return runtime_status::failure("cpu_copy_to_device", 1, "destination range is outside every allocation");
    std::memcpy(dst.ptr, src, bytes);
    return runtime_status::success();
  }

  runtime_status copy_to_host(void* dst, buffer src, size_t bytes) override {
    if (!inside_allocation(src.ptr, bytes))
      return runtime_status::failure("cpu_copy_to_host", 1, "source range is outside every allocation");
    std::memcpy(dst, src.ptr, bytes);
    return runtime_status::success();
  }

  runtime_status launch(kernel_handle k, const launch_dims& d, void** args) override {
    const bound_kernel* bk = find_bound(k);
    if (!bk) return runtime_status::failure("cpu_launch", 1, "unknown kernel handle");
    // The limits every GPU we target enforces: 1024 threads per block, non-empty grid.
    uint64_t threads = uint64_t(d.block[0]) * d.block[1] * d.block[2];
    if (threads == 0 || threads > 1024 || d.grid[0] == 0 || d.grid[1] == 0 || d.grid[2] == 0)
      return runtime_status::failure("cpu_launch", 2, "invalid launch shape");
    cpu_launch l;
    l.dims = d;
    l.defines = bk->module->defines;
    l.wave_size = l.define_int("GS_WARP_SIZE", props_.wave_size);
    l.valid_range = [this](const void* p, size_t bytes) { return inside_allocation(p, bytes); };
    return bk->kernel->run(l, args);
  }

  runtime_status synchronize() override { return runtime_status::success(); }

  runtime_status time_ms(const std::function<runtime_status()>& fn, double& ms) override {
    auto t0 = std::chrono::steady_clock::now();
    runtime_status st = fn();
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return st;
  }

 private:
  struct bound_kernel {
    const cpu_kernel* kernel;
    const cpu_module* module;
  };

  const cpu_module* find_module(module_handle h) const {
    for (const auto& m : modules_)
      if (m.get() == h.impl) return m.get();
    return nullptr;
  }
  const bound_kernel* find_bound(kernel_handle h) const {
    for (const bound_kernel& b : bound_)
      if (&b == h.impl) return &b;
    return nullptr;
  }
  bool inside_allocation(const void* p, size_t bytes) const {
    auto c = reinterpret_cast<uintptr_t>(p);
    for (const auto& [base, size] : allocations_) {
      auto b = reinterpret_cast<uintptr_t>(base);
      if (c >= b && c - b <= size && bytes <= size - (c - b)) return true;
    }
    return false;
  }

  device_props props_;
  std::vector<std::unique_ptr<cpu_module>> modules_;
  std::deque<bound_kernel> bound_;  // deque: handles stay valid as more kernels are bound
  std::map<void*, size_t> allocations_;
};

}  // namespace

std::unique_ptr<runtime> open_cpu_runtime(int wave_size) {
  return std::make_unique<cpu_runtime>(wave_size == 64 ? 64 : 32);
}

}  // namespace gs
