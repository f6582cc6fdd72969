#!/usr/bin/env bash
# Matrix-core GEMM on the lent H200 (issue 17): gemm.mma.bf16 / gemm.mma.fp16 / gemm.mma.fp8 beside the CUDA-core
# control gemm.bf16 and torch.matmul (its cuBLAS) at 4096^3 in the same run, the clocks they ran
# at, torch._scaled_mm (cuBLASLt fp8) beside gemm.mma.fp8, and compute-sanitizer's memcheck and racecheck
# over the mma kernel at a small size.
#   here:   cp build/gpustack DIR/ && scripts/pack-for-device.sh DIR   -> .carry (stripped binary)
#   device: bash scripts/h200-matrix-gemm.sh     (carry [".carry"])
# Writes $OUT/gemm/: probes.json/.txt, peer.jsonl, sanitizer-*.txt (sanitizer-fp8-* for gemm.mma.fp8), clocks.txt.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-/tmp/h200-gemm}
dir="$OUT/gemm"
mkdir -p "$dir"
. scripts/device-carry.sh  # $GS, its libraries, the carried wheels
PY=$(command -v python3)
echo "== $(date -u +%FT%TZ) $(uname -r)"
nvidia-smi -q -d CLOCK,POWER > "$dir/clocks.txt" 2>&1 || true
timeout 300 "$GS" probe gemm.mma.bf16 gemm.mma.fp16 gemm.mma.fp8 gemm.bf16 --set iters=20 --no-color --json -o "$dir/probes.json" 2>&1 |
  tee "$dir/probes.txt" | tail -12
timeout 120 "$PY" scripts/peer_matmul.py 4096 20 2>&1 | tee "$dir/peer.jsonl"
SAN=/usr/local/cuda/bin/compute-sanitizer
if [ -x "$SAN" ]; then
  for tool in memcheck racecheck; do
    timeout 150 "$SAN" --tool "$tool" --target-processes all "$GS" probe gemm.mma.bf16 --set size=512 --set iters=1 --no-color \
      > "$dir/sanitizer-$tool.txt" 2>&1
    echo "compute-sanitizer $tool: exit $? ($(grep -c 'ERROR SUMMARY: 0 errors' "$dir/sanitizer-$tool.txt") clean summaries)"
    # The fp8 entry's uint8 tensor maps and 128-k tiles, at a size that keeps it short.
    timeout 150 "$SAN" --tool "$tool" --target-processes all "$GS" probe gemm.mma.fp8 --set size=256 --set iters=1 --no-color \
      > "$dir/sanitizer-fp8-$tool.txt" 2>&1
    echo "compute-sanitizer $tool fp8: exit $? ($(grep -c 'ERROR SUMMARY: 0 errors' "$dir/sanitizer-fp8-$tool.txt") clean summaries)"
  done
fi
echo "== done $(date -u +%FT%TZ)"
