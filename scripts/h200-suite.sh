#!/usr/bin/env bash
# The whole default probe suite on the lent H200 (issue 6), cold then warm, with its wall times.
# The GPU machine has no -dev packages and no network, so everything is carried:
#   here:   scripts/pack-for-device.sh BUILD_DIR      -> .carry/bin/gpustack, .carry/lib/*.so
#           strip .carry/bin/*                        (RelWithDebInfo gpustack is ~90 MB, stripped ~3 MB:
#                                                      the carry limit is 64 MiB)
#           .whl/*.whl                                -> bitsandbytes, trl, datasets, dill, multiprocess
#   device: bash scripts/h200-suite.sh                (device tool, carry [".carry", ".whl"])
# Cold = a fresh machine with empty Triton and gpustack JIT caches; warm = the same run again.
# Writes to $OUT (or /tmp/h200-suite): suite-cold.json, suite-warm.json, h200-suite.log, and
# python-outputs.tgz (the cold run's transcripts: each Python step's raw stdout/stderr, which the
# recorded outputs in tests/fixtures/python_outputs/ are replaced with, plus the bitsandbytes
# golden vectors the NF4 step dumped).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/h200-suite}
mkdir -p "$out"
log="$out/h200-suite.log"
exec > >(tee -a "$log") 2>&1

say() { printf '== %s\n' "$*"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

bin=$PWD/.carry/bin/gpustack
[ -x "$bin" ] || { echo "no $bin: run scripts/pack-for-device.sh BUILD_DIR here first and carry .carry"; exit 2; }
export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

say "$(date -u +%FT%TZ) $(uname -r)"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader || true

# Wheels the image lacks (KINDS.md lists what it has): one version of each, no deps resolved.
if ls .whl/*.whl >/dev/null 2>&1; then
  say "installing $(ls .whl | tr '\n' ' ')"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl ||
    { echo "wheel install failed"; exit 2; }
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
py=$(command -v python3)
say "python: $py"
"$py" - <<'EOF' || true
import importlib.metadata as m
for d in ("torch", "triton", "bitsandbytes", "transformers", "peft", "accelerate", "trl", "datasets", "safetensors"):
    try:
        print("  %-13s %s" % (d, m.version(d)))
    except Exception as e:
        print("  %-13s -- (%s)" % (d, type(e).__name__))
EOF

# Fresh caches for the cold run; the warm run reuses them.
export TRITON_CACHE_DIR=/tmp/gs-suite-triton GPUSTACK_CACHE_DIR=/tmp/gs-suite-jit GPUSTACK_STATE_DIR=/tmp/gs-suite-state
rm -rf "$TRITON_CACHE_DIR" "$GPUSTACK_CACHE_DIR" "$GPUSTACK_STATE_DIR"
mkdir -p /tmp/gs-suite-vectors

declare -A took rc
for run in cold warm; do
  say "gpustack probe ($run)"
  t0=$(now)
  GPUSTACK_TRANSCRIPT_DIR=$([ $run = cold ] && echo "$out/transcripts-cold") \
    "$bin" probe --python "$py" --set vectors_dir=/tmp/gs-suite-vectors --json -o "$out/suite-$run.json"
  rc[$run]=$?
  took[$run]=$(secs "$t0" "$(now)")
  say "$run: exit ${rc[$run]} in ${took[$run]} s"
done

# The raw streams of every Python step (GPUSTACK_TRANSCRIPT_DIR, src/python/transcript.h) of the
# cold run, for the recorded fixtures (tests/fixtures/python_outputs/README.md), and the vectors.
cp /tmp/gs-suite-vectors/*.json "$out/transcripts-cold/" 2>/dev/null
tar -C "$out" -czf "$out/python-outputs.tgz" transcripts-cold && rm -rf "$out/transcripts-cold"

say "summary"
for run in cold warm; do
  "$py" - "$out/suite-$run.json" "$run" "${took[$run]}" "${rc[$run]}" <<'EOF'
import json, sys
path, run, took, rc = sys.argv[1:5]
try:
    r = json.load(open(path))
except Exception as e:
    print("%s: no report (%s)" % (run, e)); sys.exit(0)
counts = {}
for p in r.get("probes", []):
    counts[p["status"]] = counts.get(p["status"], 0) + 1
print("%s: %s s wall, exit %s, %s" % (run, took, rc, ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items()))))
for p in r.get("probes", []):
    print("  %-20s %-5s %7.0f ms  %s" % (p["id"], p["status"], p.get("duration_ms", 0), p.get("detail", "")[:110]))
EOF
done
echo "total wall: cold ${took[cold]} s, warm ${took[warm]} s"
