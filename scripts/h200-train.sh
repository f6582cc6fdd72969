#!/usr/bin/env bash
# train-smoke on the lent H200 (issue 7): qwen3.5-0.8b shrunk (--layers 4) and at full size
# (24 layers), seq 512, 5 steps, each with --json -o, plus `gpustack estimate` for the same shapes
# (when the binary has it), then, if flash-linear-attention is carried, the shrunk run again on
# FLA's path so both linear-attention paths are shown. Everything within 5 minutes.
#   here:   scripts/pack-for-device.sh BUILD_DIR; strip .carry/bin/*   -> .carry/bin/gpustack, .carry/lib
#           .whl/bitsandbytes-0.50.2-*.whl                             (the stripped CUDA 13 wheel)
#           .fla/ (optional: flash-linear-attention + fla-core, importable from that dir)
#   device: bash scripts/h200-train.sh        (device tool, carry [".carry", ".whl", ".fla"])
# Writes $OUT/train.tgz (or /tmp/h200-train/train.tgz): the reports, the estimates,
# the matrix file the runs were recorded in, and h200-train.log; transcripts/ holds each run's
# raw script output (to replace tests/fixtures/python_outputs/train_smoke_*.stdout).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-/tmp/h200-train}
work=/tmp/gs-train
rm -rf "$work" && mkdir -p "$work" "$out"
log="$work/h200-train.log"
exec > >(tee -a "$log") 2>&1

say() { printf '== %s\n' "$*"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
t_start=$(now)
elapsed() { secs "$t_start" "$(now)"; }

bin=$PWD/.carry/bin/gpustack
[ -x "$bin" ] || { echo "no $bin: run scripts/pack-for-device.sh BUILD_DIR here first and carry .carry"; exit 2; }
export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
say "$(date -u +%FT%TZ) $(uname -r)"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader || true

# bitsandbytes only (the other carried wheels are for the suite): into a throwaway target dir.
site=/tmp/gs-train-site
rm -rf "$site"
if ls .whl/bitsandbytes-*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" .whl/bitsandbytes-*.whl ||
    { echo "bitsandbytes wheel install failed"; exit 2; }
else
  echo "no .whl/bitsandbytes-*.whl: train-smoke will skip (bitsandbytes is not installed)"
fi
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
py=${PY:-$(command -v python3)}
say "python: $py"
"$py" - <<'EOF' || true
import importlib.metadata as m
for d in ("torch", "triton", "bitsandbytes", "transformers", "peft", "accelerate", "flash-linear-attention", "fla-core", "causal-conv1d", "kernels"):
    try:
        print("  %-22s %s" % (d, m.version(d)))
    except Exception as e:
        print("  %-22s -- (%s)" % (d, type(e).__name__))
EOF

export GPUSTACK_STATE_DIR=$work/state TRITON_CACHE_DIR=$work/triton
# Each run's raw script output (src/python/transcript.h), for tests/fixtures/python_outputs/.
export GPUSTACK_TRANSCRIPT_DIR=$work/transcripts
matrix="$work/matrix.toml"
have_estimate=0
"$bin" estimate --help >/dev/null 2>&1 && have_estimate=1

# name, estimate arguments (the shape), then train-smoke's own arguments
run_one() {
  local name=$1 shape=$2; shift 2
  say "train-smoke $name: $shape $* ($(elapsed) s in)"
  local t0; t0=$(now)
  # shellcheck disable=SC2086
  "$bin" train-smoke --model qwen3.5-0.8b $shape "$@" --python "$py" --matrix "$matrix" --json -o "$work/train-$name.json"
  local rc=$?
  say "$name: exit $rc in $(secs "$t0" "$(now)") s"
  # Packed after every run: a time limit that cuts the script short still returns what finished.
  tar -C "$work" -czf "$out/train.tgz" --exclude triton --exclude state .
  if [ "$have_estimate" = 1 ]; then
    # shellcheck disable=SC2086
    "$bin" estimate --model qwen3.5-0.8b $shape --json -o "$work/estimate-$name.json" 2>"$work/estimate-$name.err" ||
      echo "  estimate $name: exit $? ($(head -c 300 "$work/estimate-$name.err"))"
  fi
}

run_one l4 "--layers 4 --seq 512" --steps 5
# GS_TRAIN_ONLY_L4=1: the shrunk model only (scripts/h200-fla-repro.sh: both linear-attention paths
# of one shape in one device call).
[ "${GS_TRAIN_ONLY_L4:-0}" = 1 ] || run_one full "--seq 512" --steps 5

# FLA's path: carried in .fla (the fla-python helper prepares it). Its first call compiles
# Triton kernels for tens of seconds, and its backward may refuse Hopper with Triton < 3.7.1
# (flash-linear-attention#640): either way the report says which path ran and how it ended.
fla_budget=${GS_TRAIN_FLA_BUDGET_S:-45}  # seconds spent before the FLA run that still leave it room
if [ -d .fla ] && awk -v e="$(elapsed)" -v b="$fla_budget" 'BEGIN { exit !(e < b) }'; then
  PYTHONPATH="$PWD/.fla:$PYTHONPATH" FLA_DISABLE_BACKEND_DISPATCH=1 run_one l4-fla "--layers 4 --seq 512" --steps 5 --timeout 100
elif [ -d .fla ]; then
  say "skipping the FLA run: $(elapsed) s already spent of the 5 minutes"
fi

say "summary"
for f in "$work"/train-*.json; do
  python3 - "$f" "$work" <<'EOF'
import json, os, sys
path, work = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(path))
except Exception as e:
    print("%s: no report (%s)" % (path, e)); sys.exit(0)
p = r["probes"][0]; d = p.get("data", {})
name = os.path.basename(path)[6:-5]
gib = lambda b: "%.2f GiB" % (b / 2**30) if isinstance(b, (int, float)) else "-"
print("%-8s %-5s %s" % (name, p["status"], p.get("detail", "")[:200]))
print("         loss %s" % d.get("loss"))
print("         step_ms %s" % [round(x) for x in d.get("step_ms", [])])
print("         peak alloc %s reserved %s after load %s rss %s" % (gib(d.get("peak_alloc_bytes")),
      gib(d.get("peak_reserved_bytes")), gib(d.get("after_load_alloc_bytes")), gib(d.get("peak_rss_bytes"))))
la = d.get("linear_attention_path", {})
print("         linear attention: %s (%s)" % (la.get("path"), la.get("why")))
est = os.path.join(work, "estimate-%s.json" % name)
if "peak_vs_estimate" in d:
    print("         measured/estimated peak %.3f" % d["peak_vs_estimate"])
elif os.path.exists(est):
    print("         estimate file: %s" % est)
EOF
done
echo "total wall: $(elapsed) s"
tar -C "$work" -czf "$out/train.tgz" --exclude triton --exclude state --exclude raw .
echo "wrote $out/train.tgz"
