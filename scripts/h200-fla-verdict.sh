#!/usr/bin/env bash
# Issue 15, item 1 on the lent H200: the verdict of `probe fla` from the pattern of depths.
# One invocation with all three backends at num_stages 1 and 2 (Triton 3.6.0 failed at 1 alone
# there on 2026-12-03 and passed at 2..4): the verdict must say "avoid num_stages 1", never
# "highest safe none", and, because the fla backend's default run records the depths FLA's own
# autotuner compiles with on sm_90, whether the user's FLA training is hit at all. Then
# `estimate --json -o` (it failed there for lack of -o). About 4 minutes.
# Before (here): a release build packed into .carry (scripts/pack-for-device.sh build-release)
# and .fla (scripts/fetch-fla.sh). On the device: bash scripts/h200-fla-verdict.sh
# (carry [".carry", ".fla"]). Writes $OUT/verdict/: fla-verdict.json, estimate.json, the log.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/h200-fla-verdict}
dir="$OUT/verdict"
mkdir -p "$dir"
exec > >(tee -a "$dir/h200-fla-verdict.log") 2>&1
export LD_LIBRARY_PATH=".carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPUSTACK_CACHE_DIR=/tmp/gs-jit-fla GPUSTACK_STATE_DIR=/tmp/gs-state-fla
export GPUSTACK_TRANSCRIPT_DIR="$dir/transcripts"
export FLA_DISABLE_BACKEND_DISPATCH=1  # FLA's Triton path only: the depths under test
if [ -d .fla ]; then export PYTHONPATH="$PWD/.fla${PYTHONPATH:+:$PYTHONPATH}"; fi
GS=.carry/bin/gpustack
PY=${PY:-/opt/torch/.venv/bin/python3}
SHAPE="--batch 2 --seq 4096 --heads 16 --value-heads 16 --head-dim-k 128 --head-dim-v 128"
echo "== $(date -u +%FT%TZ) $(uname -r)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
"$PY" -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' || true
"$PY" -c 'import fla; print("fla", getattr(fla, "__version__", "?"))' || echo "fla: not importable"
t0=$SECONDS
"$GS" probe fla --backends native,triton,fla --stages 1..2 $SHAPE --python "$PY" --json -o "$dir/fla-verdict.json"
echo "rc=$? in $((SECONDS - t0)) s"
"$PY" - "$dir/fla-verdict.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for p in r["probes"]:
    d = p.get("data", {})
    print("%-22s %-5s %8s ms  %s" % (p["id"], p["status"], d.get("run_ms", "-"), (p.get("detail") or "")[:150]))
v = [p for p in r["probes"] if p["id"] == "fla.verdict"][0]["data"]
print(json.dumps({k: v.get(k) for k in ("avoid_num_stages", "fla_own_num_stages", "fla_affected", "fix", "summary")}, indent=1))
PY
"$GS" estimate --model qwen3.5-0.8b --json -o "$dir/estimate.json"
echo "estimate rc=$? ($(wc -c < "$dir/estimate.json" 2>/dev/null || echo 0) bytes)"
