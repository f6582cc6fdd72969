#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, and run the whole
# test suite: unit tests, the same suite under ASan+UBSan, and a bounded libFuzzer run of every
# parser target. No GPU needed (GPU tests carry the CTest label `gpu` and are left out).
# Ends with a table of how long each phase took (CI's budget is 25 minutes of its 90).
set -euo pipefail
cd "$(dirname "$0")/.."

phases=()
phase_start=$SECONDS
phase_name=""
begin_phase() {
  end_phase
  phase_name=$1
  phase_start=$SECONDS
  echo "== $1"
}
end_phase() {
  if [ -n "$phase_name" ]; then phases+=("$(printf '%-44s %4d s' "$phase_name" $((SECONDS - phase_start)))"); fi
  phase_name=""
}
print_phases() {
  local rc=$?
  end_phase
  echo "== phase times (total $((SECONDS / 60)) min $((SECONDS % 60)) s, exit $rc)"
  for p in "${phases[@]}"; do echo "  $p"; done
}
trap print_phases EXIT

begin_phase "install dependencies"
bash scripts/install-deps.sh

begin_phase "build (RelWithDebInfo)"
BUILD_DIR=build bash scripts/build.sh
begin_phase "unit tests"
(cd build && ctest -LE gpu --output-on-failure -j"$(nproc)")

begin_phase "build under ASan + UBSan"
BUILD_DIR=build-asan bash scripts/build.sh -DCMAKE_BUILD_TYPE=Debug -DGPUSTACK_SANITIZE=ON -DGPUSTACK_BUILD_BENCH=OFF
begin_phase "unit tests under ASan + UBSan"
# The real-Vulkan-loader test is left out here (it runs in the plain build above): Mesa's ICDs
# leak inside themselves once loaded, which LeakSanitizer reports from a dlclose'd module.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest -LE gpu -E 'Vulkan.TheRealLoaderWhenThisMachineHasOne' --output-on-failure -j"$(nproc)")

begin_phase "build libFuzzer targets"
BUILD_DIR=build-fuzz CC=clang CXX=clang++ bash scripts/build.sh -DCMAKE_BUILD_TYPE=Debug \
  -DGPUSTACK_FUZZ=ON -DGPUSTACK_BUILD_TESTS=OFF -DGPUSTACK_BUILD_BENCH=OFF
begin_phase "libFuzzer smoke (${FUZZ_SECONDS:-20} s per target)"
bash scripts/fuzz.sh build-fuzz "${FUZZ_SECONDS:-20}"
end_phase
