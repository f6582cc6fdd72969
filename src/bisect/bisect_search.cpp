// The bisection over a line of versions; see bisect_search.h.
#include "bisect/bisect_search.h"

#include <cmath>

namespace gs {
namespace {

bool is(const bisect_line& l, size_t i, trial_verdict v) { return l[i].has_value() && *l[i] == v; }

/// The window: [last good before the first bad, first bad]. first_bad = the first bad index
/// after index 0; last_good = the last good index before it. nullopt while either end is unknown.
struct window {
  size_t lo, hi;
};
std::optional<window> window_of(const bisect_line& l) {
  size_t n = l.size();
  if (n < 2 || !is(l, 0, trial_verdict::good) || !is(l, n - 1, trial_verdict::bad)) return std::nullopt;
  size_t hi = n - 1;
  for (size_t i = 1; i < n; ++i)
    if (is(l, i, trial_verdict::bad)) {
      hi = i;
      break;
    }
  size_t lo = 0;
  for (size_t i = 0; i < hi; ++i)
    if (is(l, i, trial_verdict::good)) lo = i;
  return window{lo, hi};
}

}  // namespace

const char* to_string(trial_verdict v) {
  switch (v) {
    case trial_verdict::good: return "good";
    case trial_verdict::bad: return "bad";
    case trial_verdict::skip: return "skip";
  }
  return "?";
}

const char* to_string(bisect_answer::kind k) {
  switch (k) {
    case bisect_answer::kind::searching: return "searching";
    case bisect_answer::kind::found: return "found";
    case bisect_answer::kind::hidden: return "hidden";
    case bisect_answer::kind::good_end_bad: return "good_end_bad";
    case bisect_answer::kind::bad_end_good: return "bad_end_good";
    case bisect_answer::kind::end_untestable: return "end_untestable";
    case bisect_answer::kind::empty: return "empty";
  }
  return "?";
}

std::optional<size_t> next_to_try(const bisect_line& l) {
  size_t n = l.size();
  if (n < 2) return std::nullopt;
  if (!l[0]) return 0;
  if (!l[n - 1]) return n - 1;
  auto w = window_of(l);
  if (!w) return std::nullopt;  // an end is not what it should be: conclude() says which
  // The untried index nearest the middle; on a tie the lower one.
  const double mid = (double(w->lo) + double(w->hi)) / 2.0;
  std::optional<size_t> best;
  for (size_t i = w->lo + 1; i < w->hi; ++i) {
    if (l[i]) continue;
    if (!best || std::fabs(double(i) - mid) < std::fabs(double(*best) - mid)) best = i;
  }
  return best;
}

bisect_answer conclude(const bisect_line& l) {
  bisect_answer a;
  size_t n = l.size();
  for (const auto& v : l) {
    if (v) ++a.tried;
    if (v && *v == trial_verdict::skip) ++a.skipped;
  }
  if (n < 2) {
    a.what = bisect_answer::kind::empty;
    return a;
  }
  if (next_to_try(l)) return a;  // searching
  if (is(l, 0, trial_verdict::skip) || is(l, n - 1, trial_verdict::skip)) {
    a.what = bisect_answer::kind::end_untestable;
    return a;
  }
  if (is(l, 0, trial_verdict::bad)) {
    a.what = bisect_answer::kind::good_end_bad;
    return a;
  }
  if (is(l, n - 1, trial_verdict::good)) {
    a.what = bisect_answer::kind::bad_end_good;
    return a;
  }
  window w = *window_of(l);
  a.last_good = w.lo;
  a.first_bad = w.hi;
  for (size_t i = w.lo + 1; i < w.hi; ++i)
    if (is(l, i, trial_verdict::skip)) a.candidates.push_back(i);
  for (size_t i = w.hi + 1; i < n; ++i)
    if (is(l, i, trial_verdict::good)) a.out_of_order.push_back(i);
  if (a.candidates.empty()) {
    a.what = bisect_answer::kind::found;
  } else {
    a.what = bisect_answer::kind::hidden;
    a.candidates.push_back(w.hi);
  }
  return a;
}

size_t remaining_estimate(const bisect_line& l) {
  size_t n = l.size();
  if (n < 2) return 0;
  size_t ends = (l[0] ? 0 : 1) + (l[n - 1] ? 0 : 1);
  size_t lo = 0, hi = n - 1;
  if (auto w = window_of(l)) {
    lo = w->lo;
    hi = w->hi;
  } else if (!ends) {
    return 0;
  }
  size_t untried = 0;
  for (size_t i = lo + 1; i < hi; ++i)
    if (!l[i]) ++untried;
  return ends + (untried ? size_t(std::ceil(std::log2(double(untried) + 1))) : 0);
}

}  // namespace gs
