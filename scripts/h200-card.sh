#!/usr/bin/env bash
# The card's own state on the lent H200 (issue 18): NVML figures in `check` (terminal and JSON)
# and the sampler's clocks, power, temperature and utilisation beside every GPU step of the
# default suite, with nvidia-smi's view of the same card for comparison.
#   here:   cp build/gpustack DIR/ && scripts/pack-for-device.sh DIR   -> .carry (stripped binary)
#           scripts/fetch-wheels.sh -> .whl
#   device: bash scripts/h200-card.sh     (carry [".carry", ".whl"])
# Writes $OUT/card/: check.txt, check.json, suite.json, suite.txt, nvidia-smi-q.txt.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-/tmp/h200-card}
dir="$OUT/card"
mkdir -p "$dir"
. scripts/device-carry.sh  # $GS, its libraries, the carried wheels
PY=$(command -v python3)
echo "== $(date -u +%FT%TZ) $(uname -r)"
nvidia-smi -q -d CLOCK,POWER,TEMPERATURE,PERFORMANCE,ECC > "$dir/nvidia-smi-q.txt" 2>&1 || true
"$GS" check --no-color > "$dir/check.txt" 2>&1; echo "check: exit $?"
"$GS" check --json -o "$dir/check.json"; echo "check --json: exit $?"
timeout 300 "$GS" probe --python "$PY" --no-matrix --no-color --json -o "$dir/suite.json" 2>&1 | tee "$dir/suite.txt" | tail -40
echo "== done $(date -u +%FT%TZ)"
