#!/usr/bin/env bash
# `gpustack inspect` on the lent H200 (issue 8): the device code of torch's own CUDA libraries
# against the detected sm_90, by default discovery (the env's GPU packages from their RECORDs)
# and by an explicit list of torch/lib/*.so; each timed cold-ish (first run) and warm, plus
# `check` with and without the device-code scan in its time. Also: section sizes and entry
# counts from readelf for the biggest library, as a cross-check of what inspect walked.
#   here:   scripts/pack-for-device.sh BUILD_DIR; strip .carry/bin/*   (carry [".carry"])
#   device: bash scripts/h200-inspect.sh
# Writes $OUT/inspect.tgz (inspect-default.json, inspect-torchlib.json, inspect-torchlib.txt,
# check.json, h200-inspect.log). Needs about 30 s.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/h200-inspect}
work=$(mktemp -d)
log="$work/h200-inspect.log"
exec > >(tee -a "$log") 2>&1

say() { printf '== %s\n' "$*"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

bin=$PWD/.carry/bin/gpustack
[ -x "$bin" ] || { echo "no $bin: run scripts/pack-for-device.sh BUILD_DIR here first and carry .carry"; exit 2; }
export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
py=/opt/torch/.venv/bin/python3
# torch's own folder as that Python imports it (sysconfig under -S names the base install's).
torchlib=$("$py" -c 'import os, torch; print(os.path.dirname(torch.__file__))')/lib

say "$(date -u +%FT%TZ) $(uname -r)"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true
say "torch/lib: $torchlib"
ls -la "$torchlib"/*.so* 2>/dev/null | awk '{ printf "  %12d %s\n", $5, $NF }'

for run in 1 2; do
  say "inspect, default discovery (--python $py), run $run"
  t0=$(now)
  "$bin" inspect --json --python "$py" -o "$work/inspect-default.json"
  echo "rc=$? wall_s=$(secs "$t0" "$(now)")"
done

for run in 1 2; do
  say "inspect torch/lib/*.so, run $run"
  t0=$(now)
  "$bin" inspect --json "$torchlib"/*.so -o "$work/inspect-torchlib.json"
  echo "rc=$? wall_s=$(secs "$t0" "$(now)")"
done
"$bin" inspect "$torchlib"/*.so > "$work/inspect-torchlib.txt" 2>&1
echo "human table rc=$?"
cat "$work/inspect-torchlib.txt"

say "inspect --deep on the biggest torch library"
big=$(ls -S "$torchlib"/*.so | head -1)
t0=$(now)
"$bin" inspect --deep --json "$big" -o "$work/inspect-deep.json"
echo "rc=$? wall_s=$(secs "$t0" "$(now)") file=$big"
readelf -S -W "$big" | grep -E 'nv_fatbin|nvFatBin|hip_fatbin' || true

for run in 1 2; do
  say "check (includes the device-code scan), run $run"
  t0=$(now)
  "$bin" check --json --python "$py" -o "$work/check.json"
  echo "rc=$? wall_s=$(secs "$t0" "$(now)")"
done
grep -o '"GS-BIN-[0-9]*"' "$work/check.json" | sort | uniq -c || echo "no GS-BIN findings"

mkdir -p "$out"
tar -C "$work" -czf "$out/inspect.tgz" .
say "wrote $out/inspect.tgz"
