// Linked into the pip wheel's binary only (-DGPUSTACK_PORTABLE=ON): brings its glibc floor down to
// 2.28 (manylinux_2_28: RHEL 8, Debian 10, Ubuntu 20.04 and newer) although it is built on Debian 12,
// whose glibc 2.36 headers and crt files bind about 25 symbols to versions newer than 2.28. Each such
// reference is redirected here (CMakeLists.txt: -Wl,--wrap=SYMBOL for every one) to a version that
// glibc 2.28 has and that every later glibc still exports as a compatibility symbol, so the same
// binary runs on both. `readelf -V build/gpustack` shows what is left; make_wheel.py reads the tag off
// it and tests/cli/wheel_test.cpp fails the build if it rises above manylinux_2_28.
//
// What moved and why (glibc's NEWS):
// - 2.34 merged libdl and libpthread into libc and gave their symbols new GLIBC_2.34 versions; the
//   GLIBC_2.2.5 (aarch64: 2.17) ones stay in libc.so.6 as compatibility symbols, and on 2.28 they
//   live in libdl.so.2 and libpthread.so.0, which the binary therefore lists as needed (the loader
//   matches a symbol by its version's name, not by the library the link saw it in).
// - 2.34's crt1 calls __libc_start_main@GLIBC_2.34 without an init function: the new one finds the
//   program's constructors itself. The GLIBC_2.2.5 one (on 2.28, and kept on 2.34+ for old programs)
//   calls the init function it is given and nothing else, so the wrapper passes one that runs _init
//   and .init_array as glibc 2.28's libc_nonshared did (.preinit_array is run by ld.so for a dynamic
//   program on every version; .fini_array by ld.so's _dl_fini, so no fini function is passed).
// - 2.33 exported stat/fstat/lstat as functions; before, the headers turned them into __xstat(1, ...).
// - 2.29 gave exp and log2 new versions without the SVID error handling (errno is the same for us).
// - 2.32 added __libc_single_threaded, which GCC 12's libstdc++ reads to skip atomics: defined here as
//   0, "maybe threaded", so libstdc++ always takes the atomic path; correct everywhere, a few ns slower.
// - 2.30 added pthread_cond_clockwait (libstdc++'s condition_variable waits on the steady clock):
//   emulated with pthread_cond_timedwait on CLOCK_REALTIME, the deadline moved by the clocks' offset.
// - 2.36 added arc4random: libstdc++.a's random.o (pulled in by its exception classes, never called by
//   gpustack) references it; getrandom (2.25) serves it.
//
// Per architecture (the only things that differ; the logic is the same): the baseline symbol version
// each old symbol is bound to is the architecture's first glibc, GLIBC_2.2.5 on x86_64 and GLIBC_2.17
// on aarch64 (whose port began there, so dlinfo's 2.3.3 is 2.17 too), and the stat family's _STAT_VER
// is 1 on x86_64 and 0 on aarch64 (the generic kernel ABI: __xstat rejects any other with EINVAL).
// scripts/build-wheel-aarch64.sh cross-builds the aarch64 wheel; both binaries end at GLIBC_2.27.
#include <dlfcn.h>
#include <pthread.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include <cstdint>

#if defined(__x86_64__)
#define GS_GLIBC_BASE "GLIBC_2.2.5"
#define GS_GLIBC_DLINFO "GLIBC_2.3.3"
#define GS_STAT_VER 1
#elif defined(__aarch64__)
#define GS_GLIBC_BASE "GLIBC_2.17"
#define GS_GLIBC_DLINFO "GLIBC_2.17"
#define GS_STAT_VER 0
#else
#error "glibc_floor.cpp: no glibc floor for this architecture (x86_64 and aarch64 only)"
#endif

// Binds the local name OLD to SYMBOL's GS_GLIBC_BASE (or other named older) version.
#define GS_OLD_VERSION(old, symbol, version) __asm__(".symver " #old "," #symbol "@" version)

extern "C" {

// --- libdl (GS_GLIBC_BASE; dlinfo GS_GLIBC_DLINFO) -----------------------------------------------
void* gs_old_dlopen(const char*, int);
int gs_old_dlclose(void*);
char* gs_old_dlerror(void);
void* gs_old_dlsym(void*, const char*);
int gs_old_dlinfo(void*, int, void*);
GS_OLD_VERSION(gs_old_dlopen, dlopen, GS_GLIBC_BASE);
GS_OLD_VERSION(gs_old_dlclose, dlclose, GS_GLIBC_BASE);
GS_OLD_VERSION(gs_old_dlerror, dlerror, GS_GLIBC_BASE);
GS_OLD_VERSION(gs_old_dlsym, dlsym, GS_GLIBC_BASE);
GS_OLD_VERSION(gs_old_dlinfo, dlinfo, GS_GLIBC_DLINFO);
void* __wrap_dlopen(const char* file, int mode) { return gs_old_dlopen(file, mode); }
int __wrap_dlclose(void* handle) { return gs_old_dlclose(handle); }
char* __wrap_dlerror(void) { return gs_old_dlerror(); }
void* __wrap_dlsym(void* handle, const char* name) { return gs_old_dlsym(handle, name); }
int __wrap_dlinfo(void* handle, int request, void* arg) { return gs_old_dlinfo(handle, request, arg); }

// --- libpthread (GS_GLIBC_BASE) ------------------------------------------------------------------
int gs_old_pthread_create(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
int gs_old_pthread_detach(pthread_t);
int gs_old_pthread_join(pthread_t, void**);
int gs_old_pthread_key_create(pthread_key_t*, void (*)(void*));
int gs_old_pthread_key_delete(pthread_key_t);
void* gs_old_pthread_getspecific(pthread_key_t);
int gs_old_pthread_setspecific(pthread_key_t, const void*);
int gs_old_pthread_once(pthread_once_t*, void (*)(void));
GS_OLD_VERSION(gs_old_pthread_create, pthread_create, GS_GLIBC_BASE);
GS_OLD_VERSION(gs_old_pthread_detach, pthread_detach, GS_GLIBC_BASE);
GS_OLD_VERSION(gs_old_pthread_join, pthread_join, GS_GLIBC_BASE);
GS_OLD_VERSION(gs_old_pthread_key_create, pthread_key_create, GS_GLIBC_BASE);
GS_OLD_VERSION(gs_old_pthread_key_delete, pthread_key_delete, GS_GLIBC_BASE);
GS_OLD_VERSION(gs_old_pthread_getspecific, pthread_getspecific, GS_GLIBC_BASE);
GS_OLD_VERSION(gs_old_pthread_setspecific, pthread_setspecific, GS_GLIBC_BASE);
GS_OLD_VERSION(gs_old_pthread_once, pthread_once, GS_GLIBC_BASE);
int __wrap_pthread_create(pthread_t* t, const pthread_attr_t* a, void* (*f)(void*), void* arg) {
  return gs_old_pthread_create(t, a, f, arg);
}
int __wrap_pthread_detach(pthread_t t) { return gs_old_pthread_detach(t); }
int __wrap_pthread_join(pthread_t t, void** ret) { return gs_old_pthread_join(t, ret); }
int __wrap_pthread_key_create(pthread_key_t* k, void (*d)(void*)) { return gs_old_pthread_key_create(k, d); }
int __wrap_pthread_key_delete(pthread_key_t k) { return gs_old_pthread_key_delete(k); }
void* __wrap_pthread_getspecific(pthread_key_t k) { return gs_old_pthread_getspecific(k); }
int __wrap_pthread_setspecific(pthread_key_t k, const void* v) { return gs_old_pthread_setspecific(k, v); }
int __wrap_pthread_once(pthread_once_t* o, void (*f)(void)) { return gs_old_pthread_once(o, f); }

// pthread_cond_clockwait (2.30) on a condition variable of the default clock (CLOCK_REALTIME, as
// libstdc++ makes them): the deadline on CLOCKID becomes "now on CLOCK_REALTIME plus what is left".
int __wrap_pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clockid,
                                  const struct timespec* abstime) {
  if (clockid == CLOCK_REALTIME) return pthread_cond_timedwait(cond, mutex, abstime);
  struct timespec now_on_clock, now_real;
  clock_gettime(clockid, &now_on_clock);
  clock_gettime(CLOCK_REALTIME, &now_real);
  int64_t left_ns = (int64_t(abstime->tv_sec) - now_on_clock.tv_sec) * 1000000000 +
                    (abstime->tv_nsec - now_on_clock.tv_nsec);
  if (left_ns < 0) left_ns = 0;
  int64_t deadline_ns = int64_t(now_real.tv_sec) * 1000000000 + now_real.tv_nsec + left_ns;
  struct timespec deadline = {time_t(deadline_ns / 1000000000), long(deadline_ns % 1000000000)};
  return pthread_cond_timedwait(cond, mutex, &deadline);
}

// --- startup ---------------------------------------------------------------------------------------
using main_fn = int (*)(int, char**, char**);
int gs_old_libc_start_main(main_fn, int, char**, void (*)(int, char**, char**), void (*)(void), void (*)(void),
                           void*);
GS_OLD_VERSION(gs_old_libc_start_main, __libc_start_main, GS_GLIBC_BASE);
void _init(void);
extern void (*__init_array_start[])(int, char**, char**) __attribute__((visibility("hidden")));
extern void (*__init_array_end[])(int, char**, char**) __attribute__((visibility("hidden")));

static void gs_run_constructors(int argc, char** argv, char** envp) {
  _init();
  for (auto** f = __init_array_start; f != __init_array_end; ++f) (*f)(argc, argv, envp);
}

int __wrap___libc_start_main(main_fn main, int argc, char** argv, void (*)(void), void (*)(void),
                             void (*rtld_fini)(void), void* stack_end) {
  return gs_old_libc_start_main(main, argc, argv, gs_run_constructors, nullptr, rtld_fini, stack_end);
}

// --- stat family (before 2.33: __xstat and friends with GS_STAT_VER) ---------------------------------
int __xstat(int, const char*, struct stat*);
int __lxstat(int, const char*, struct stat*);
int __fxstat(int, int, struct stat*);
int __wrap_stat(const char* path, struct stat* st) { return __xstat(GS_STAT_VER, path, st); }
int __wrap_lstat(const char* path, struct stat* st) { return __lxstat(GS_STAT_VER, path, st); }
int __wrap_fstat(int fd, struct stat* st) { return __fxstat(GS_STAT_VER, fd, st); }
int __wrap_fstat64(int fd, struct stat* st) { return __fxstat(GS_STAT_VER, fd, st); }

// --- libm (GS_GLIBC_BASE) ----------------------------------------------------------------------------
double gs_old_exp(double);
double gs_old_log2(double);
GS_OLD_VERSION(gs_old_exp, exp, GS_GLIBC_BASE);
GS_OLD_VERSION(gs_old_log2, log2, GS_GLIBC_BASE);
double __wrap_exp(double x) { return gs_old_exp(x); }
double __wrap_log2(double x) { return gs_old_log2(x); }

// --- data and functions newer than 2.28 with no older version --------------------------------------
char __libc_single_threaded = 0;

uint32_t arc4random(void) {
  uint32_t v = 0;
  while (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) {
  }
  return v;
}

}  // extern "C"
