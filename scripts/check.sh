#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what building needs, build the gpustack
# binary (scripts/build-release.sh), then run `gpustack check`. Arguments go to `gpustack check`
# (e.g. --json, --markdown -o report.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-release.sh
exec ./build-release/gpustack check "$@"
