#!/usr/bin/env bash
# The hardware run for issues 2 and 3 on the lent H200, as one command (the device machine has
# no -dev packages, so the binary is built here and carried):
#   here:   bash scripts/pack-for-device.sh build
#   device: bash scripts/h200-run.sh        (carry: .carry; results under $OUT)
# It runs `gpustack check` (report + wall time over 20 runs) beside torch's collect_env, the
# default native probe suite on the cuda backend, the GPU hang self-test followed by probes that
# must still run, and torch's own copy/matmul figures for comparison.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gs-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPUSTACK_STATE_DIR=/tmp/gs-state GPUSTACK_CACHE_DIR=/tmp/gs-jit
GS="$PWD/.carry/bin/gpustack"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,power.limit --format=csv,noheader

echo "== gpustack check"
"$GS" check; echo "check exit=$?"
"$GS" check --json -o "$OUT/h200-check.json"
"$GS" check --markdown -o "$OUT/h200-check.md"

echo "== wall time: gpustack check --json (20 runs) vs python -m torch.utils.collect_env (2 runs)"
python3 - "$GS" <<'PY' | tee "$OUT/h200-timing.json"
import json, statistics, subprocess, sys, time
gs = sys.argv[1]
def wall(cmd, n):
    t = []
    for _ in range(n):
        t0 = time.perf_counter(); subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); t.append(time.perf_counter() - t0)
    return t
c = wall([gs, "check", "--json"], 20)
e = wall([sys.executable, "-m", "torch.utils.collect_env"], 2)
print(json.dumps({"check_median_s": statistics.median(c), "check_max_s": max(c), "collect_env_s": e}))
PY

echo "== gpustack probe (default native suite, cuda backend)"
"$GS" probe --json -o "$OUT/h200-probe.json"; echo "probe exit=$?"
"$GS" report show "$OUT/h200-probe.json" 2>/dev/null || python3 -c "import json,sys;[print(p['id'],p['status'],p.get('phase'),round(p['duration_ms']),p['detail']) for p in json.load(open(sys.argv[1]))['probes']]" "$OUT/h200-probe.json"

echo "== GPU hang self-test, then probes that must still run"
"$GS" probe selftest.gpu_hang device.visible tensor.vector_add --timeout 10 --json -o "$OUT/h200-gpu-hang.json"; echo "gpu-hang exit=$? (expect 3)"
python3 -c "import json,sys;[print(p['id'],p['status'],p.get('phase'),round(p['duration_ms']),p['detail']) for p in json.load(open(sys.argv[1]))['probes']]" "$OUT/h200-gpu-hang.json"
"$GS" probe selftest.hang --timeout 2; echo "selftest.hang exit=$? (expect 3)"
nvidia-smi --query-compute-apps=pid,name --format=csv,noheader; echo "(no gpustack process may remain above)"

echo "== torch reference figures"
python3 scripts/torch_reference.py | tee "$OUT/h200-torch-ref.json"
