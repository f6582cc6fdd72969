// Output checks shared by the kernel probes (research/aesthetics.md (b)5): NaN positions,
// infinity signs, then an error bound per element; a poison pattern that marks elements the
// kernel never wrote; and the figures (max abs/rel error, elements checked) the report carries.
#pragma once
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace gs {

/// Bits an output buffer is filled with before a launch: a signalling NaN with a payload no
/// arithmetic produces (hardware quietens NaNs), so an element still holding it was never written.
inline constexpr uint32_t unwritten_bits = 0x7fbadbadu;

/// The same error bound for every element: |got - want| <= abs + rel * |want|.
struct tolerance {
  double abs = 0;
  double rel = 0;
};

/// What comparing one output array found.
struct f32_check {
  size_t checked = 0;       ///< elements compared
  size_t bad = 0;           ///< elements outside their bound (unwritten ones included)
  size_t unwritten = 0;     ///< elements still holding unwritten_bits
  size_t nan_mismatch = 0;  ///< NaN in one array and not the other, or infinities that differ
  double max_abs_err = 0;   ///< over finite pairs
  double max_rel_err = 0;   ///< |got - want| / |want| over finite pairs with want != 0
  long long first_bad = -1; ///< index of the first bad element, -1 when none
  bool ok() const { return bad == 0; }
  /// "3 of 1048576 elements outside tolerance (first at 17, 1 never written)".
  std::string describe() const;
  nlohmann::json to_json() const;
};

/// After a sampled comparison: count the elements of the whole output still holding
/// unwritten_bits into `check` (as bad and unwritten; first_bad names the first one, an index
/// into `whole`, when the sample itself was clean).
void add_unwritten(f32_check& check, std::span<const float> whole);

/// Compare with one tolerance for all elements. got.size() must equal want.size().
f32_check check_f32(std::span<const float> got, std::span<const float> want, tolerance tol);

/// Compare with a per-element absolute bound (bound[i] for element i).
f32_check check_f32(std::span<const float> got, std::span<const float> want, std::span<const double> bound);

/// Bit-for-bit comparison (copies): any differing bit pattern is bad.
f32_check check_bits(std::span<const float> got, std::span<const float> want);

}  // namespace gs
