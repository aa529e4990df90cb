#!/usr/bin/env bash
# compare.sh FILE: time `bletrace stats` against tshark and btmon on the same capture.
# Needs BLETRACE (path of a release bletrace) and RECORDS (records in FILE). Each tool runs once
# under /usr/bin/time -v (wall time, peak RSS); output goes to /dev/null.
set -u
file=$1
size=$(stat -c %s "$file")
records=${RECORDS:?}
declare -a names times rss notes

run() {  # run NAME COMMAND...
    local name=$1; shift
    local log; log=$(mktemp)
    /usr/bin/time -v "$@" > /dev/null 2> "$log"
    local code=$?
    local wall; wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
    # h:mm:ss or m:ss.ss to seconds
    local secs; secs=$(echo "$wall" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
    local kb; kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    local note=""
    if grep -q "Command terminated by signal" "$log"; then
        note="CRASHED ($(grep -o 'signal [0-9]*' "$log" | head -1))"
    elif [ $code -ne 0 ]; then note="exit $code"; fi
    names+=("$name"); times+=("$secs"); rss+=("$kb"); notes+=("$note")
    rm -f "$log"
}

run "bletrace stats" "$BLETRACE" stats "$file"
run "tshark -T fields" tshark -r "$file" -T fields -e frame.number -e btatt.opcode
run "tshark summary" tshark -r "$file"
run "btmon -r" btmon -r "$file"

printf '\n%s: %d records, %.1f MB\n\n' "$file" "$records" "$(echo "$size / 1000000" | bc -l)"
printf '| %-18s | %9s | %9s | %12s | %10s | %14s | %s\n' tool "wall s" "MB/s" "records/s" "peak RSS" "bletrace is" note
printf '| %-18s | %9s | %9s | %12s | %10s | %14s | %s\n' --- ---: ---: ---: ---: ---: ---
base=${times[0]}
for i in "${!names[@]}"; do
    t=${times[$i]}
    mbs=$(echo "$size / 1000000 / $t" | bc -l 2>/dev/null)
    rps=$(echo "$records / $t" | bc -l 2>/dev/null)
    ratio=$(echo "$t / $base" | bc -l 2>/dev/null)
    printf '| %-18s | %9.2f | %9.1f | %12.0f | %7.0f MB | %13.1fx | %s\n' \
        "${names[$i]}" "$t" "$mbs" "$rps" "$(echo "${rss[$i]} / 1024" | bc -l)" "$ratio" "${notes[$i]}"
done
echo "(\"bletrace is\": that tool's wall time over bletrace's: how many times faster bletrace is;"
echo " a crashed tool's time is until the crash, over the part it read)"
