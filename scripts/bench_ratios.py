#!/usr/bin/env python3
"""The time gate of `make bench`: each benchmark's time as a ratio to a reference measured
in the same run, so that a faster or slower machine moves both and the ratio stays.

Usage:
  scripts/bench_ratios.py check RATIOS.json RESULTS.jmh.json
  scripts/bench_ratios.py store RATIOS.json RESULTS.jmh.json [--note TEXT]
  scripts/bench_ratios.py table RATIOS.json RESULTS.jmh.json   (Benchmarks/README.md's figures)

RESULTS.jmh.json is package-benchmark's `--format jmh` export of one run (one element per
benchmark, `benchmark` named `package.benchmark.TARGET.NAME`, each metric's percentiles under
`secondaryMetrics[METRIC].scorePercentiles`). RATIOS.json (Benchmarks/ratios.json) lists, for each
gated benchmark `TARGET.NAME`, its `reference`, the `clock` compared, the ratio `measured` when it
was stored and the `margin` it may grow by: `check` fails (exit 1) when a ratio is past
measured × margin, or when a benchmark or its reference is missing from the run; `store` writes
this run's ratios as the new `measured` (after an intended change: `make bench-thresholds`).

The clock is the process's CPU time (`cpu`: Benchmarks/Sources/BenchGate) where a benchmark and
its reference both record it, the wall clock (`wall`) otherwise: the codecs' microsecond
iterations, which load rarely interrupts. CPU time is what the work costs whoever else runs; the
wall time of a 400 ms iteration on a busy machine is as much the load's. Each time is the fastest
iteration (p0): load only ever adds time, to the benchmark and its reference alike.
"""
import json
import sys

CLOCKS = {"cpu": "CPU time (process, ns)", "wall": "Time (wall clock)"}
PREFIX = "package.benchmark."


def measured(results):
    """Each element's name (`TARGET.NAME`) and the secondary metrics it measured itself.

    package-benchmark 1.38.1's JMH export gathers every element's secondary metrics in one
    dictionary it never empties, so an element also shows the metrics of the elements before it
    that it does not measure itself, copied as they were. A metric equal, to the last sample, to
    the one of the element before is such a copy, and is not read as this benchmark's."""
    previous = {}
    for element in results:
        name = element["benchmark"]
        name = name[len(PREFIX):] if name.startswith(PREFIX) else name
        metrics = element.get("secondaryMetrics") or {}
        own = {metric: value for metric, value in metrics.items() if previous.get(metric) != value}
        previous = metrics
        if "Time (wall clock)" not in own and element.get("primaryMetric", {}).get("scoreUnit") == "μs":
            own["Time (wall clock)"] = element["primaryMetric"]
        yield name, own


def fastest(results):
    """The fastest iteration's time of each benchmark by clock: {clock: {`TARGET.NAME`: time}}."""
    times = {clock: {} for clock in CLOCKS}
    for name, own in measured(results):
        for clock, metric in CLOCKS.items():
            if metric in own:
                times[clock][name] = float(own[metric]["scorePercentiles"]["0.0"])
    return times


def clock_of(benchmark, reference, times):
    """CPU time where both record it, else the wall clock."""
    cpu = times["cpu"]
    return "cpu" if cpu.get(benchmark, 0) > 0 and cpu.get(reference, 0) > 0 else "wall"


def ratios(spec, times):
    """(benchmark, reference, clock, ratio or None, limit) for each entry of the spec; a ratio
    measured on another clock than the one stored is None (store again)."""
    rows = []
    for entry in spec["ratios"]:
        benchmark, reference = entry["benchmark"], entry["reference"]
        limit = entry["measured"] * entry["margin"] if entry.get("measured") else float("inf")
        clock = clock_of(benchmark, reference, times)
        run = times[clock]
        if benchmark in run and run.get(reference, 0) > 0:
            rows.append((benchmark, reference, clock, run[benchmark] / run[reference], limit))
        else:
            rows.append((benchmark, reference, clock, None, limit))
    return rows


def table(spec, results, times):
    """The run as a Markdown table: each gated benchmark's fastest iteration on its clock (the
    codecs' per operation), its allocations (p90) and its ratio with the limit."""
    allocations = {
        name: own["Malloc (total)"]["scorePercentiles"]["90.0"]
        for name, own in measured(results)
        if "Malloc (total)" in own
    }
    gated = {row[0]: row for row in ratios(spec, times)}
    references = sorted({entry["reference"] for entry in spec["ratios"]})
    lines = ["| benchmark | fastest | mallocs | ratio (limit) |", "| --- | ---: | ---: | ---: |"]
    for name in [entry["benchmark"] for entry in spec["ratios"]] + references:
        clock = gated[name][2] if name in gated else clock_of(name, name, times)
        value = times[clock].get(name)
        if value is None:
            continue
        shown = f"{value / 1e6:,.1f} ms CPU" if clock == "cpu" else f"{value:,.1f} ns wall"
        ratio = f"{gated[name][3]:.2f} (≤ {gated[name][4]:.2f})" if name in gated else "reference"
        count = allocations.get(name)
        lines.append(f"| {name.split('.', 1)[1]} | {shown} | {'—' if count is None else f'{count:,.0f}'} | {ratio} |")
    print("\n".join(lines))


def main(argv):
    if len(argv) < 4 or argv[1] not in ("check", "store", "table"):
        sys.exit(__doc__)
    command, spec_path, results_path = argv[1], argv[2], argv[3]
    spec = json.load(open(spec_path))
    results = json.load(open(results_path))
    times = fastest(results)
    if command == "table":
        return table(spec, results, times)
    rows = ratios(spec, times)
    width = max(len(row[0]) for row in rows)
    failures = 0
    print(f"{'benchmark'.ljust(width)}  clock  {'ratio':>9}  {'limit':>9}  reference")
    for (benchmark, reference, clock, ratio, limit), entry in zip(rows, spec["ratios"]):
        if ratio is None:
            missing = benchmark if benchmark not in times[clock] else reference
            print(f"{benchmark.ljust(width)}  {clock:5}  {'-':>9}  {limit:9.3f}  {reference}  MISSING: {missing} is not in the run")
            failures += 1
            continue
        stored = entry.get("clock", "wall")
        verdict = "" if ratio <= limit or command == "store" else "  WORSE: past its limit"
        if command == "check" and stored != clock:
            verdict = f"  CLOCK: stored on the {stored} clock, measured on the {clock} clock (store again)"
        if verdict:
            failures += 1
        print(f"{benchmark.ljust(width)}  {clock:5}  {ratio:9.3f}  {limit:9.3f}  {reference}{verdict}")
    if command == "store":
        if failures:
            sys.exit(f"bench: {failures} benchmarks or references missing from the run; nothing stored")
        for entry, row in zip(spec["ratios"], rows):
            entry["clock"], entry["measured"] = row[2], round(row[3], 4)
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
