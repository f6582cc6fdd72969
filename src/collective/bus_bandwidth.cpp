// nccl-tests' algorithm and bus bandwidth (bus_bandwidth.h).
#include "collective/bus_bandwidth.h"

namespace gs {

std::optional<double> bus_factor(std::string_view op, int ranks) {
  if (ranks < 1) return std::nullopt;
  const double n = ranks;
  if (op == "all_reduce") return 2 * (n - 1) / n;
  if (op == "all_gather" || op == "reduce_scatter") return (n - 1) / n;
  if (op == "broadcast") return 1.0;
  return std::nullopt;
}

std::optional<collective_bandwidth> bandwidth_of(std::string_view op, int ranks, double bytes, double time_us) {
  std::optional<double> f = bus_factor(op, ranks);
  if (!f || !(time_us > 0) || !(bytes >= 0)) return std::nullopt;
  collective_bandwidth b;
  b.algbw_gbps = bytes / (time_us * 1e-6) / 1e9;
  b.busbw_gbps = b.algbw_gbps * *f;
  return b;
}

}  // namespace gs
