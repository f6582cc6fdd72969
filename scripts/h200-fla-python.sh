#!/usr/bin/env bash
# The Python backends of `gpustack probe fla` run directly on the lent H200 (issue 5), as gpustack
# runs them (same files side by side, same GPUSTACK_ARGS, python -u), keeping each run's raw
# stdout/stderr: they replace the synthetic recordings in tests/fixtures/python_outputs/
# (h200_fla_*). scripts/h200-fla.sh runs the whole `gpustack probe fla`; this one adds:
#   1. FLA's own forward at its own configs (stage 0: nothing forced), the figure the GUIDE
#      quotes (0.43-0.54 ms at B=2, T=4096, H=16, K=V=128, bf16), with its backward asked for
#      (FLA 0.5.0 refuses it on Hopper with Triton >= 3.4.0: FLA#640, reported as `skip`);
#   2. gpustack's Triton kernels at num_stages 1..4 (compile ms, run ms, error vs float64);
#   3. the spin kernel (must be killed by `timeout` in phase run: exit 124);
#   4. FLA forced to num_stages 1..4 (num_stages_seen proves the forcing), as time allows.
# Before (here): bash scripts/fetch-fla.sh  (-> .fla/, ~5 MB)
# On the device, from the repo root:  bash scripts/h200-fla-python.sh   (carry [".fla"])
# Writes $OUT/fla-python.tgz (raw outputs + h200-fla-python.log + summary.txt). Budget: 5 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/h200-fla-python}
PY=${PY:-/opt/torch/.venv/bin/python3}
mkdir -p "$OUT"
raw=/tmp/gs-fla-python
rm -rf "$raw" && mkdir -p "$raw/run"
log="$raw/h200-fla-python.log"
exec > >(tee -a "$log") 2>&1
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }

[ -d .fla/fla ] || { echo "no .fla/: run scripts/fetch-fla.sh on the build machine and carry .fla"; exit 2; }
export PYTHONPATH="$PWD/.fla${PYTHONPATH:+:$PYTHONPATH}"
export TRITON_CACHE_DIR=/tmp/gs-fla-python-triton   # cold: compile times are first-call times
rm -rf "$TRITON_CACHE_DIR"
cp probes/python/gs_protocol.py probes/python/fla_triton.py probes/python/fla_fla.py probes/python/fla_args.py \
   probes/python/gpustack_triton_stages.py kernels/triton/gdn_chunk.py kernels/triton/gdn_ref.py "$raw/run/"

echo "== $(date -u +%FT%TZ) $(uname -r)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
"$PY" -c 'import torch, triton, fla; print("torch", torch.__version__, "triton", triton.__version__, "fla", fla.__version__, fla.__file__)'

CASE='"B":2,"T":4096,"H":16,"HV":16,"K":128,"V":128,"chunk":64,"dtype":"bf16","seed":20261202'
# run NAME SCRIPT TIMEOUT_S ARGS_JSON_TAIL
run() {
  local name=$1 script=$2 limit=$3 extra=$4 t0 rc
  t0=$(date +%s.%N)
  (cd "$raw/run" && GPUSTACK_ARGS="{$CASE,$extra}" PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
     timeout "$limit" "$PY" -u "$script" >"$raw/$name.stdout" 2>"$raw/$name.stderr")
  rc=$?
  printf '== [%3s s] %-24s exit %-3s %5.1f s  %s\n' "$(elapsed)" "$name" "$rc" \
    "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" \
    "$(grep -a '^@gs result' "$raw/$name.stdout" | cut -c1-300 || echo "(no result; last phase: $(grep -a '^@gs phase' "$raw/$name.stdout" | tail -1))")"
}

# 1. FLA as shipped: the default-forward timing (data.run_ms = data.fla_default_run_ms).
run h200_fla_fla_s0 fla_fla.py 150 '"stage":0,"backward":true,"spin":false'
# 2. gpustack's Triton kernels at each depth.
for s in 1 2 3 4; do
  run "h200_fla_triton_s$s" fla_triton.py 90 "\"stage\":$s,\"backward\":false,\"spin\":false"
done
# 3. The kernel that never ends: `timeout` plays the watchdog (exit 124, last phase `run`).
run h200_fla_triton_spin fla_triton.py 20 '"stage":2,"backward":false,"spin":true'
# 4. FLA forced to each depth, while the budget lasts (~30-60 s each on a cold cache).
for s in 1 2 3 4; do
  if [ "$(elapsed)" -gt 230 ]; then echo "== skipping fla stage $s: $(elapsed) s used of 300"; continue; fi
  run "h200_fla_fla_s$s" fla_fla.py 120 "\"stage\":$s,\"backward\":true,\"spin\":false,\"default_timing\":false"
done

echo "== summary"
"$PY" - "$raw" <<'EOF' | tee "$raw/summary.txt"
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "h200_fla_*.stdout"))):
    name = os.path.basename(path)[:-7]
    res = [l for l in open(path, errors="replace") if l.startswith("@gs result ")]
    if not res:
        phases = [l.split()[2] for l in open(path, errors="replace") if l.startswith("@gs phase ")]
        print("%-22s no result (last phase %s)" % (name, phases[-1] if phases else "-"))
        continue
    r = json.loads(res[0][len("@gs result "):])
    d = r.get("data", {})
    print("%-22s %-5s stages_seen=%s compile_ms=%s run_ms=%s fla_default_run_ms=%s rel_err=%s backward=%s"
          % (name, r["status"], d.get("num_stages_seen"), d.get("compile_ms"), d.get("run_ms"),
             d.get("fla_default_run_ms"), d.get("rel_err"), (d.get("backward") or {}).get("status")))
    print("%-22s       %s" % ("", r["detail"][:200]))
EOF
tar -C "$raw" -czf "$OUT/fla-python.tgz" --exclude run .
echo "== done in $(elapsed) s: $OUT/fla-python.tgz"
