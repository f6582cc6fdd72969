// The search of `gpustack bisect`, with no I/O: the versions lie in a line from the good end to
// the bad end (ascending for a regression, descending when the good end is the newer release:
// "which release fixed it"), each tried version is good, bad or skip (could not be judged: it
// did not install, it conflicts with the stack, the probe skipped), and the search asks for the
// next one to try until the boundary is pinned. As `git bisect`: both ends are tried first, a
// skipped version is stepped around, and when skips hide the boundary the answer lists the
// candidates instead of guessing. A result that breaks monotony (good after bad) is reported,
// and the boundary is the first bad one after the last good one before it.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gs {

enum class trial_verdict { good, bad, skip };
const char* to_string(trial_verdict v);

/// What is known: verdicts[i] for versions[i] of the line (nullopt = not tried).
using bisect_line = std::vector<std::optional<trial_verdict>>;

/// The index to try next, nullopt when the search is over (conclude() says how). Both ends
/// first (good end, then bad end), then the untried index nearest the middle of the window
/// between the last good and the first bad, never one already tried.
std::optional<size_t> next_to_try(const bisect_line& line);

struct bisect_answer {
  enum class kind {
    searching,      ///< next_to_try still has an index
    found,          ///< first_bad is the boundary: line[last_good] good, line[first_bad] bad, nothing between
    hidden,         ///< skipped versions between last_good and first_bad: one of candidates is the first bad
    good_end_bad,   ///< the good end is bad too: nothing to search (or the probe fails for another reason)
    bad_end_good,   ///< the bad end is good: the problem did not show at the bad end
    end_untestable, ///< an end could not be judged (skip): choose another end
    empty,          ///< fewer than two versions
  };
  kind what = kind::searching;
  size_t last_good = 0, first_bad = 0;
  std::vector<size_t> candidates;  ///< hidden: the skipped indices between, then first_bad
  std::vector<size_t> out_of_order;  ///< good verdicts after first_bad (the probe is flaky or non-monotonic)
  size_t tried = 0, skipped = 0;
};
const char* to_string(bisect_answer::kind k);

bisect_answer conclude(const bisect_line& line);

/// Tries still needed at most, for progress: log2 of the untried window, plus untried ends.
size_t remaining_estimate(const bisect_line& line);

}  // namespace gs
