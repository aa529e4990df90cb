// The replay, whole file: the generated capture (BLETRACE_BENCH_CAPTURE, 1,000,000 records of
// connections with discovery, reads, writes and notifications) loaded into a cassette in one pass,
// then played to the mirror app (the captured app's own requests at their times). One iteration
// = the whole capture; the flow events it made are printed once, so that events per second is
// wall time divided into that count (Benchmarks/README.md).
import Benchmark
import BenchSupport
#if canImport(Glibc)
import Glibc
#endif

let capturePath: String = {
    if let value = getenv("BLETRACE_BENCH_CAPTURE") { return String(cString: value) }
    return "/tmp/bletrace-bench/capture-1M.btsnoop"
}()

let benchmarks: @Sendable () -> Void = {
    guard access(capturePath, R_OK) == 0 else {
        print("Replay: \(capturePath) is missing; run `make bench` (it generates it) or generate-capture")
        return
    }
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds,
        maxDuration: .seconds(60),
        maxIterations: 3,
        thresholds: [
            .wallClock: .init(relative: [.p50: 25.0]),
            .throughput: .init(relative: [.p50: 25.0]),
            .mallocCountTotal: .init(relative: [.p50: 10.0]),
            .peakMemoryResident: .init(relative: [.p50: 25.0]),
        ])

    Benchmark("cassette_load_1M_records") { benchmark in
        do {
            let (cassette, _) = try Cassette.load(path: capturePath)
            blackHole(cassette)
        } catch { fatalError("\(error)") }
    }

    Benchmark("replay_1M_records_mirror") { benchmark in
        do {
            let (cassette, _) = try Cassette.load(path: capturePath)
            let app = ReferenceApps.named("mirror")!.make(for: cassette)
            benchmark.startMeasurement()
            let flow = await ReplayEngine(cassette: cassette).run(app, name: "mirror")
            benchmark.stopMeasurement()
            if benchmark.currentIteration == 0 { print("replay_1M_records_mirror: \(flow.events.count) flow events") }
            blackHole(flow)
        } catch { fatalError("\(error)") }
    }
}
