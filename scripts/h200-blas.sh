#!/usr/bin/env bash
# The vendor BLAS at QLoRA shapes on the lent H200 (issue 17): blas.bf16 and blas.fp16 (cuBLASLt,
# torch's copy first) at the GEMMs of one QLoRA step of qwen3.5-0.8b and gemma4-31b, 2048 tokens,
# LoRA ranks 8/16/64, with the clocks they ran at. docs/blas.md.
#   here:   cp build/gpustack DIR/ && scripts/pack-for-device.sh DIR   -> .carry (stripped binary)
#   device: bash scripts/h200-blas.sh [MODEL...]   (carry [".carry"]; default both models)
# One run per model and dtype (gemma4-31b: ~22 s per dtype on a 16-core host, half of it drawing and uploading the seeded inputs).
# Writes $OUT/blas/: <model>-<probe>.json/.txt, clocks.txt.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-/tmp/h200-blas}
dir="$OUT/blas"
mkdir -p "$dir"
. scripts/device-carry.sh  # $GS, its libraries, the carried wheels
echo "== $(date -u +%FT%TZ) $(uname -r)"
nvidia-smi -q -d CLOCK,POWER > "$dir/clocks.txt" 2>&1 || true
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(qwen3.5-0.8b gemma4-31b)
for model in "${models[@]}"; do
  for probe in blas.bf16 blas.fp16; do
    timeout 280 "$GS" probe "$probe" --set model="$model" --set tokens=2048 --no-color --json \
      -o "$dir/$model-$probe.json" 2>&1 | tee "$dir/$model-$probe.txt" | tail -4
  done
done
echo "== done $(date -u +%FT%TZ)"
