// Seconds on the monotonic clock, for deadlines and elapsed times: unlike the wall clock it
// never jumps when NTP or the user sets the time, so a deadline cannot fire early or never.
#pragma once
#include <chrono>

namespace gs {

/// Seconds since an arbitrary fixed point (boot, on Linux); only differences mean anything.
inline double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace gs
