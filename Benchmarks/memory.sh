#!/usr/bin/env bash
# memory.sh FILE...: peak memory (and wall time) of bletrace stats, decode (text and JSONL),
# lifecycle and errors on each capture, and of `bletrace replay` (to the mirror app, its flow
# streamed) on the first one, one run each under /usr/bin/time -v, output to /dev/null. Needs
# BLETRACE (a release bletrace). With LIMIT_MB set, exits 1 when `bletrace stats` or
# `bletrace decode` on the last (largest) file peaks at LIMIT_MB or more: peak memory must not
# grow with the file.
set -u
printf '| %-20s | %7s | %-34s | %7s | %9s | %10s |\n' file "MB" command "wall s" "MB/s" "peak RSS"
printf '| %-20s | %7s | %-34s | %7s | %9s | %10s |\n' --- ---: --- ---: ---: ---:
declare -A last_kb
for file in "$@"; do
    size=$(stat -c %s "$file")
    cat "$file" > /dev/null  # into the page cache: the times are bletrace's, not the disk's
    commands=("stats" "decode" "decode --format jsonl" "lifecycle --format json" "errors --format json")
    # The replay holds the cassette (every answer and notification of the capture): the first,
    # smaller file only.
    [ "$file" = "$1" ] && commands+=("replay")
    for command in "${commands[@]}"; do
        log=$(mktemp)
        # shellcheck disable=SC2086
        start=$(date +%s%N)
        /usr/bin/time -v "$BLETRACE" $command "$file" > /dev/null 2> "$log"
        code=$?
        wall=$(echo "($(date +%s%N) - $start) / 1000000000" | bc -l)
        kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
        rm -f "$log"
        if [ "$code" -ne 0 ]; then echo "bletrace $command $file: exit $code" >&2; exit 1; fi
        printf '| %-20s | %7.1f | %-34s | %7.3f | %9.0f | %7.1f MB |\n' "$(basename "$file")" \
            "$(echo "$size / 1000000" | bc -l)" "bletrace $command" "$wall" \
            "$(echo "$size / 1000000 / $wall" | bc -l)" "$(echo "$kb / 1024" | bc -l)"
        [ "$file" = "${!#}" ] && case "$command" in stats | decode*) last_kb[$command]=$kb ;; esac
    done
done
failed=0
if [ -n "${LIMIT_MB:-}" ]; then
    for command in "${!last_kb[@]}"; do
        if [ "${last_kb[$command]}" -ge $((LIMIT_MB * 1024)) ]; then
            echo "bletrace $command peaked at $((last_kb[$command] / 1024)) MB on $(basename "${!#}"): the limit is $LIMIT_MB MB" >&2
            failed=1
        fi
    done
fi
exit $failed
