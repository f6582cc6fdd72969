// Linked into the pip wheel's binary only (-DGPUSTACK_PORTABLE=ON): keeps its glibc floor at the
// versions the code itself needs (2.34 when built on Debian 12), not at what the static libstdc++
// of GCC 12 was built against. libstdc++.a's random.o (pulled in by its exception classes through
// cow-string-inst.o, never called by gpustack) references arc4random, which glibc 2.36 added: left
// to libc, that one reference would make the wheel manylinux_2_36 and refuse Ubuntu 22.04 and RHEL 9.
// A definition here satisfies it first; getrandom is glibc 2.25.
#include <sys/random.h>

#include <cstdint>

extern "C" uint32_t arc4random(void) {
  uint32_t v = 0;
  while (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) {
  }
  return v;
}
