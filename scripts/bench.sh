#!/usr/bin/env bash
# `make bench` (check) and `make bench-thresholds` (store): every benchmark of Benchmarks/ run
# once, stored as package-benchmark's baseline `gate`, then two gates on that one run
# (Benchmarks/README.md, "The gate"):
#   allocations: `benchmark thresholds check` against Benchmarks/Thresholds, which hold only
#     mallocCountTotal, with the tolerance each benchmark declares (the harness's own noise);
#   time: scripts/bench_ratios.py, each benchmark's CPU time (the codecs': wall time) over its
#     reference's in the same run
#     against Benchmarks/ratios.json.
# No time is stored: a faster or slower machine moves a benchmark and its reference alike.
# Usage: scripts/bench.sh check|store OUT-DIR [SWIFT PACKAGE FLAGS...]
#   (BLETRACE_BENCH_CAPTURE: the generated capture; SWIFT: the swift to run)
set -euo pipefail
mode=$1 out=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
cd "$root/Benchmarks"
benchmark() { "${SWIFT:-swift}" package --scratch-path ../.build-bench "$@"; }
run() { benchmark "${flags[@]}" --allow-writing-to-package-directory benchmark "$@" --no-progress; }
flags=("$@")

run baseline update gate
run baseline read gate --format jmh --path "$out" >/dev/null
results=$out/gate.jmh.json
[ -s "$results" ] || { echo "bench: package-benchmark wrote no $results"; exit 1; }

if [ "$mode" = store ]; then
  run thresholds update gate --path Thresholds
  # Keep the allocation counts only: wall time, throughput and the rest depend on the machine.
  python3 - Thresholds <<'PY'
import json, os, sys
for name in sorted(os.listdir(sys.argv[1])):
    path = os.path.join(sys.argv[1], name)
    counts = {k: v for k, v in json.load(open(path)).items() if k == "mallocCountTotal"}
    if counts:
        with open(path, "w") as out:
            json.dump(counts, out, indent=2, sort_keys=True)
            out.write("\n")
    else:
        os.remove(path)
PY
  python3 "$root/scripts/bench_ratios.py" store ratios.json "$results" \
    --note "$(date -u +%Y-%m-%d) $(git -C "$root" rev-parse --short HEAD) $(uname -m), $(nproc) cores"
  exit 0
fi

status=0
log=$out/thresholds-check.log
if ! run thresholds check gate --path Thresholds 2>&1 | tee "$log"; then
  if grep -q "is WORSE than" "$log"; then
    echo "bench: allocations past the stored counts (above): a regression"
    status=1
  elif grep -q "is BETTER than the defined thresholds" "$log"; then
    echo "bench: fewer allocations than stored (above): no regression; \`make bench-thresholds\` stores the new counts"
  else
    echo "bench: the allocation check failed (above)"
    status=1
  fi
fi
python3 "$root/scripts/bench_ratios.py" check ratios.json "$results" || status=1
exit $status
