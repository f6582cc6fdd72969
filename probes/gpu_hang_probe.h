// selftest.gpu_hang: the watchdog's GPU self-test. Launches kernels/spin_forever.cu, which never
// returns, and waits for it in phase "sync". Expected outcome: `hang` in phase sync (exit 3),
// and the probes after it still run on a usable GPU. Runs only when named:
//   gpustack probe selftest.gpu_hang device.visible --timeout 5
#pragma once
#include <memory>

#include "probes/probe.h"
#include "runtime/runtime.h"

namespace gs {

extern const probe_spec selftest_gpu_hang_probe;

}  // namespace gs
