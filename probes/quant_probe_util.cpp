// Shared pieces of the quant.* probes; see quant_probe_util.h.
#include "probes/quant_probe_util.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "probes/verify.h"

namespace gs {

bool quant_module::load() { return s_.compile(file_, {}, mod_); }

bool quant_module::kernel(const std::string& name, kernel_handle& k) {
  auto it = kernels_.find(name);
  if (it != kernels_.end()) {
    k = it->second;
    return true;
  }
  if (!s_.kernel(mod_, name, k)) return false;
  kernels_[name] = k;
  return true;
}

bool launch_1d(gpu_session& s, kernel_handle k, uint64_t threads, unsigned block, void** args) {
  launch_dims d;
  d.block[0] = block;
  d.grid[0] = unsigned((threads + block - 1) / block);
  if (d.grid[0] == 0) d.grid[0] = 1;
  s.phase("launch");
  if (!s.check(s.rt().launch(k, d, args))) return false;
  s.phase("sync");
  return s.check(s.rt().synchronize());
}

bool make_output(gpu_session& s, guarded_buffer& b, size_t bytes) {
  return s.check(b.create(s.rt(), bytes ? bytes : 1)) && s.check(b.fill_u32(unwritten_bits));
}

std::string bit_check::describe() const {
  if (ok()) return what + ": all " + std::to_string(elements) + " elements bit-exact";
  if (bad == 0) return what + ": wrote outside its output (guard bytes changed)";
  return fmt::format("{}: {} of {} elements differ (first at {}: {})", what, bad, elements, first_bad, first_detail);
}

namespace {

template <class T, class Same, class Show>
bit_check compare(std::string what, const std::vector<T>& got, const std::vector<T>& want, Same same, Show show) {
  bit_check c;
  c.what = std::move(what);
  c.elements = want.size();
  for (size_t i = 0; i < want.size(); ++i) {
    const bool ok = i < got.size() && same(got[i], want[i]);
    if (ok) continue;
    if (c.bad++ == 0) {
      c.first_bad = (long long)i;
      c.first_detail = i < got.size() ? "got " + show(got[i]) + ", want " + show(want[i]) : "missing";
    }
  }
  return c;
}

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

bool nan16(uint16_t h, bool bf16) {
  return bf16 ? ((h & 0x7f80u) == 0x7f80u && (h & 0x007fu) != 0) : ((h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0);
}

}  // namespace

bit_check compare_u8(std::string what, const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  return compare(std::move(what), got, want, [](uint8_t a, uint8_t b) { return a == b; },
                 [](uint8_t v) { return fmt::format("0x{:02x}", v); });
}

bit_check compare_i8(std::string what, const std::vector<int8_t>& got, const std::vector<int8_t>& want) {
  return compare(std::move(what), got, want, [](int8_t a, int8_t b) { return a == b; },
                 [](int8_t v) { return std::to_string(int(v)); });
}

bit_check compare_i32(std::string what, const std::vector<int32_t>& got, const std::vector<int32_t>& want) {
  return compare(std::move(what), got, want, [](int32_t a, int32_t b) { return a == b; },
                 [](int32_t v) { return std::to_string(v); });
}

bit_check compare_f32(std::string what, const std::vector<float>& got, const std::vector<float>& want) {
  // A NaN an operation produces (0 * inf in a dequantize of an infinite block) has a sign and
  // payload IEEE 754 leaves to the implementation: x86 SSE gives the "default NaN" 0xffc00000,
  // NVIDIA GPUs 0x7fffffff (H200, session 1). Any such NaN matches any other; the poison pattern
  // of a never-written element does not.
  auto same = [](float a, float b) {
    if (bits(a) == bits(b)) return true;
    return std::isnan(a) && std::isnan(b) && bits(a) != unwritten_bits;
  };
  return compare(std::move(what), got, want, same,
                 [](float v) { return fmt::format("{:g} (0x{:08x})", v, bits(v)); });
}

bit_check compare_f16ish(std::string what, const std::vector<uint16_t>& got, const std::vector<uint16_t>& want, bool bf16) {
  return compare(std::move(what), got, want,
                 [bf16](uint16_t a, uint16_t b) {
                   // The poison's halves (0x7fba is a bf16 NaN) never count as a written NaN.
                   const bool poison = a == uint16_t(unwritten_bits >> 16) || a == uint16_t(unwritten_bits);
                   return a == b || (nan16(a, bf16) && nan16(b, bf16) && !poison);
                 },
                 [](uint16_t v) { return fmt::format("0x{:04x}", v); });
}

void check_log::add(const std::string& family, const bit_check& c) {
  ++checks_;
  elements_ += c.elements;
  nlohmann::json& f = families_[family];
  if (f.is_null()) f = {{"checks", 0}, {"elements", 0}, {"elements_bad", 0}};
  f["checks"] = f["checks"].get<size_t>() + 1;
  f["elements"] = f["elements"].get<size_t>() + c.elements;
  f["elements_bad"] = f["elements_bad"].get<size_t>() + c.bad;
  if (!c.ok() && !first_failure_) {
    first_failure_ = std::make_unique<bit_check>(c);
    f["first_failure"] = c.describe();
  }
}

}  // namespace gs
