// The replay, whole file: the generated capture (BLETRACE_BENCH_CAPTURE, 1,000,000 records of
// connections with discovery, reads, writes and notifications) loaded into a cassette in one pass,
// then played to the mirror app (the captured app's own requests at their times), its flow written
// as `bletrace replay` writes it (each event's line made as it happens, ``FlowWriter``), here to a
// sink that only counts the bytes. One iteration = the whole capture; the flow events it made are
// printed once, so that events per second is that count divided by the wall time
// (Benchmarks/README.md).
import Benchmark
import BenchGate
import BenchSupport
import Flow

let capturePath = BenchCapture.path

let benchmarks: @Sendable () -> Void = {
    // Swift concurrency's own cost a value, with no replay (RuntimeFloor.swift): 600,000 values
    // handed one at a time to a task on a first-in first-out executor drained after each.
    for (name, floor) in [
        ("runtime_floor_600k_asyncstream_values", RuntimeFloor.asyncStream),
        ("runtime_floor_600k_continuations", RuntimeFloor.continuations),
    ] {
        Benchmark(
            name,
            configuration: .init(
                metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .milliseconds,
                maxDuration: .seconds(20),
                maxIterations: 5,
                thresholds: [.mallocCountTotal: .init(relative: [.p50: 10.0, .p90: 10.0])])
        ) { benchmark in
            let values = floor(600_000)
            precondition(values == 600_000, "\(name): \(values) values of 600,000")
            blackHole(values)
        }
    }

    guard BenchCapture.isThere(for: "ReplayMirror") else { return }
    Benchmark.defaultConfiguration = .init(
        // Throughput (1 to 3 whole files a second) only because the JSON export the gate reads
        // needs it; CPU time beside the wall: when both move together, the machine's speed moved.
        metrics: [.wallClock, processCPU, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds,
        maxDuration: .seconds(60),
        maxIterations: 3,
        // Allocations only (threads make them vary a few per cent from run to run); time is gated
        // as a ratio to the framing pass (Benchmarks/ratios.json).
        thresholds: [.mallocCountTotal: .init(relative: [.p50: 10.0, .p90: 10.0])])

    Benchmark("cassette_load_1M_records") { benchmark in
        benchmark.measuringCPU {
            do {
                let (cassette, _) = try Cassette.load(path: capturePath)
                blackHole(cassette)
            } catch { fatalError("\(error)") }
        }
    }

    // The replay alone (the cassette is loaded outside the measurement).
    Benchmark("replay_1M_records_mirror") { benchmark in
        do {
            let (cassette, _) = try Cassette.load(path: capturePath)
            let app = ReferenceApps.named("mirror")!.make(for: cassette)
            var bytes = 0
            let writer = FlowWriter { bytes += $0.count }
            let engine = ReplayEngine(cassette: cassette)
            engine.writer = writer
            benchmark.startMeasuringCPU()
            let flow = await engine.run(app, name: "mirror")
            writer.flush()
            benchmark.stopMeasuringCPU()
            if benchmark.currentIteration == 0 {
                print(
                    "replay_1M_records_mirror: \(writer.lineCount) flow events, \(bytes) bytes of event lines, \(flow.comments.count) comments"
                )
            }
            blackHole(flow)
        } catch { fatalError("\(error)") }
    }

    // The same capture to the same app written twice (SubscriberApps.swift): with delegate
    // callbacks, and with Swift concurrency, whose tasks the replay runs on its own executor
    // before each event (Formats/flow.md). The flow is counted, not written.
    for (name, make) in [
        ("replay_1M_records_subscriber_callbacks", { CallbackSubscriber() as any BluetoothApp }),
        ("replay_1M_records_subscriber_async", { AsyncSubscriber() as any BluetoothApp }),
    ] {
        Benchmark(name) { benchmark in
            do {
                let (cassette, _) = try Cassette.load(path: capturePath)
                let app = make()
                let writer = FlowWriter { _ in }
                let engine = ReplayEngine(cassette: cassette)
                engine.writer = writer
                benchmark.startMeasuringCPU()
                let flow = await engine.run(app, name: name)
                writer.flush()
                benchmark.stopMeasuringCPU()
                if benchmark.currentIteration == 0 {
                    let values = (app as? any CountsValues)?.values ?? 0
                    print("\(name): \(writer.lineCount) flow events, \(values) values")
                }
                blackHole(flow)
            } catch { fatalError("\(error)") }
        }
    }
}
