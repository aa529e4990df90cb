#!/usr/bin/env python3
"""The time gate of `make bench`: each benchmark's wall time as a ratio to a reference measured
in the same run, so that a faster or slower machine moves both and the ratio stays.

Usage:
  scripts/bench_ratios.py check RATIOS.json RESULTS.jmh.json
  scripts/bench_ratios.py store RATIOS.json RESULTS.jmh.json [--note TEXT]

RESULTS.jmh.json is package-benchmark's `--format jmh` export of one run (one element per
benchmark, `benchmark` named `package.benchmark.TARGET.NAME`, the wall clock under
`secondaryMetrics["Time (wall clock)"].scorePercentiles`). RATIOS.json (Benchmarks/ratios.json)
lists, for each gated benchmark `TARGET.NAME`, its `reference`, the ratio `measured` when it was
stored and the `margin` it may grow by: `check` fails (exit 1) when a ratio is past
measured × margin, or when a benchmark or its reference is missing from the run; `store` writes
this run's ratios as the new `measured` (after an intended change: `make bench-thresholds`).

Each time is the fastest iteration (p0): on a machine shared with other work, load only ever adds
time, so the fastest iteration is the one least disturbed, for the benchmark and its reference
alike.
"""
import json
import sys

WALL = "Time (wall clock)"
PREFIX = "package.benchmark."


def fastest(results):
    """The fastest iteration's wall time of each benchmark, by `TARGET.NAME`."""
    times = {}
    for element in results:
        name = element["benchmark"]
        name = name[len(PREFIX):] if name.startswith(PREFIX) else name
        wall = (element.get("secondaryMetrics") or {}).get(WALL)
        if wall is None and element.get("primaryMetric", {}).get("scoreUnit") == "μs":
            wall = element["primaryMetric"]
        if wall is not None:
            times[name] = float(wall["scorePercentiles"]["0.0"])
    return times


def ratios(spec, times):
    """(benchmark, reference, ratio or None, limit) for each entry of the spec."""
    rows = []
    for entry in spec["ratios"]:
        benchmark, reference = entry["benchmark"], entry["reference"]
        limit = entry["measured"] * entry["margin"] if entry.get("measured") else float("inf")
        if benchmark in times and times.get(reference, 0) > 0:
            rows.append((benchmark, reference, times[benchmark] / times[reference], limit))
        else:
            rows.append((benchmark, reference, None, limit))
    return rows


def main(argv):
    if len(argv) < 4 or argv[1] not in ("check", "store"):
        sys.exit(__doc__)
    command, spec_path, results_path = argv[1], argv[2], argv[3]
    spec = json.load(open(spec_path))
    times = fastest(json.load(open(results_path)))
    rows = ratios(spec, times)
    width = max(len(row[0]) for row in rows)
    failures = 0
    print(f"{'benchmark'.ljust(width)}  {'ratio':>9}  {'limit':>9}  reference")
    for benchmark, reference, ratio, limit in rows:
        if ratio is None:
            missing = benchmark if benchmark not in times else reference
            print(f"{benchmark.ljust(width)}  {'-':>9}  {limit:9.3f}  {reference}  MISSING: {missing} is not in the run")
            failures += 1
            continue
        verdict = "" if ratio <= limit or command == "store" else "  WORSE: past its limit"
        if verdict:
            failures += 1
        print(f"{benchmark.ljust(width)}  {ratio:9.3f}  {limit:9.3f}  {reference}{verdict}")
    if command == "store":
        if failures:
            sys.exit(f"bench: {failures} benchmarks or references missing from the run; nothing stored")
        for entry, row in zip(spec["ratios"], rows):
            entry["measured"] = round(row[2], 4)
        if "--note" in argv:
            spec["measured_on"] = argv[argv.index("--note") + 1]
        with open(spec_path, "w") as out:
            json.dump(spec, out, indent=2, ensure_ascii=False)
            out.write("\n")
        print(f"bench: {len(rows)} ratios stored in {spec_path}")
        return 0
    if failures:
        print(f"bench: {failures} of {len(rows)} time ratios past their limit (a regression, or a missing benchmark)")
        return 1
    print(f"bench: {len(rows)} time ratios within their limits")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
