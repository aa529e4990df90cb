#!/usr/bin/env bash
# compare.sh FILE: time bletrace against tshark and btmon on the same capture, side by side in
# one run, each bletrace command against the tshark output that does the same job:
#   bletrace stats                  vs  tshark -T fields (frame number and ATT opcode)
#   bletrace decode                 vs  tshark -r (its one-line summary per frame)
#   bletrace decode --format jsonl  vs  tshark -T json
#   bletrace decode -v              vs  tshark -V, and btmon -r (both every field of every layer)
# The file is read once first, so that every tool finds it in the page cache.
# Needs BLETRACE (path of a release bletrace); RECORDS (records in FILE) is counted by
# `bletrace info` when not given. Each tool runs under
# /usr/bin/time -v (wall time, peak RSS), output to /dev/null: bletrace's short runs three or five
# times, reporting the median run (a run is short, so one is noisy); the others once.
set -u
file=$1
size=$(stat -c %s "$file")
records=${RECORDS:-$("$BLETRACE" info --format json "$file" | python3 -c 'import json, sys; print(json.load(sys.stdin)["records"])')}
declare -a names times rss notes versus

run() {  # run NAME VERSUS REPEAT COMMAND...: the median of REPEAT runs (REPEAT odd); VERSUS is
         # the row number of the bletrace command this one is compared with (- for none)
    local name=$1 against=$2 repeat=$3; shift 3
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
    rss+=("$kb"); notes+=("$note"); versus+=("$against")
    rm -f "$log"
}

cat "$file" > /dev/null
run "bletrace stats" - 5 "$BLETRACE" stats "$file"
run "tshark -T fields" 0 1 tshark -r "$file" -T fields -e frame.number -e btatt.opcode
run "bletrace decode" - 3 "$BLETRACE" decode "$file"
run "tshark summary" 2 1 tshark -r "$file"
run "bletrace decode --format jsonl" - 3 "$BLETRACE" decode --format jsonl "$file"
run "tshark -T json" 4 1 tshark -r "$file" -T json
run "bletrace decode -v" - 3 "$BLETRACE" decode -v "$file"
run "tshark -V" 6 1 tshark -r "$file" -V
run "btmon -r" 6 1 btmon -r "$file"

printf '\n%s: %d records, %.1f MB\n\n' "$file" "$records" "$(echo "$size / 1000000" | bc -l)"
printf '| %-30s | %9s | %9s | %12s | %10s | %-36s | %s\n' tool "wall s" "MB/s" "records/s" "peak RSS" "bletrace is" note
printf '| %-30s | %9s | %9s | %12s | %10s | %-36s | %s\n' --- ---: ---: ---: ---: --- ---
for i in "${!names[@]}"; do
    t=${times[$i]}
    mbs=$(echo "$size / 1000000 / $t" | bc -l 2>/dev/null)
    rps=$(echo "$records / $t" | bc -l 2>/dev/null)
    if [ -n "${notes[$i]}" ]; then  # a crash or a failure: no speed to report
        printf '| %-30s | %9s | %9s | %12s | %10s | %-36s | %s\n' "${names[$i]}" — — — — — "${notes[$i]}"
        continue
    fi
    ratio=""
    if [ "${versus[$i]}" != - ]; then
        j=${versus[$i]}
        ratio=$(printf '%.1fx faster than it (%s)' "$(echo "$t / ${times[$j]}" | bc -l)" "${names[$j]#bletrace }")
    fi
    printf '| %-30s | %9.3f | %9.1f | %12.0f | %7.0f MB | %-36s | %s\n' \
        "${names[$i]}" "$t" "$mbs" "$rps" "$(echo "${rss[$i]} / 1024" | bc -l)" "$ratio" ""
done
echo "(\"bletrace is\": this tool's wall time over that of the bletrace command named, which does the"
echo " same job: how many times faster bletrace is; a tool that crashed or failed has no figures)"
