#!/usr/bin/env bash
# Run every libFuzzer target in BUILD_DIR for SECONDS each, seeded from fuzz/seeds/<target>/,
# as many at once as there are cores (each target is one process on one core, so every target
# still gets its SECONDS of a core; 10 targets x 20 s take 100 s on 2 cores instead of 200 s).
# Exits non-zero when any target finds a crash, leak or sanitizer report, after showing its log.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build-asan}
SECONDS_EACH=${2:-20}
shopt -s nullglob
ran=0
rm -f "$BUILD_DIR"/*_fuzz.failed
# The targets whose seed pass is slowest (the explain pipeline, the knowledge-base loader) start
# first, so the quick ones fill the other core meanwhile.
targets=()
for first in paste_fuzz kb_fuzz; do [ -x "$BUILD_DIR/fuzz/$first" ] && targets+=("$BUILD_DIR/fuzz/$first"); done
for bin in "$BUILD_DIR"/fuzz/*_fuzz; do
  case "$(basename "$bin")" in paste_fuzz | kb_fuzz) ;; *) targets+=("$bin") ;; esac
done
for bin in "${targets[@]}"; do
  name=$(basename "$bin")
  corpus="$BUILD_DIR/fuzz-corpus/$name"
  mkdir -p "$corpus"
  seeds=()
  [ -d "fuzz/seeds/$name" ] && seeds=("fuzz/seeds/$name")
  # Each target also starts from the real inputs we hold for its parser (libFuzzer takes
  # directories; single files are copied into one).
  case "$name" in
    # paste_fuzz runs the whole explain pipeline (777 rules) on each input, ~0.7 s under ASan for a
    # corpus case: seeded with every corpus case and the reports it spent 155 s on its seeds alone
    # and never mutated (CI run of 7cb9fcd: "Done 234 runs in 155 second(s)"). The 47 captured tool
    # outputs and every 60th corpus case (~26) keep each input kind and leave time to fuzz.
    paste_fuzz)
      mkdir -p "$BUILD_DIR/fuzz-seeds/$name"
      find tests/corpus/cases -name '*.toml' | sort | awk 'NR % 60 == 1' |
        while read -r c; do cp "$c" "$BUILD_DIR/fuzz-seeds/$name/$(basename "$(dirname "$c")")-$(basename "$c")"; done
      seeds+=(tests/fixtures/paste "$BUILD_DIR/fuzz-seeds/$name") ;;
    report_fuzz) seeds+=(reports/examples) ;;
    kb_fuzz) seeds+=(matrix/rules) ;;
    model_registry_fuzz) seeds+=(matrix/models) ;;
    gs_protocol_fuzz) seeds+=(tests/fixtures/python_outputs) ;;
    snapshot_manifest_fuzz)
      mkdir -p "$BUILD_DIR/fuzz-seeds/$name"
      for m in tests/fixtures/machines/*/.gpustack-snapshot.toml; do
        cp "$m" "$BUILD_DIR/fuzz-seeds/$name/$(basename "$(dirname "$m")").toml"
      done
      seeds+=("$BUILD_DIR/fuzz-seeds/$name") ;;
  esac
  echo "fuzz: $name for ${SECONDS_EACH}s"
  (
    "$bin" -max_total_time="$SECONDS_EACH" -max_len=65536 -print_final_stats=1 "$corpus" "${seeds[@]}" \
      > "$BUILD_DIR/$name.log" 2>&1 || { echo "fuzz: $name FAILED"; tail -50 "$BUILD_DIR/$name.log"; touch "$BUILD_DIR/$name.failed"; exit 1; }
    echo "fuzz: $name $(grep -E "stat::number_of_executed_units" "$BUILD_DIR/$name.log" || true)"
  ) &
  ran=$((ran + 1))
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
done
wait
# A marker file per failed target: exit statuses of jobs reaped by `wait -n` are not kept.
failed=$(find "$BUILD_DIR" -maxdepth 1 -name '*_fuzz.failed' | wc -l)
if [ "$failed" -gt 0 ]; then echo "fuzz: $failed of $ran targets failed"; exit 1; fi
echo "fuzz: $ran targets ran clean"
