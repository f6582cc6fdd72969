#!/usr/bin/env bash
# The GitHub Action's one step (action.yml): build gpustack (scripts/build-release.sh) unless
# GPUSTACK_BIN names a built one, run INPUT_COMMAND with --json -o into RUNNER_TEMP, render the
# report's Markdown into GITHUB_STEP_SUMMARY, and set the outputs status, exit-code and report in
# GITHUB_OUTPUT. Exits with gpustack's code when INPUT_FAIL_ON=fail (the default), else 0 when a
# report was written. Runs the same outside Actions (tests/cli/action_test.cpp sets the variables).
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
command=${INPUT_COMMAND:-check}
fail_on=${INPUT_FAIL_ON:-fail}
case "$fail_on" in fail|never) ;; *) echo "gpustack action: fail-on must be fail or never, not '$fail_on'" >&2; exit 2 ;; esac
out_dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/gpustack-action
mkdir -p "$out_dir" || exit 2
report="$out_dir/gpustack-report.json"
rm -f "$report"
bin=${GPUSTACK_BIN:-}
if [ -z "$bin" ]; then
  bash "$here/scripts/build-release.sh" || exit 2
  bin="$here/build-release/gpustack"
fi
# The command's words as the user wrote them (no shell expansion of their own): "probe fla --stages 1..4".
read -r -a words <<<"$command"
case "${words[0]:-}" in
  check|probe|train-smoke|estimate|inspect|explain|bisect) ;;
  *) echo "gpustack action: command must start with check, probe, train-smoke, estimate, inspect, explain or bisect, not '${words[0]:-}'" >&2; exit 2 ;;
esac
echo "gpustack action: $bin ${words[*]} --json -o $report" >&2
"$bin" "${words[@]}" --json -o "$report"
rc=$?
status=untested
if [ -s "$report" ]; then
  status=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("summary",{}).get("status","unknown"))' "$report" 2>/dev/null || echo unknown)
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    "$bin" report show "$report" --markdown >>"$GITHUB_STEP_SUMMARY" || echo "gpustack action: could not render the Markdown summary" >&2
  fi
else
  echo "gpustack action: gpustack exited $rc without a report" >&2
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  { echo "status=$status"; echo "exit-code=$rc"; echo "report=$report"; } >>"$GITHUB_OUTPUT"
fi
echo "gpustack action: exit $rc, status $status, report $report" >&2
if [ "$fail_on" = never ] && [ -s "$report" ]; then exit 0; fi
exit "$rc"
