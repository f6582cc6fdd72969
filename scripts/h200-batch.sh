#!/usr/bin/env bash
# Several H200 run scripts in one device call (a cold start costs a minute of the session's 30),
# each under its own time limit, each into its own folder, re-packed into $OUT/<batch>.tgz after
# every script so a call cut short still returns what finished.
#   device: bash scripts/h200-batch.sh stack      quant + suite cold/warm + inspect + GPU tests (~7 min)
#           bash scripts/h200-batch.sh training   train-smoke + probe fla            (~7 min)
# carry [".carry", ".whl", ".fla"] (scripts/pack-for-device.sh, fetch-wheels.sh, fetch-fla.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
batch=${1:?usage: h200-batch.sh stack|training}
final=${OUT:-/tmp/h200-batch}
work=/tmp/gs-batch
rm -rf "$work" && mkdir -p "$work" "$final"

limit() { awk -v s="$1" -v k="${GS_BATCH_SCALE:-1}" 'BEGIN { printf "%d", s * k }'; }

# name, limit in seconds, script
step() {
  local name=$1 limit=$2 script=$3 t0=$SECONDS
  mkdir -p "$work/$name"
  echo "==== $name (limit $limit s)"
  OUT="$work/$name" timeout -k 5 "$limit" bash "scripts/$script" > "$work/$name/stdout.log" 2>&1
  echo "==== $name: exit $? in $((SECONDS - t0)) s"
  tail -n 40 "$work/$name/stdout.log"
  tar -C "$work" -czf "$final/$batch.tgz" .
}

case $batch in
  stack)
    step quant 150 h200-quant.sh
    step suite 330 h200-suite.sh
    step inspect 60 h200-inspect.sh
    step gputests 60 h200-gpu-tests.sh ;;
  training)
    # The limits sum to what one call gets when little device time is left; scale them with
    # GS_BATCH_SCALE (e.g. 1.3) when more is.
    # train-smoke first: its runs are the more predictable; FLA's autotuning the less.
    step train "$(limit 150)" h200-train.sh
    step fla "$(limit 240)" h200-fla.sh ;;
  *) echo "unknown batch $batch (stack or training)"; exit 2 ;;
esac
