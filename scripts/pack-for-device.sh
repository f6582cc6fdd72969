#!/usr/bin/env bash
# Copy a built gpustack (and the test binaries) plus the non-glibc shared libraries they need
# into .carry/ so they run on a machine that has none of Debian's -dev packages (the lent H200
# runs Ubuntu 24.04 with nothing installable). Usage: scripts/pack-for-device.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
rm -rf .carry && mkdir -p .carry/bin .carry/lib
for b in "$BUILD_DIR"/gpustack "$BUILD_DIR"/tests/gpustack_gpu_tests "$BUILD_DIR"/tests/gpustack_tests \
         "$BUILD_DIR"/bench/gpustack_bench; do
  [ -x "$b" ] && cp "$b" .carry/bin/
done
# Libraries glibc-based systems do not all have: everything ldd resolves except libc/libm/libstdc++/ld.so.
for b in .carry/bin/*; do
  ldd "$b" | awk '/=> \//{print $3}' | grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux|libpthread|libdl|librt)\.so' || true
done | sort -u | while read -r lib; do cp -L "$lib" .carry/lib/; done
strip .carry/bin/* 2>/dev/null || true  # debug info makes gpustack ~93 MB, over the 64 MiB carry limit
du -sh .carry
