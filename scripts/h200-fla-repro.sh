#!/usr/bin/env bash
# Issue 15 on the lent H200, in device calls of at most 10 minutes each.
#   bash scripts/h200-fla-repro.sh repro   the triton backend at num_stages 1..4 with --sanitize and
#                                           --emit-repro (Triton 3.6.0 failed at 1 alone there on
#                                           2026-12-03), every reproducer run standalone with the
#                                           venv's Python (no gpustack)
#   bash scripts/h200-fla-repro.sh train   train-smoke on both linear-attention paths (torch
#                                           fallback, then FLA importable)
#   bash scripts/h200-fla-repro.sh whole   the whole probe fla: native, triton, fla at 1..4 with
#                                           --backward, timed
#   bash scripts/h200-fla-repro.sh native  the native control v2 (matrix unit, cp.async) at 1..4, v1 at
#                                           2, and FLA's forward at 2 (its peer, same run, same shape),
#                                           then compute-sanitizer memcheck and racecheck on v2 at 1 and 4
# Before (here): a release build packed into .carry (scripts/pack-for-device.sh BUILD_DIR),
# .fla (scripts/fetch-fla.sh), .whl (scripts/fetch-wheels.sh). Carry [".carry", ".fla", ".whl"].
# Writes $OUT/fla15/: the reports, the reproducers, their standalone output, the logs.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
part=${1:-repro}
OUT=${OUT:-/tmp/h200-fla-repro}
dir="$OUT/fla15"
mkdir -p "$dir"
exec > >(tee -a "$dir/h200-fla-$part.log") 2>&1
export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPUSTACK_CACHE_DIR=/tmp/gs-jit-fla GPUSTACK_STATE_DIR=/tmp/gs-state-fla
export GPUSTACK_TRANSCRIPT_DIR="$dir/transcripts-$part"
export FLA_DISABLE_BACKEND_DISPATCH=1  # FLA's Triton path only: the depths under test
export PYTHONPATH="$PWD/.fla${PYTHONPATH:+:$PYTHONPATH}"
REPO=$PWD
GS=$REPO/.carry/bin/gpustack
PY=${PY:-/opt/torch/.venv/bin/python3}
SHAPE="--batch 2 --seq 4096 --heads 16 --value-heads 16 --head-dim-k 128 --head-dim-v 128"
echo "== $(date -u +%FT%TZ) $(uname -r) part $part"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
"$PY" -c 'import torch, triton, fla; print("torch", torch.__version__, "triton", triton.__version__, "fla", fla.__version__)' || true
export PATH="$PATH:/usr/local/cuda/bin"
command -v compute-sanitizer || echo "compute-sanitizer: not on PATH"

if [ "$part" = repro ]; then
  t0=$SECONDS
  "$GS" probe fla --backends triton --stages 1..4 $SHAPE --python "$PY" --sanitize --emit-repro "$dir/repro" \
    --json -o "$dir/fla-sanitize.json"
  echo "probe fla --sanitize --emit-repro: rc=$? in $((SECONDS - t0)) s"
  for f in "$dir"/repro/*.py; do
    [ -e "$f" ] || { echo "no reproducer written"; break; }
    t0=$SECONDS
    (cd /tmp && env -u PYTHONPATH -u LD_LIBRARY_PATH PYTHONPATH="$REPO/.fla" "$PY" "$f") > "$f.out" 2>&1
    rc=$?  # before any other command: $(...) below would reset $?
    echo "standalone ${f##*/}: exit $rc in $((SECONDS - t0)) s (1: reproduced, 0: passed, 3: missing torch/triton)"
    tail -5 "$f.out"
  done
elif [ "$part" = train ]; then
  # The torch fallback first (FLA not importable: PYTHONPATH without .fla), then FLA's path
  # (h200-train.sh puts .fla on PYTHONPATH for its l4-fla run).
  t0=$SECONDS
  PYTHONPATH= OUT="$dir" GS_TRAIN_ONLY_L4=1 GS_TRAIN_FLA_BUDGET_S=300 bash scripts/h200-train.sh
  echo "train-smoke both paths: rc=$? in $((SECONDS - t0)) s"
elif [ "$part" = whole ]; then
  t0=$SECONDS
  timeout 560 "$GS" probe fla --backends native,triton,fla --stages 1..4 --backward $SHAPE --python "$PY" \
    --json -o "$dir/fla-whole.json"
  echo "probe fla whole: rc=$? in $((SECONDS - t0)) s"
elif [ "$part" = native ]; then
  t0=$SECONDS
  "$GS" probe fla --backends native --stages 1..4 $SHAPE --json -o "$dir/native-v2.json"
  echo "native v2 1..4: rc=$? in $((SECONDS - t0)) s"
  "$GS" probe fla --backends native --native-kernel v1 --stages 2 $SHAPE --json -o "$dir/native-v1.json"
  echo "native v1 at 2: rc=$?"
  t0=$SECONDS
  timeout 300 "$GS" probe fla --backends fla --stages 2 $SHAPE --python "$PY" --json -o "$dir/fla-peer.json"
  echo "fla peer at 2: rc=$? in $((SECONDS - t0)) s"
  # The sanitizer over the native kernels themselves (a short sequence keeps it to seconds).
  for tool in memcheck racecheck; do
    for st in 1 4; do
      timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$GS" probe fla --backends native --stages $st \
        --batch 1 --seq 200 --heads 2 --value-heads 4 --head-dim-k 128 --head-dim-v 32 --json -o "$dir/native-$tool-$st.json" \
        > "$dir/native-$tool-$st.log" 2>&1
      echo "compute-sanitizer $tool depth $st: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$dir/native-$tool-$st.log" | tail -1)"
    done
  done
else
  echo "part: repro, train, whole or native"; exit 2
fi
