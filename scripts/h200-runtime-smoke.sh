#!/usr/bin/env bash
# Smoke test of the cuda backend on a real NVIDIA GPU (the lent H200, CUDA 13, driver 580): the
# device-only runtime tests (CudaDevice.*: NVRTC compile for the device's sm, launch, check every
# element, event timing, a bad kernel name's error, JIT cache hit) plus the NVRTC and open tests.
# The GPU machine has no -dev packages, so the test binary is built here and carried:
#   here:    scripts/h200-runtime-smoke.sh pack [BUILD_DIR] [TEST_BINARY]   -> BUILD_DIR/carry/
#   device:  scripts/h200-runtime-smoke.sh run  [BUILD_DIR]                 (device tool: carry BUILD_DIR/carry)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}
BUILD_DIR=${2:-build-rt}
CARRY="$BUILD_DIR/carry"
FILTER='CudaDevice.*:NvrtcCompile.*:NvrtcLoad.*:RuntimeOpen.*:KernelSource.*:CodeObject.*'

case "$mode" in
  pack)
    BIN=${3:-$BUILD_DIR/tests/gpustack_tests}
    rm -rf "$CARRY" && mkdir -p "$CARRY/bin" "$CARRY/lib"
    cp "$BIN" "$CARRY/bin/gpustack_tests"
    # Everything ldd resolves except glibc and the C++ runtime, which the device has (newer).
    ldd "$BIN" | awk '/=> \//{print $3}' |
      grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux|libpthread|libdl|librt)\.so' |
      while read -r lib; do cp -L "$lib" "$CARRY/lib/"; done
    du -sh "$CARRY"
    ;;
  run)
    out=${OUT:-/tmp}
    {
      echo "== $(date -u +%FT%TZ) $(uname -r)"
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv || true
      echo "== libcuda / NVRTC the loader sees"
      ldconfig -p | grep -E 'libcuda\.so|libnvrtc' || true
      ls /usr/local/cuda/lib64 2>/dev/null | grep -E '^libnvrtc' || true
      echo "== tests"
    } 2>&1 | tee "$out/runtime-smoke.log"
    set -o pipefail
    LD_LIBRARY_PATH="$CARRY/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" GPUSTACK_CACHE_DIR=/tmp/gs-jit-smoke \
      "$CARRY/bin/gpustack_tests" --gtest_filter="$FILTER" --gtest_color=no 2>&1 | tee -a "$out/runtime-smoke.log"
    ;;
  *)
    echo "usage: $0 pack|run [BUILD_DIR] [TEST_BINARY]" >&2
    exit 2
    ;;
esac
