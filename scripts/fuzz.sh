#!/usr/bin/env bash
# Run every libFuzzer target in BUILD_DIR for SECONDS each, seeded from fuzz/seeds/<target>/.
# Exits non-zero on the first crash, leak or sanitizer report.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build-asan}
SECONDS_EACH=${2:-20}
shopt -s nullglob
ran=0
for bin in "$BUILD_DIR"/fuzz/*_fuzz; do
  name=$(basename "$bin")
  corpus="$BUILD_DIR/fuzz-corpus/$name"
  mkdir -p "$corpus"
  seeds=()
  [ -d "fuzz/seeds/$name" ] && seeds=("fuzz/seeds/$name")
  # Each target also starts from the real inputs we hold for its parser (libFuzzer takes
  # directories; single files are copied into one).
  case "$name" in
    paste_fuzz) seeds+=(tests/fixtures/paste tests/corpus/cases/amd tests/corpus/cases/nvidia-torch reports/examples) ;;
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
  "$bin" -max_total_time="$SECONDS_EACH" -max_len=65536 -print_final_stats=1 "$corpus" "${seeds[@]}" \
    > "$BUILD_DIR/$name.log" 2>&1 || { tail -50 "$BUILD_DIR/$name.log"; exit 1; }
  grep -E "stat::number_of_executed_units" "$BUILD_DIR/$name.log" || true
  ran=$((ran + 1))
done
echo "fuzz: $ran targets ran clean"
