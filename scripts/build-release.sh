#!/usr/bin/env bash
# Install what building needs and build the gpustack binary alone into build-release/gpustack
# (optimised, stripped, one progress line; the compiler's output only if it fails). Used by
# scripts/check.sh (the README's first command) and by the GitHub Action (action.yml). Builds into
# build-release/ (scripts/test.sh builds the test configurations into build/ and build-asan/), so
# the two never rebuild each other's objects. Exit 2 when the build fails.
#   build-release.sh [DIR [CMAKE-ARGS...]]   another build directory and options (scripts/build-wheel.sh:
#                                            build-wheel -DGPUSTACK_PORTABLE=ON; build-wheel-aarch64.sh
#                                            adds -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake)
#   GPUSTACK_JOBS=N build-release.sh ...     ninja -j N (default: ninja's own, cores + 1 or 2)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-release}
shift || true
start=$SECONDS
bash scripts/install-deps.sh
# Unity batches of 8, as CI builds them (so CI has compiled these very batches): the core's ~200
# sources parse json/fmt/toml++/CLI11 about 25 times instead of 200; no tests, no benchmarks, no
# debug info, stripped (a few MB, not 150).
log=$out/build.log
mkdir -p "$out"
if ! cmake -S . -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUSTACK_BUILD_TESTS=OFF \
     -DGPUSTACK_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 "$@" >"$log" 2>&1; then
  cat "$log" >&2
  echo "gpustack: configuring failed (above)" >&2
  exit 2
fi
echo "gpustack: building the binary (a few minutes on 2 cores; the log is $log)" >&2
# ninja's "[n/m] ..." lines become one line that updates in place (a plain line each on a pipe).
set +e
NINJA_STATUS="[%f/%t] " ninja -C "$out" ${GPUSTACK_JOBS:+-j "$GPUSTACK_JOBS"} gpustack 2>&1 | tee -a "$log" | while IFS= read -r line; do
  case "$line" in
    \[*/*\]*) if [ -t 2 ]; then printf '\r\033[Kgpustack: building %s' "${line%% *}" >&2; fi ;;
  esac
done
rc=${PIPESTATUS[0]}
set -e
[ -t 2 ] && printf '\r\033[K' >&2
if [ "$rc" -ne 0 ]; then
  grep -v -e '^\[[0-9]*/[0-9]*\]' -e '^-- ' "$log" | tail -60 >&2
  echo "gpustack: the build failed (the compiler's words above; all of it in $log)" >&2
  exit 2
fi
# the toolchain's strip (aarch64-linux-gnu-strip for scripts/build-wheel-aarch64.sh's cross build)
strip_tool=$(sed -n 's/^CMAKE_STRIP:FILEPATH=//p' "$out/CMakeCache.txt")
"${strip_tool:-strip}" "$out/gpustack"
echo "gpustack: built in $((SECONDS - start)) s ($(du -h "$out/gpustack" | cut -f1) binary: $out/gpustack)" >&2
