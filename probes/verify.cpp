// Output checks for the kernel probes; see verify.h.
#include "probes/verify.h"

#include <bit>
#include <cmath>

namespace gs {
namespace {

uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }

// One element: classify, update the figures, return whether it is within `bound`.
bool check_one(f32_check& c, float g, float w, double bound) {
  ++c.checked;
  if (bits_of(g) == unwritten_bits) {
    ++c.unwritten;
    return false;
  }
  if (std::isnan(w) || std::isnan(g)) {
    bool same = std::isnan(w) && std::isnan(g);
    if (!same) ++c.nan_mismatch;
    return same;
  }
  if (std::isinf(w) || std::isinf(g)) {
    bool same = g == w;  // same infinity, same sign
    if (!same) ++c.nan_mismatch;
    return same;
  }
  double err = std::fabs(double(g) - double(w));
  if (err > c.max_abs_err) c.max_abs_err = err;
  if (w != 0) {
    double rel = err / std::fabs(double(w));
    if (rel > c.max_rel_err) c.max_rel_err = rel;
  }
  return err <= bound;
}

// Every element through `ok_at(c, i)`, which classifies element i into `c` and says whether it
// passes; the bad count, the first bad index and a length mismatch are kept here, once.
template <class OkAt>
f32_check compare(std::span<const float> got, std::span<const float> want, OkAt ok_at) {
  f32_check c;
  size_t n = got.size() < want.size() ? got.size() : want.size();
  for (size_t i = 0; i < n; ++i) {
    if (!ok_at(c, i)) {
      ++c.bad;
      if (c.first_bad < 0) c.first_bad = (long long)i;
    }
  }
  // A length mismatch is a probe bug; count the missing elements as bad rather than hide it.
  size_t longer = got.size() > want.size() ? got.size() : want.size();
  if (longer > n) {
    c.bad += longer - n;
    if (c.first_bad < 0) c.first_bad = (long long)n;
  }
  return c;
}

}  // namespace

std::string f32_check::describe() const {
  if (ok()) return "all " + std::to_string(checked) + " elements within tolerance";
  std::string s = std::to_string(bad) + " of " + std::to_string(checked) +
                  " elements outside tolerance (first at " + std::to_string(first_bad);
  if (unwritten) s += ", " + std::to_string(unwritten) + " never written";
  if (nan_mismatch) s += ", " + std::to_string(nan_mismatch) + " NaN/Inf mismatches";
  return s + ")";
}

nlohmann::json f32_check::to_json() const {
  return {{"elements_checked", checked}, {"elements_bad", bad},      {"elements_unwritten", unwritten},
          {"nan_inf_mismatches", nan_mismatch}, {"max_abs_err", max_abs_err}, {"max_rel_err", max_rel_err}};
}

f32_check check_f32(std::span<const float> got, std::span<const float> want, tolerance tol) {
  return compare(got, want, [&](f32_check& c, size_t i) {
    return check_one(c, got[i], want[i], tol.abs + tol.rel * std::fabs(double(want[i])));
  });
}

f32_check check_f32(std::span<const float> got, std::span<const float> want, std::span<const double> bound) {
  return compare(got, want,
                 [&](f32_check& c, size_t i) { return check_one(c, got[i], want[i], i < bound.size() ? bound[i] : 0.0); });
}

f32_check check_bits(std::span<const float> got, std::span<const float> want) {
  return compare(got, want, [&](f32_check& c, size_t i) {
    ++c.checked;
    uint32_t g = bits_of(got[i]), w = bits_of(want[i]);
    if (g == w) return true;
    if (g == unwritten_bits) ++c.unwritten;
    return false;
  });
}

void add_unwritten(f32_check& check, std::span<const float> whole) {
  size_t unwritten = 0;
  long long first = -1;
  for (size_t i = 0; i < whole.size(); ++i)
    if (std::bit_cast<uint32_t>(whole[i]) == unwritten_bits && unwritten++ == 0) first = (long long)i;
  if (unwritten && check.ok()) check.first_bad = first;
  check.unwritten += unwritten;
  check.bad += unwritten;
}

}  // namespace gs
