#!/usr/bin/env bash
# The GPU test binary (tests/gpu/: each GPU kernel against its CPU reference on the real device)
# on the lent H200, from .carry (scripts/pack-for-device.sh). Writes $OUT/gpu-tests.xml and .log.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/h200-gpu-tests}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPUSTACK_CACHE_DIR=/tmp/gs-gpu-tests-jit
t=.carry/bin/gpustack_gpu_tests
[ -x "$t" ] || { echo "no $t (build the gpustack_gpu_tests target before packing)"; exit 2; }
"$t" --gtest_output="xml:$out/gpu-tests.xml" 2>&1 | tee "$out/gpu-tests.log"
exit "${PIPESTATUS[0]}"
