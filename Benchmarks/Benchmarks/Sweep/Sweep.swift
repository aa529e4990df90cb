// The sweeps: a replay of about 1,100 flow events (the first 1,500 records of the generated
// capture: three connections with discovery, reads, writes and notifications), to the mirror app,
// swept with a termination at every kill point (about 1,160 replays of the whole run), and with a
// link loss at every point and a timeout on every request (the fault sweep: 2,425 faults, 533
// replayed); and the fault sweep of the steadfast app over every kind of fault on the bundled
// reconnect-supervision-timeout capture (107 faults, 100 replayed). One iteration = the whole
// sweep, on every core; each prints its number of replays once, for replays a second.
import Benchmark
import BenchGate
import BenchSupport
import Foundation

let capturePath = BenchCapture.path

/// The first `count` records of a btsnoop file as a btsnoop file of their own (16-byte header,
/// then records of a 24-byte header and their bytes).
func head(of path: String, records count: Int) throws -> String {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var end = 16
    for _ in 0..<count {
        guard end + 24 <= data.count else { break }
        let length = data[(end + 4)..<(end + 8)].reduce(0) { $0 << 8 | Int($1) }
        end += 24 + length
    }
    let out = NSTemporaryDirectory() + "bletrace-sweep-\(count).btsnoop"
    try data.prefix(end).write(to: URL(fileURLWithPath: out))
    return out
}

let benchmarks: @Sendable () -> Void = {
    guard BenchCapture.isThere(for: "Sweep") else { return }
    Benchmark.defaultConfiguration = .init(
        // Throughput only because the JSON export the gate reads needs it. Nothing stored: time
        // is gated as a ratio to the framing pass (Benchmarks/ratios.json).
        metrics: [.wallClock, processCPU, .throughput, .peakMemoryResident],
        timeUnits: .milliseconds,
        maxDuration: .seconds(60),
        maxIterations: 3,
        thresholds: [:])

    Benchmark("fault_sweep_linkloss_timeout_1100_events_mirror") { benchmark in
        do {
            let (cassette, _) = try Cassette.load(path: try head(of: capturePath, records: 1_500))
            let mirror = ReferenceApps.named("mirror")!
            benchmark.startMeasuringCPU()
            let sweep = await FaultSweep.run(cassette, app: mirror, families: [.linkLoss, .timeout])
            benchmark.stopMeasuringCPU()
            if benchmark.currentIteration == 0 {
                print(
                    "fault_sweep_linkloss_timeout_1100_events_mirror: \(sweep.runs.count) faults, \(sweep.replayed + 1) replays"
                )
            }
            blackHole(sweep)
        } catch { fatalError("\(error)") }
    }

    Benchmark("fault_sweep_all_steadfast_bundled_capture") { benchmark in
        do {
            let bundled = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../../Captures/reconnect-supervision-timeout.btsnoop"
            ).standardizedFileURL.path
            let (cassette, _) = try Cassette.load(path: bundled)
            let steadfast = ReferenceApps.named("steadfast")!
            benchmark.startMeasuringCPU()
            let sweep = await FaultSweep.run(cassette, app: steadfast, families: .all)
            benchmark.stopMeasuringCPU()
            if benchmark.currentIteration == 0 {
                print(
                    "fault_sweep_all_steadfast_bundled_capture: \(sweep.runs.count) faults, \(sweep.replayed + 1) replays"
                )
            }
            blackHole(sweep)
        } catch { fatalError("\(error)") }
    }

    Benchmark("sweep_terminate_1100_events_mirror") { benchmark in
        do {
            let (cassette, _) = try Cassette.load(path: try head(of: capturePath, records: 1_500))
            let mirror = ReferenceApps.named("mirror")!
            benchmark.startMeasuringCPU()
            let sweep = await KillPointSweep.run(cassette, app: mirror)
            benchmark.stopMeasuringCPU()
            if benchmark.currentIteration == 0 {
                print("sweep_terminate_1100_events_mirror: \(sweep.points.count) kill points")
            }
            blackHole(sweep)
        } catch { fatalError("\(error)") }
    }
}
