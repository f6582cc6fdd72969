#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build, run `gpustack check`.
# Arguments go to `gpustack check` (e.g. --json, --markdown -o report.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
exec ./build/gpustack check "$@"
