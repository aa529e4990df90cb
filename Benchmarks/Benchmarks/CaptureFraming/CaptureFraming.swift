// Whole files: btsnoop record framing alone (CaptureReader.next() over every record), and
// decoding every layer with per-connection state, the same path as `bletrace stats`
// (TraceDecoder + LifecycleAnalyzer + ErrorCollector per record). One iteration = the whole
// generated capture (BLETRACE_BENCH_CAPTURE, default /tmp/bletrace-bench/capture-1M.btsnoop,
// made by `make bench` with generate-capture). Throughput is files per second; MB/s is the file
// size divided by the wall time.
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
        print("CaptureFraming: \(capturePath) is missing; run `make bench` (it generates it) or generate-capture")
        return
    }
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident, .instructions],
        timeUnits: .milliseconds,
        maxDuration: .seconds(20),
        maxIterations: 5,
        thresholds: [
            .wallClock: .init(relative: [.p50: 25.0]),
            .throughput: .init(relative: [.p50: 25.0]),
            .instructions: .init(relative: [.p50: 10.0]),
            .mallocCountTotal: .init(relative: [.p50: 5.0]),
            .peakMemoryResident: .init(relative: [.p50: 25.0]),
        ])

    Benchmark("btsnoop_framing_1M_records_CaptureReader") { benchmark in
        do {
            let reader = try CaptureReader(path: capturePath)
            var records = 0
            var bytes = 0
            while let record = try reader.next() {
                records &+= 1
                bytes &+= record.bytes.count
            }
            blackHole(records)
            blackHole(bytes)
        } catch { fatalError("\(error)") }
    }

    Benchmark("stats_path_1M_records_decoder_analyzer_errors") { benchmark in
        do {
            let reader = try CaptureReader(path: capturePath)
            var decoder = TraceDecoder()
            var analyzer = LifecycleAnalyzer()
            var collector = ErrorCollector()
            var att = 0
            while let record = try reader.next() {
                let decoded = decoder.decode(record)
                analyzer.add(record, decoded)
                collector.add(record, decoded, analyzer: analyzer)
                if decoded.att != nil { att &+= 1 }
            }
            blackHole(att)
            blackHole(analyzer)
            blackHole(collector)
        } catch { fatalError("\(error)") }
    }
}
