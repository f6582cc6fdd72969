#!/usr/bin/env bash
# The pip/uv wheel for aarch64 Linux, cross-compiled on a Debian 12 x86_64 host: the same portable
# binary as scripts/build-wheel.sh (-DGPUSTACK_PORTABLE=ON: every library but glibc linked in, the
# glibc floor of wheel/native/glibc_floor.cpp) built by Debian's aarch64-linux-gnu GCC 12 through
# cmake/aarch64-linux-gnu.cmake into build-wheel-aarch64/, packed by scripts/make_wheel.py (which runs
# the binary for its version under qemu-aarch64). Installs its toolchain first
# (scripts/install-deps-aarch64.sh, as root). Writes dist/gpustack-VERSION-py3-none-manylinux_X_Y_aarch64.whl.
# Not part of CI; docs/python.md says how the wheel is checked (auditwheel show, the binary under qemu).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps-aarch64.sh
bash scripts/build-release.sh build-wheel-aarch64 -DGPUSTACK_PORTABLE=ON \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake"
python3 scripts/make_wheel.py build-wheel-aarch64/gpustack dist
