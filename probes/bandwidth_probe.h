// Probe memory.bandwidth: device-to-device copy rate (copy_bandwidth.cu), checked bit for bit
// and compared with the card's expected band from matrix/hardware/expected_perf.toml.
#pragma once
#include <memory>

#include "probes/probe.h"
#include "runtime/runtime.h"

namespace gs {

extern const probe_spec memory_bandwidth_probe;

/// memory.bandwidth on `rt` (tests pass open_cpu_runtime()); null `rt` opens ctx.device.
/// Options: mib (size of each buffer), iters (timed copies).
probe_result run_memory_bandwidth_with(const probe_context& ctx, std::unique_ptr<runtime> rt);

}  // namespace gs
