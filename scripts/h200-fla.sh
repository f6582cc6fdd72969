#!/usr/bin/env bash
# Issue 5 hardware run on the lent H200 (CUDA 13, driver 580, torch 2.11+cu130, Triton 3.6.0):
# `gpustack probe fla` at num_stages 1..4 with all three backends at FLA's timing shape
# (B=2, T=4096, H=HV=16, K=V=128, bf16; the GUIDE's figure for FLA's forward there is
# 0.43-0.54 ms), its backward asked for (FLA refuses it on Hopper with Triton < 3.7.1: known issue
# GS-FLA-001, FLA#640), and the hang self-test: the Triton backend made to launch a kernel that
# never ends at stage 1 must be `hang` in phase run, and stage 2 must still run.
#
# Before (here, on the build machine):
#   cmake --build build-fla --target gpustack && scripts/pack-for-device.sh build-fla  # -> .carry/
#   .fla/: flash-linear-attention 0.5.0 and its pure-Python dependencies, importable from that
#     directory (the fla-python helper's recipe; the same .fla/ scripts/h200-train.sh uses)
# On the device (repo root):  bash scripts/h200-fla.sh   (carry [".carry", ".fla"])
# Writes $OUT/fla/ as it goes (so a run cut short still returns what it did) and, at the end,
# $OUT/fla.tgz: fla-probe.json (native and Triton), fla-fla.json (FLA), fla-spin.json, fla-native-cpu.json, h200-fla.log,
# fla-table.txt (the table also goes to stdout), transcripts/. Budget: the whole script within 5 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/h200-fla}
dir="$OUT/fla"
mkdir -p "$dir"
log="$dir/h200-fla.log"
exec > >(tee -a "$log") 2>&1
export LD_LIBRARY_PATH=".carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPUSTACK_CACHE_DIR=/tmp/gs-jit-fla
export GPUSTACK_STATE_DIR=/tmp/gs-state-fla
GS=.carry/bin/gpustack
PY=${PY:-/opt/torch/.venv/bin/python3}
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
# FLA from the carried directory, nothing installed; its Triton path only (FlashQLA and TileLang
# dispatch would bypass the num_stages being tested: research/kernel-specs.md 3.7).
if [ -d .fla ]; then export PYTHONPATH="$PWD/.fla${PYTHONPATH:+:$PYTHONPATH}"; fi
export FLA_DISABLE_BACKEND_DISPATCH=1
# Every Python backend run's raw stdout/stderr (src/python/transcript.h): the recordings that
# replace tests/fixtures/python_outputs/h200_fla_*.
export GPUSTACK_TRANSCRIPT_DIR="$dir/transcripts"
SHAPE="--batch 2 --seq 4096 --heads 16 --value-heads 16 --head-dim-k 128 --head-dim-v 128"

echo "== $(date -u +%FT%TZ) $(uname -r)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv || true
"$PY" -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)' || true
"$PY" -c 'import fla; print("fla", getattr(fla, "__version__", "?"), fla.__file__)' || echo "fla: not importable (.fla missing?)"
"$GS" --version

# Three calls, cheapest first, each writing its own report, so a time limit that cuts the
# script short loses at most the call it was in (FLA's first calls autotune and compile for tens
# of seconds each).
# 1. native and Triton at every depth: the pair that decides whether a failure is Triton's.
echo "== [$(elapsed) s] gpustack probe fla --backends native,triton --stages 1..4 $SHAPE"
"$GS" probe fla --backends native,triton --stages 1..4 $SHAPE --python "$PY" --json -o "$dir/fla-probe.json"
echo "rc=$?"

# 2. The hang self-test: expect exit 3, triton stage 1 `hang` in phase run after 20 s, stage 2 `pass`.
echo "== [$(elapsed) s] spin self-test: --backends triton --stages 1..2 --selftest-spin-stage 1 --timeout 20"
"$GS" probe fla --backends triton --stages 1..2 --selftest-spin-stage 1 --timeout 20 $SHAPE \
  --python "$PY" --json -o "$dir/fla-spin.json"
echo "rc=$? (3 expected: a step hung)"

# 2b. FLA's own kernels at every depth, with the backward asked for (refused on Hopper with
#     Triton < 3.7.1: GS-FLA-001).
echo "== [$(elapsed) s] gpustack probe fla --backends fla --stages 1..4 $SHAPE --backward"
"$GS" probe fla --backends fla --stages 1..4 $SHAPE --backward --python "$PY" --json -o "$dir/fla-fla.json"
echo "rc=$?"

# 3. The native backend's CPU path at the same depths (small shape: seconds), for the record.
if [ "$(elapsed)" -lt 250 ]; then
  echo "== [$(elapsed) s] native on the cpu device"
  "$GS" probe fla --device cpu --backends native --stages 1..4 --batch 1 --seq 512 --heads 4 --value-heads 8 \
    --json -o "$dir/fla-native-cpu.json"
  echo "rc=$?"
fi

echo "== [$(elapsed) s] table"
"$PY" - "$dir" <<'PY' | tee "$dir/fla-table.txt"
import json, os, sys
d = sys.argv[1]
def fmt(x, f):
    return "-" if x is None else f % x
for name in ("fla-probe.json", "fla-spin.json", "fla-fla.json", "fla-native-cpu.json"):
    p = os.path.join(d, name)
    if not os.path.exists(p):
        print("%s: missing" % name)
        continue
    rep = json.load(open(p))
    print("## %s" % name)
    print("%-20s %-6s %-8s %12s %10s %10s %9s" % ("step", "status", "phase", "compile_ms", "run_ms", "rel_err", "warps"))
    verdict = None
    for pr in rep["probes"]:
        if pr["id"] == "fla.verdict":
            verdict = pr
            continue
        x = pr.get("data", {})
        print("%-20s %-6s %-8s %12s %10s %10s %9s" % (pr["id"], pr["status"], pr.get("phase", ""),
              fmt(x.get("compile_ms"), "%.0f"), fmt(x.get("run_ms"), "%.3f"), fmt(x.get("rel_err"), "%.1e"),
              fmt(x.get("num_warps"), "%d")))
        if x.get("fla_default_run_ms") is not None:
            print("%-20s FLA at its own num_stages %s: %.3f ms" % ("", x.get("fla_default_stages_seen"), x["fla_default_run_ms"]))
        bw = x.get("backward")
        if isinstance(bw, dict):
            print("%-20s backward: %s: %s" % ("", bw.get("status"), (bw.get("detail") or "")[:150]))
        if pr["status"] not in ("pass", "skip"):
            print("%-20s %s" % ("", pr.get("detail", "")[:200]))
    if verdict:
        for line in verdict["data"].get("summary", []):
            print("verdict: " + line)
    print("findings: " + ", ".join(f["id"] for f in rep.get("findings", [])))
    print()
PY
echo "== [$(elapsed) s] done"
tar -C "$OUT" -czf "$OUT/fla.tgz" fla && echo "wrote $OUT/fla.tgz"
