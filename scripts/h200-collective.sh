#!/usr/bin/env bash
# `gpustack probe collective` on a lent machine (issue 20): on the single H200 the one-rank nccl
# path through torchrun and the gloo path beside it (p2p says skip: one GPU); on a multi-GPU kind
# every GPU, 4 KiB to 1 GiB, the P2P matrix, and nccl-tests' all_reduce_perf for the same sizes
# when the machine has it, so the bus bandwidth reads against nccl-tests' own in one run; then the
# topology `check` reads (NUMA, IOMMU, ACS as root) beside `nvidia-smi topo -m`.
#   here:   cp build/gpustack DIR/ && scripts/pack-for-device.sh DIR   -> .carry (stripped binary)
#           scripts/fetch-wheels.sh -> .whl (torch with NCCL, if the machine's Python lacks it)
#   device: bash scripts/h200-collective.sh     (carry [".carry", ".whl"])
# Writes $OUT/collective/: nccl.json/.txt, gloo.json/.txt, check.json, topo.txt, nccl-tests.txt.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-/tmp/h200-collective}
dir="$OUT/collective"
mkdir -p "$dir"
. scripts/device-carry.sh  # $GS, its libraries, the carried wheels
PY=$(command -v python3)
echo "== $(date -u +%FT%TZ) $(uname -r) $(nvidia-smi -L | wc -l) GPU(s)"
nvidia-smi topo -m > "$dir/topo.txt" 2>&1 || true
"$GS" check --json -o "$dir/check.json"; echo "check: exit $?"
timeout 420 "$GS" probe collective --python "$PY" --no-matrix --no-color --json -o "$dir/nccl.json" 2>&1 | tee "$dir/nccl.txt" | tail -12
timeout 120 "$GS" probe collective --python "$PY" --backend gloo --nproc 4 --max-size 16M --ops all_reduce,all_gather,broadcast \
  --no-matrix --no-color --json -o "$dir/gloo.json" 2>&1 | tee "$dir/gloo.txt" | tail -6
if command -v all_reduce_perf >/dev/null 2>&1; then
  n=$(nvidia-smi -L | wc -l)
  timeout 300 all_reduce_perf -b 4K -e 1G -f 4 -g "$n" > "$dir/nccl-tests.txt" 2>&1 || true
fi
echo "== done $(date -u +%FT%TZ)"
