#!/usr/bin/env bash
# `make picture`: the lifecycle timeline of a capture (bletrace lifecycle --format html) in
# OUT/timeline.html, screenshotted by headless Chromium to OUT/timeline.png, and checked not to
# be blank (scripts/check-png.py).
# Usage: scripts/picture.sh BLETRACE CAPTURE OUT-DIR
set -euo pipefail
bin=$1 capture=$2 out=$3
mkdir -p "$out"
out=$(cd "$out" && pwd)
"$bin" lifecycle "$capture" --format html > "$out/timeline.html"
rm -f "$out/timeline.png"
chromium --headless --no-sandbox --disable-gpu --screenshot="$out/timeline.png" \
  --window-size=1400,900 "file://$out/timeline.html" >/dev/null 2>&1 || true
test -s "$out/timeline.png" || { echo "chromium wrote no screenshot" >&2; exit 1; }
file "$out/timeline.png"
python3 "$(dirname "$0")/check-png.py" "$out/timeline.png"
