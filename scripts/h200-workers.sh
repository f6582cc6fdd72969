#!/usr/bin/env bash
# Warm Python workers on the lent H200 (issue 16): the default suite, probe fla and train-smoke,
# each in the warm-worker mode and with --fresh (one interpreter per step, as before), timed.
#   here:   cp build/gpustack DIR/ && scripts/pack-for-device.sh DIR   -> .carry (stripped binary)
#           scripts/fetch-wheels.sh -> .whl (bitsandbytes, trl, ...); scripts/fetch-fla.sh -> .fla
#   device: bash scripts/h200-workers.sh suite|fla     (carry [".carry", ".whl", ".fla"])
# suite: the default suite three times: warm workers on empty Triton/gpustack caches ("cold"), the
#        same again ("warm"), then --fresh; then train-smoke (qwen3.5-0.8b, 4 layers) warm and --fresh.
# fla:   probe fla --backends native,triton,fla --stages 1..4 at the H16 HV16 K=V=128 B2 T4096 shape:
#        warm workers on empty caches, again, then --fresh.
# Writes $OUT/workers/: the reports, the log, a summary of each run's timing.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
part=${1:-suite}
OUT=${OUT:-/tmp/h200-workers}
dir="$OUT/workers"
mkdir -p "$dir"
exec > >(tee -a "$dir/h200-workers-$part.log") 2>&1
. scripts/device-carry.sh  # $GS, its libraries, the carried wheels
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
echo "== $(date -u +%FT%TZ) $(uname -r) part $part"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

PY=$(command -v python3)
echo "python: $PY"

summary() {  # report, label, wall, rc
  "$PY" - "$@" <<'PYEOF'
import json, sys
path, label, wall, rc = sys.argv[1:5]
try:
    r = json.load(open(path))
except Exception as e:
    print("%s: no report (%s)" % (label, e)); sys.exit(0)
counts = {}
for p in r.get("probes", []):
    counts[p["status"]] = counts.get(p["status"], 0) + 1
print("%s: %s s wall, exit %s, %s; run %s" % (label, wall, rc, ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())),
                                               json.dumps(r.get("run"))))
for p in r.get("probes", []):
    d = p.get("data") or {}
    w = d.get("worker") or {}
    print("  %-22s %-5s %7.1f s  import %5s  run %5s  %-7s %s" % (p["id"], p["status"], p.get("duration_ms", 0) / 1000,
          d.get("import_s", "-"), d.get("run_s", "-"), w.get("mode", ""), p.get("detail", "")[:90]))
PYEOF
}

run() {  # label, then the gpustack arguments
  local label=$1; shift
  local t0; t0=$(now)
  timeout 540 "$GS" "$@" --json -o "$dir/$label.json"
  local rc=$?
  local took; took=$(secs "$t0" "$(now)")
  echo "== $label: exit $rc in $took s"
  summary "$dir/$label.json" "$label" "$took" "$rc" | tee -a "$dir/summary-$part.txt"
}

export TRITON_CACHE_DIR=/tmp/gs-w-triton GPUSTACK_CACHE_DIR=/tmp/gs-w-jit GPUSTACK_STATE_DIR=/tmp/gs-w-state
rm -rf "$TRITON_CACHE_DIR" "$GPUSTACK_CACHE_DIR" "$GPUSTACK_STATE_DIR"
mkdir -p /tmp/gs-w-vectors

if [ "$part" = suite ]; then
  run suite-warm-cold probe --python "$PY" --no-matrix
  run suite-warm probe --python "$PY" --no-matrix
  run suite-fresh probe --python "$PY" --no-matrix --fresh
  [ "${GS_SKIP_TRAIN:-0}" = 1 ] && { echo "== done $(date -u +%FT%TZ)"; exit 0; }
  TRAIN="train-smoke --model qwen3.5-0.8b --layers 4 --seq 512 --steps 5 --python $PY --no-matrix"
  # shellcheck disable=SC2086
  run train-warm $TRAIN
  # shellcheck disable=SC2086
  run train-fresh $TRAIN --fresh
elif [ "$part" = fla ]; then
  export FLA_DISABLE_BACKEND_DISPATCH=1
  export PYTHONPATH="$PWD/.fla:$PYTHONPATH"
  SHAPE="--batch 2 --seq 4096 --heads 16 --value-heads 16 --head-dim-k 128 --head-dim-v 128"
  # shellcheck disable=SC2086
  run fla-warm-cold probe fla --backends native,triton,fla --stages 1..4 $SHAPE --python "$PY" --no-matrix
  # shellcheck disable=SC2086
  run fla-warm probe fla --backends native,triton,fla --stages 1..4 $SHAPE --python "$PY" --no-matrix
  # GS_SKIP_FRESH=1: the warm runs alone (a re-measurement after a change to the warm path).
  # shellcheck disable=SC2086
  [ "${GS_SKIP_FRESH:-0}" = 1 ] ||
    run fla-fresh probe fla --backends native,triton,fla --stages 1..4 $SHAPE --python "$PY" --no-matrix --fresh
else
  echo "part: suite or fla"; exit 2
fi
echo "== done $(date -u +%FT%TZ)"
