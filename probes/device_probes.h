// Probe device.visible: can the runtime open the device, and what does it say it is (name,
// arch, wave size, compute units, memory, driver, compiler). The arch and wave size are checked
// against what the kernel driver reported to `check` (a mismatch is how an
// HSA_OVERRIDE_GFX_VERSION or a wrong --device shows up).
#pragma once
#include <memory>

#include "probes/probe.h"
#include "runtime/runtime.h"

namespace gs {

extern const probe_spec device_visible_probe;

/// device.visible on `rt` (tests pass open_cpu_runtime()); null `rt` opens ctx.device.
probe_result run_device_visible_with(const probe_context& ctx, std::unique_ptr<runtime> rt);

}  // namespace gs
