#!/usr/bin/env bash
# memory-robustness.sh DIR: wall time and peak memory of the commands a robustness review found quadratic or
# unbounded, on the large inputs Benchmarks/robustness-inputs.py writes into DIR: 1,000,000
# connect/disconnect cycles on one reused handle (lifecycle in every format, errors, replay) and
# 1,000,000-event flows (diff). Needs BLETRACE (a release bletrace). Exits 1 when a command takes
# MAX_SECONDS or more (default 120): near-linear work finishes well within it.
set -u
dir=$1
max=${MAX_SECONDS:-120}
: > "$dir/empty.flow"
printf '| %-48s | %7s | %10s | %4s |\n' command "wall s" "peak RSS" exit
printf '| %-48s | %7s | %10s | %4s |\n' --- ---: ---: ---:
status=0
run() {
    local label=$1; shift
    local log start wall kb code
    log=$(mktemp)
    start=$(date +%s%N)
    timeout "$max" /usr/bin/time -v "$BLETRACE" "$@" > /dev/null 2> "$log"
    code=$?
    wall=$(echo "($(date +%s%N) - $start) / 1000000000" | bc -l)
    kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    rm -f "$log"
    printf '| %-48s | %7.2f | %7.1f MB | %4s |\n' "$label" "$wall" "$(echo "${kb:-0} / 1024" | bc -l)" "$code"
    if [ "$code" -eq 124 ]; then echo "bletrace $label: no result within $max s" >&2; status=1; fi
}
cycles=$dir/conn-cycles-1M.btsnoop
cat "$cycles" > /dev/null
for format in text json svg html; do
    run "lifecycle --format $format (1M cycles)" lifecycle "$cycles" --format "$format"
done
run "errors --format json (1M cycles)" errors "$cycles" --format json
run "replay --app reconnecting (1M cycles)" replay "$cycles" --app reconnecting
run "diff 1M-event flow, empty flow" diff "$dir/flow-1M.flow" "$dir/empty.flow"
run "diff 1M-event flow, itself" diff "$dir/flow-1M.flow" "$dir/flow-1M.flow"
run "diff 1M-event flow, 2 events changed" diff "$dir/flow-1M.flow" "$dir/flow-1M-shifted.flow"
run "diff 40k vs 40k events, none in common" diff "$dir/flow-40k-a.flow" "$dir/flow-40k-b.flow"
exit $status
