// Bus bandwidth of a collective as nccl-tests defines it (NVIDIA/nccl-tests, doc/PERFORMANCE.md),
// so `probe collective` figures read against nccl-tests' own and against the link's peak:
//   algbw = S / t, S the operation's size (the reduced or broadcast buffer, the gathered output,
//   the scattered input), t the time of one call;
//   busbw = algbw * factor, the factor being what each rank must move over its link for a ring
//   implementation: all_reduce 2(n-1)/n (a reduce-scatter then an all-gather), all_gather and
//   reduce_scatter (n-1)/n, broadcast 1.
// Napkin: 8 ranks, all_reduce of 1 GiB in 10 ms: algbw 107 GB/s, busbw 107 * 14/8 = 188 GB/s.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace gs {

/// nccl-tests' bus factor for `op` over `ranks` ranks; nullopt for an operation it does not know.
std::optional<double> bus_factor(std::string_view op, int ranks);

struct collective_bandwidth {
  double algbw_gbps = 0;  ///< 10^9 bytes per second, as nccl-tests prints
  double busbw_gbps = 0;
};

/// The two figures for one size; nullopt when the time is not positive or the op is unknown.
std::optional<collective_bandwidth> bandwidth_of(std::string_view op, int ranks, double bytes, double time_us);

}  // namespace gs
