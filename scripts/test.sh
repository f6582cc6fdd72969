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
bash scripts/install-deps.sh --test

# Line tables only (-g1 / -gline-tables-only): backtraces keep their file:line, and the builds
# take about 40 % less time than with full debug info (knowledge_base.cpp: 6.7 s -> 4.1 s).
# Unity builds (16 sources per compile): nearly every source parses nlohmann/json (1.4 s a
# compile), toml++ (1.3 s), fmt, gtest or CLI11 (4.2 s), so about 300 compiles become about 35
# and the headers are parsed once per batch (8 a batch: 60 compiles, 710 CPU-seconds for the g++
# build in the CI run of fec851f; 16 a batch: gpustack_core's 358 -> ~300 CPU-s). They
# also fail on two file-local helpers of the same name in one batch: a copy that should have
# one home (src/core/text_scan.h, tests/support/files.h) cannot land unnoticed.
UNITY=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16)
# -DGPUSTACK_PORTABLE=ON: the binary the pip wheel carries (every library but glibc linked in), so the
# wheel test (tests/cli/wheel_test.cpp) packs and installs the very binary these tests ran.
begin_phase "build (g++, RelWithDebInfo)"
BUILD_DIR=build bash scripts/build.sh -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DGPUSTACK_PORTABLE=ON "${UNITY[@]}"
# CI sets GPUSTACK_EXPECTED_SKIPS (.ci/run): there a test that skips for a missing tool fails
# the run instead, unless the list names it (no GPU, no Vulkan loader).
check_skips() {
  if [ -n "${GPUSTACK_EXPECTED_SKIPS:-}" ]; then python3 scripts/check-skips.py "$1" "$GPUSTACK_EXPECTED_SKIPS"; fi
}
begin_phase "unit tests"
(cd build && ctest -LE gpu --output-on-failure -j"$(nproc)" --output-junit ctest-junit.xml)
check_skips build/ctest-junit.xml

# One clang build serves both the sanitizer run and the fuzz run: every object under ASan+UBSan
# and libFuzzer's coverage instrumentation, the fuzz targets linked with libFuzzer's main.
# -O1, as ASan's own docs advise: at -O0 the sanitized suite took 471 s on 2 cores, one test
# (RegexAnchors over the corpus, std::regex templates) 293 s of it; at -O1 the whole phase takes
# about 210 s with a corpus 1.7 times larger, and the build costs about the same.
begin_phase "build (clang, ASan + UBSan + fuzzing)"
BUILD_DIR=build-asan CC=clang CXX=clang++ bash scripts/build.sh -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" -DGPUSTACK_FUZZ=ON -DGPUSTACK_BUILD_BENCH=OFF "${UNITY[@]}"
begin_phase "unit tests under ASan + UBSan"
# The real-Vulkan-loader test is left out here (it runs in the plain build above): Mesa's ICDs
# leak inside themselves once loaded, which LeakSanitizer reports from a dlclose'd module.
# A 32 MiB stack: libstdc++'s std::regex recurses once per input character, and with
# ASan's redzones (measured at -O0; the margin stays at -O1) a 4 KiB hostile line (BuiltinRules.HostileValuesEverywhereNeverCrash) needs
# more than the default 8 MiB; the plain run above checks the same line with the default.
# intercept_tls_get_addr=0: up to LLVM 16 the runtime's __tls_get_addr interceptor takes a
# dynamic TLS block that happens to start 16 bytes into a page for a pre-2.25 glibc header and
# reads garbage bounds from it, and LeakSanitizer's tracer then segfaults at exit ("Tracer caught
# signal 11") after the test passed. comgr (LLVM, much thread_local) hits it: the CI run on
# d9e6315 failed so with ComgrCompile's body green. Mudlet/Mudlet#9930 traced the mechanism.
# The sixteen regex-anchor shards (every knowledge-base pattern against every corpus line, about
# 40 million std::regex searches) are left out here too: they check data, not memory, the plain
# run above runs them all, and under ASan they took 400 CPU-seconds (200 s of the phase's 450 on
# 2 cores, CI run of 536dd2f). RegexAnchors.Shapes still runs the same code under ASan.
# ProbeCollective.ASlowTeardown... times the Python launcher's teardown allowance (a rank lingering 5 s):
# no C++ of its own beyond the launcher the other ProbeCollective tests run under ASan.
# ClangGfx.* and NvrtcCompile.MatrixKernels... run clang-19 / NVRTC+ptxas over every kernel (each
# ClangGfx test rebuilds all 44 gfx code objects in its own process, ~20 s a test): compilers, not
# our C++; the parsers they use run under ASan in ClangGfxParse.* and the other NvrtcCompile tests.
# They took ~100 CPU-seconds of this phase in the CI run of 90080ce (26 min 24 s in all).
# For the same reason the tests that compile every kernel (or every FLA depth) with comgr or
# NVRTC are left out here: ComgrCompile.EveryKernel*, GdnCompile/GdnV2Compile.EveryDepth*,
# GdnV2Compile.MatrixInstructions*, NvrtcCompile.EveryKernel*: ~200 s of the phase in the CI run
# of 503ce41, nearly all inside the vendor compilers; the smaller ComgrCompile and NvrtcCompile
# tests keep gpustack's compile path (options, logs, errors) under ASan. Corpus.NoFixHasAHole runs
# the same explain pipeline over the same corpus as Corpus.PositiveCasesNameTheirCause (kept here)
# and checks text, not memory: ~60 s of the phase.
(cd build-asan && ulimit -s 32768 && ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest -LE gpu -E 'Vulkan.TheRealLoaderWhenThisMachineHasOne|RegexAnchorShard|ProbeCollective.ASlowTeardown|ClangGfx\.|NvrtcCompile.MatrixKernels|NvrtcCompile.EveryKernel|ComgrCompile.EveryKernel|GdnCompile.EveryDepth|GdnV2Compile.EveryDepth|GdnV2Compile.MatrixInstructions|Corpus.NoFixHasAHole' --output-on-failure -j"$(nproc)" --output-junit ctest-junit.xml)
check_skips build-asan/ctest-junit.xml

begin_phase "libFuzzer smoke (${FUZZ_SECONDS:-20} s per target)"
bash scripts/fuzz.sh build-asan "${FUZZ_SECONDS:-20}"
end_phase
