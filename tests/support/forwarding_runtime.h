// A runtime that passes every call to another one (by default the cpu backend): the base of the
// tests' fault-injecting and property-faking doubles, which override only the calls they change.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "runtime/runtime.h"
#include "runtime/runtime_cpu.h"

namespace gs::test {

class forwarding_runtime : public runtime {
 public:
  explicit forwarding_runtime(std::unique_ptr<runtime> inner = open_cpu_runtime()) : inner_(std::move(inner)) {}
  const device_props& props() const override { return inner_->props(); }
  runtime_status compile(const compile_request& r, compiled_code& c) override { return inner_->compile(r, c); }
  runtime_status load(const compiled_code& c, module_handle& m) override { return inner_->load(c, m); }
  runtime_status get_kernel(module_handle m, const std::string& n, kernel_handle& k) override { return inner_->get_kernel(m, n, k); }
  runtime_status alloc(size_t b, buffer& x) override { return inner_->alloc(b, x); }
  runtime_status free(buffer& x) override { return inner_->free(x); }
  runtime_status copy_to_device(buffer d, const void* s, size_t b) override { return inner_->copy_to_device(d, s, b); }
  runtime_status copy_to_host(void* d, buffer s, size_t b) override { return inner_->copy_to_host(d, s, b); }
  runtime_status launch(kernel_handle k, const launch_dims& d, void** a) override { return inner_->launch(k, d, a); }
  runtime_status synchronize() override { return inner_->synchronize(); }
  runtime_status time_ms(const std::function<runtime_status()>& fn, double& ms) override { return inner_->time_ms(fn, ms); }
  runtime_status encode_tensor_map(const tensor_map_2d& t, tensor_map_bytes& out) override {
    return inner_->encode_tensor_map(t, out);
  }

 protected:
  std::unique_ptr<runtime> inner_;
};

}  // namespace gs::test
