// spin_forever.cu: a kernel that never returns, for the watchdog's GPU self-test
// (probe selftest.gpu_hang). It spins on a flag in device memory that nothing ever sets, so the
// host's synchronize never comes back while the host thread sleeps in the driver: the 0%-CPU
// signature of the flash-linear-attention deadlock. CPU reference: the cpu backend's row for it
// in src/runtime/runtime_cpu_kernels.cpp waits the same way without burning a core.
#include "gs_device.h"

// Version 1: one thread polls. volatile forces a real load on every iteration; without it the
// compiler may hoist the load and the loop is still infinite, but then it proves nothing about
// waiting on memory.
GS_KERNEL void spin_on_flag_v1(volatile unsigned* flag) {
  while (*flag == 0u) {
  }
}
