// What the quant.* probes share: one compiled module with its kernels looked up once, 1-D
// launches, device buffers filled from host vectors, and bit-for-bit comparisons that say which
// element differs and how (the tallies end up in the probe's data).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probes/gpu_session.h"

namespace gs {

/// One compiled kernels/<file> and the kernels taken from it.
class quant_module {
 public:
  quant_module(gpu_session& s, std::string file) : s_(s), file_(std::move(file)) {}
  /// Compile and load (phase "compile"); false after recording why.
  bool load();
  /// The kernel `name`; false after recording why.
  bool kernel(const std::string& name, kernel_handle& k);

 private:
  gpu_session& s_;
  std::string file_;
  module_handle mod_;
  std::map<std::string, kernel_handle> kernels_;
};

/// Launch `k` over `threads` threads in blocks of `block` (grid rounded up), then synchronise.
bool launch_1d(gpu_session& s, kernel_handle k, uint64_t threads, unsigned block, void** args);

/// A guarded device buffer filled from host bytes, or with the unwritten pattern (outputs).
template <class T>
bool upload(gpu_session& s, guarded_buffer& b, const std::vector<T>& host) {
  return s.check(b.create(s.rt(), host.size() * sizeof(T) + (host.empty() ? 1 : 0))) &&
         (host.empty() || s.check(b.upload(host.data())));
}
bool make_output(gpu_session& s, guarded_buffer& b, size_t bytes);

/// Download a buffer into `host` (resized to bytes / sizeof(T)) and check its guards.
template <class T>
bool download(gpu_session& s, const guarded_buffer& b, std::vector<T>& host, bool& guards_ok) {
  host.resize(b.bytes() / sizeof(T));
  return s.check(b.download(host.data())) && s.check(b.check_guards(guards_ok));
}

/// Each float of `x` through `round` (gs_f32_to_f16 or gs_f32_to_bf16): the 16-bit inputs.
template <class Round>
std::vector<uint16_t> to16(const std::vector<float>& x, Round round) {
  std::vector<uint16_t> h(x.size());
  for (size_t i = 0; i < x.size(); ++i) h[i] = round(x[i]);
  return h;
}

/// The tally of one comparison.
struct bit_check {
  std::string what;       ///< "quant4_dequant_bf16_v3 bs128"
  size_t elements = 0;
  size_t bad = 0;
  long long first_bad = -1;
  std::string first_detail;  ///< "got 0x3f80, want 0x3f81"
  bool guards_ok = true;
  bool ok() const { return bad == 0 && guards_ok; }
  std::string describe() const;
};

/// Element-wise bit comparisons. Floats: NaN equals NaN (an operation's NaN has an
/// implementation-defined sign and payload: x86 0xffc00000, NVIDIA 0x7fffffff; the 16-bit
/// conversions write a canonical NaN where the references keep the payload), except the
/// never-written poison; everything else bit for bit.
bit_check compare_u8(std::string what, const std::vector<uint8_t>& got, const std::vector<uint8_t>& want);
bit_check compare_i8(std::string what, const std::vector<int8_t>& got, const std::vector<int8_t>& want);
bit_check compare_i32(std::string what, const std::vector<int32_t>& got, const std::vector<int32_t>& want);
bit_check compare_f32(std::string what, const std::vector<float>& got, const std::vector<float>& want);
bit_check compare_f16ish(std::string what, const std::vector<uint16_t>& got, const std::vector<uint16_t>& want, bool bf16);

/// Running totals per check family ("quantize", "dequant_v3", ...) and the first failure.
class check_log {
 public:
  void add(const std::string& family, const bit_check& c);
  bool ok() const { return !first_failure_; }
  const bit_check* first_failure() const { return first_failure_ ? &*first_failure_ : nullptr; }
  size_t checks() const { return checks_; }
  size_t elements() const { return elements_; }
  nlohmann::json to_json() const { return families_; }

 private:
  nlohmann::json families_ = nlohmann::json::object();
  std::unique_ptr<bit_check> first_failure_;
  size_t checks_ = 0, elements_ = 0;
};

}  // namespace gs
