#!/usr/bin/env bash
# many.sh FILE: many captures at once. Four copies of FILE (hard links) in a directory, analysed by
# bletrace with one worker (--jobs 1) and with one per processor (the default), output to
# /dev/null: the median of three runs each, and the speed-up. Needs BLETRACE (a release bletrace).
set -u
file=$1
dir=$(dirname "$file")/many
rm -rf "$dir"; mkdir -p "$dir"
for n in 1 2 3 4; do ln "$file" "$dir/copy-$n.btsnoop" 2>/dev/null || cp "$file" "$dir/copy-$n.btsnoop"; done
cat "$dir"/*.btsnoop > /dev/null
cores=$(nproc)
median() {  # median wall seconds of three runs of a command
    local -a runs=()
    for _ in 1 2 3; do
        local start; start=$(date +%s%N)
        "$@" > /dev/null 2>&1
        runs+=("$(echo "($(date +%s%N) - $start) / 1000000000" | bc -l)")
    done
    printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p
}
size=$(( $(stat -c %s "$file") * 4 ))
printf '\n%s: 4 copies of %s, %.1f MB in all, %d processors\n\n' "$dir" "$(basename "$file")" "$(echo "$size / 1000000" | bc -l)" "$cores"
printf '| %-32s | %12s | %12s | %8s |\n' command "--jobs 1 s" "--jobs $cores s" speed-up
printf '| %-32s | %12s | %12s | %8s |\n' --- ---: ---: ---:
for command in "stats" "errors --format jsonl" "lifecycle --format jsonl" "decode --format jsonl"; do
    # shellcheck disable=SC2086
    one=$(median "$BLETRACE" $command --jobs 1 "$dir")
    # shellcheck disable=SC2086
    all=$(median "$BLETRACE" $command "$dir")
    printf '| %-32s | %12.3f | %12.3f | %7.2fx |\n' "bletrace $command" "$one" "$all" "$(echo "$one / $all" | bc -l)"
done
rm -rf "$dir"
