# Cross-compiling gpustack for aarch64 Linux on a Debian 12 x86_64 host (scripts/build-wheel-aarch64.sh):
# Debian's GCC 12 cross compiler and its multiarch layout, no sysroot. The arm64 libraries the
# portable build links are Debian packages installed as :arm64 into /usr/lib/aarch64-linux-gnu
# (scripts/install-deps-aarch64.sh), except yaml-cpp, unpacked into GPUSTACK_AARCH64_PREFIX
# (/opt/gpustack-aarch64) because its -dev package cannot sit beside the host's. Header-only
# libraries come from /usr/include, which the cross compiler searches after its own directories.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# qemu-user runs what the build makes (nothing during the build itself) with libc6:arm64's glibc;
# not with -L /usr/aarch64-linux-gnu, whose ld.so is another glibc build (scripts/make_wheel.py's runner)
find_program(GPUSTACK_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(GPUSTACK_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${GPUSTACK_QEMU_AARCH64})
endif()

if(DEFINED ENV{GPUSTACK_AARCH64_PREFIX})
  set(GPUSTACK_AARCH64_PREFIX $ENV{GPUSTACK_AARCH64_PREFIX})
else()
  set(GPUSTACK_AARCH64_PREFIX /opt/gpustack-aarch64)
endif()
# Searched first; /usr then finds the :arm64 packages under lib/aarch64-linux-gnu and the
# architecture-independent CMake packages (nlohmann_json, CLI11) under share/cmake.
list(PREPEND CMAKE_PREFIX_PATH ${GPUSTACK_AARCH64_PREFIX}/usr)
# Libraries only from the target's directories: never the host's /usr/lib/x86_64-linux-gnu.
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/cmake)
# pkg-config (libzstd, libelf) reads the arm64 .pc files
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
