// Probes tensor.vector_add and tensor.reduce: the first kernels compiled and launched on the
// device, every output element checked against the CPU reference, guard bytes around each
// output to catch out-of-bounds writes, and a poison pattern to catch elements never written.
#pragma once
#include <memory>

#include "probes/probe.h"
#include "runtime/runtime.h"

namespace gs {

extern const probe_spec tensor_vector_add_probe;
extern const probe_spec tensor_reduce_probe;

/// The probes on `rt` (tests pass open_cpu_runtime(32 or 64)); null `rt` opens ctx.device.
/// Options: n (element count).
probe_result run_tensor_vector_add_with(const probe_context& ctx, std::unique_ptr<runtime> rt);
probe_result run_tensor_reduce_with(const probe_context& ctx, std::unique_ptr<runtime> rt);

}  // namespace gs
