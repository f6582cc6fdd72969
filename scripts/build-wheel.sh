#!/usr/bin/env bash
# The pip/uv wheel: the binary built with every library but glibc linked in (build-wheel/,
# -DGPUSTACK_PORTABLE=ON), packed with the Python package of wheel/ by scripts/make_wheel.py, which
# reads the manylinux tag off the binary. Writes dist/gpustack-VERSION-py3-none-manylinux_X_Y_ARCH.whl.
#   pip install dist/gpustack-*.whl   (or: uv tool install dist/gpustack-*.whl; pipx install ...)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-release.sh build-wheel -DGPUSTACK_PORTABLE=ON
python3 scripts/make_wheel.py build-wheel/gpustack dist
