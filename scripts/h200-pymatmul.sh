#!/usr/bin/env bash
# py.matmul (issue 17) on the lent GPU: the GEMMs of a QLoRA step of qwen3.5-0.8b and of
# gemma4-31b through the image's torch, both BLAS backends, bf16 and fp16, judged by gpustack.
#   here:   scripts/pack-for-device.sh build && rm -f .carry/bin/gpustack_*   (gpustack alone)
#   device: bash scripts/h200-pymatmul.sh [TOKENS]       (device tool, carry [".carry"])
# TOKENS (default 2048) is the step's batch x sequence length. Writes to $OUT (or
# /tmp/h200-pymatmul): pymatmul-<model>.json, the transcripts (raw script output, for
# tests/fixtures/python_outputs/), and h200-pymatmul.log with each run's wall time.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/h200-pymatmul}
tokens=${1:-2048}
mkdir -p "$out"
exec > >(tee -a "$out/h200-pymatmul.log") 2>&1

bin=$PWD/.carry/bin/gpustack
[ -x "$bin" ] || { echo "no $bin: run scripts/pack-for-device.sh BUILD_DIR here first and carry .carry"; exit 2; }
export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
py=$(command -v python3)
echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
"$py" -c 'import torch; print("== torch", torch.__version__, torch.version.cuda, torch.version.hip)' || true

status=0
for model in qwen3.5-0.8b gemma4-31b; do
  t0=$(date +%s.%N)
  GPUSTACK_TRANSCRIPT_DIR="$out/transcripts" "$bin" probe py.torch py.matmul --python "$py" \
    --set py.matmul.model="$model" --set py.matmul.tokens="$tokens" --json -o "$out/pymatmul-$model.json"
  rc=$?
  echo "== $model at $tokens tokens: exit $rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
  [ $rc -gt $status ] && status=$rc
  "$py" - "$out/pymatmul-$model.json" <<'EOF' || true
import json, sys
r = json.load(open(sys.argv[1]))
for p in r["probes"]:
    print("  %-10s %-5s %s" % (p["id"], p["status"], p["detail"][:400]))
    if p["id"] == "py.matmul":
        d = p.get("data", {})
        print("  blas:", json.dumps(d.get("blas")))
        print("  step_gemm_ms:", json.dumps(d.get("step_gemm_ms")))
        for c in sorted(d.get("cases", []), key=lambda c: -c.get("ms", 0))[:8]:
            print("   %-28s %s %-9s %8.3f ms %7.1f TFLOP/s %4.0f%% roofline  ok=%s" % (
                c["shape"], c["dtype"], c["backend"], c.get("ms", 0), c.get("tflops", 0),
                100 * c.get("roofline_fraction", 0), c["ok"]))
EOF
done
exit $status
