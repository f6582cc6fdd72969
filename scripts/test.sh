#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, and run the whole
# test suite: unit tests, the same suite under ASan+UBSan, and a bounded libFuzzer run of every
# parser target. No GPU needed (GPU tests carry the CTest label `gpu` and are left out).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

echo "== build and test (RelWithDebInfo)"
BUILD_DIR=build bash scripts/build.sh
(cd build && ctest -LE gpu --output-on-failure -j"$(nproc)")

echo "== build and test under ASan + UBSan"
BUILD_DIR=build-asan bash scripts/build.sh -DCMAKE_BUILD_TYPE=Debug -DGPUSTACK_SANITIZE=ON -DGPUSTACK_BUILD_BENCH=OFF
# The real-Vulkan-loader test is left out here (it runs in the plain build above): Mesa's ICDs
# leak inside themselves once loaded, which LeakSanitizer reports from a dlclose'd module.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest -LE gpu -E 'Vulkan.TheRealLoaderWhenThisMachineHasOne' --output-on-failure -j"$(nproc)")

echo "== libFuzzer smoke (${FUZZ_SECONDS:-20} s per target)"
BUILD_DIR=build-fuzz CC=clang CXX=clang++ bash scripts/build.sh -DCMAKE_BUILD_TYPE=Debug \
  -DGPUSTACK_FUZZ=ON -DGPUSTACK_BUILD_TESTS=OFF -DGPUSTACK_BUILD_BENCH=OFF
bash scripts/fuzz.sh build-fuzz "${FUZZ_SECONDS:-20}"
