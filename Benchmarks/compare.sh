#!/usr/bin/env bash
# compare.sh FILE: time `bletrace stats` against tshark and btmon on the same capture.
# The file is read once first, so that every tool finds it in the page cache.
# Needs BLETRACE (path of a release bletrace) and RECORDS (records in FILE). Each tool runs under
# /usr/bin/time -v (wall time, peak RSS), output to /dev/null: bletrace five times, reporting the
# median run (a run is short, so one is noisy); the others once.
set -u
file=$1
size=$(stat -c %s "$file")
records=${RECORDS:?}
declare -a names times rss notes

run() {  # run NAME REPEAT COMMAND...: the median of REPEAT runs (REPEAT odd)
    local name=$1 repeat=$2; shift 2
    local log; log=$(mktemp)
    local -a runs=()
    local code kb note
    for ((i = 0; i < repeat; i++)); do
        # (Wall time from the clock around the run: time's own figure has 10 ms steps.)
        local start; start=$(date +%s%N)
        /usr/bin/time -v "$@" > /dev/null 2> "$log"
        code=$?
        runs+=("$(echo "($(date +%s%N) - $start) / 1000000000" | bc -l)")
        kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    done
    note=""
    if grep -q "Command terminated by signal" "$log"; then
        note="CRASHED ($(grep -o 'signal [0-9]*' "$log" | head -1))"
    elif [ "$code" -ne 0 ]; then note="exit $code"; fi
    names+=("$name"); times+=("$(printf '%s\n' "${runs[@]}" | sort -n | sed -n "$(( (repeat + 1) / 2 ))p")")
    rss+=("$kb"); notes+=("$note")
    rm -f "$log"
}

cat "$file" > /dev/null
run "bletrace stats" 5 "$BLETRACE" stats "$file"
run "tshark -T fields" 1 tshark -r "$file" -T fields -e frame.number -e btatt.opcode
run "tshark summary" 1 tshark -r "$file"
run "btmon -r" 1 btmon -r "$file"

printf '\n%s: %d records, %.1f MB\n\n' "$file" "$records" "$(echo "$size / 1000000" | bc -l)"
printf '| %-18s | %9s | %9s | %12s | %10s | %14s | %s\n' tool "wall s" "MB/s" "records/s" "peak RSS" "bletrace is" note
printf '| %-18s | %9s | %9s | %12s | %10s | %14s | %s\n' --- ---: ---: ---: ---: ---: ---
base=${times[0]}
for i in "${!names[@]}"; do
    t=${times[$i]}
    mbs=$(echo "$size / 1000000 / $t" | bc -l 2>/dev/null)
    rps=$(echo "$records / $t" | bc -l 2>/dev/null)
    ratio=$(echo "$t / $base" | bc -l 2>/dev/null)
    if [ -n "${notes[$i]}" ]; then  # a crash or a failure: no speed to report
        printf '| %-18s | %9s | %9s | %12s | %10s | %14s | %s\n' "${names[$i]}" — — — — — "${notes[$i]}"
        continue
    fi
    printf '| %-18s | %9.3f | %9.1f | %12.0f | %7.0f MB | %13.1fx | %s\n' \
        "${names[$i]}" "$t" "$mbs" "$rps" "$(echo "${rss[$i]} / 1024" | bc -l)" "$ratio" ""
done
echo "(\"bletrace is\": that tool's wall time over bletrace's: how many times faster bletrace is;"
echo " a tool that crashed or failed has no figures)"
