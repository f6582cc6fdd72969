// Built-in probes that check the watchdog itself: selftest.pass, selftest.hang (blocks forever
// in phase launch, at 0 % CPU like a deadlocked GPU wait) and selftest.crash (SIGSEGV in phase
// launch). Not in the default suite; they run only when named:
//   gpustack probe selftest.hang --timeout 2   -> exit 3, status hang in phase launch
#pragma once
#include "probes/probe.h"

namespace gs {

extern const probe_spec selftest_pass_probe;
extern const probe_spec selftest_hang_probe;
extern const probe_spec selftest_crash_probe;
// The same for a Python step, in the warm worker or (--fresh) a fresh interpreter:
//   gpustack probe selftest.py.pass selftest.py.hang selftest.py.pass --timeout 3
// -> pass, hang in phase launch, pass in a new worker (data.worker says which).
extern const probe_spec selftest_py_pass_probe;
extern const probe_spec selftest_py_hang_probe;
extern const probe_spec selftest_py_crash_probe;

}  // namespace gs
