// The CPU time the time gate compares (scripts/bench_ratios.py, Benchmarks/README.md "The gate").
//
// On a machine other work loads, a benchmark's wall time measures the load as much as the work:
// the fastest of a few 40-400 ms iterations is rarely undisturbed, while its 9 ms reference often
// is, and their ratio moved by half from a quiet minute to a busy one. The CPU time the process
// spent is what the work costs, whoever else runs. package-benchmark's own `cpuTotal` counts
// scheduler ticks (10 ms here), too coarse for these runs; `CLOCK_PROCESS_CPUTIME_ID` counts
// nanoseconds, over every thread of the process (the reader's prefetch, the replay's executor).
import Benchmark

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's CPU time over what a benchmark measures, in nanoseconds.
public let processCPU = BenchmarkMetric.custom("CPU time (process, ns)", polarity: .prefersSmaller)

/// The CPU time every thread of the process has used so far, in nanoseconds.
public func processCPUNanoseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Int(now.tv_sec) &* 1_000_000_000 &+ Int(now.tv_nsec)
}

/// When the CPU clock was started (benchmarks run one at a time).
nonisolated(unsafe) private var startedAt = 0

extension Benchmark {
    /// `startMeasurement()`, and the CPU clock with it.
    public func startMeasuringCPU() {
        startMeasurement()
        startedAt = processCPUNanoseconds()
    }

    /// `stopMeasurement()`, recording the CPU time since ``startMeasuringCPU()`` as ``processCPU``.
    public func stopMeasuringCPU() {
        let used = processCPUNanoseconds() - startedAt
        stopMeasurement()
        measurement(processCPU, used)
    }

    /// Runs `work` between ``startMeasuringCPU()`` and ``stopMeasuringCPU()``.
    public func measuringCPU<T>(_ work: () throws -> T) rethrows -> T {
        startMeasuringCPU()
        defer { stopMeasuringCPU() }
        return try work()
    }
}
