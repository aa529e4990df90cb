// Whole files through `bletrace decode`'s path: TraceDecoder + LifecycleAnalyzer (each ATT
// response read knowing its request) + DecodeLineFormatter or DecodeJSONFormatter writing every
// record's text line or JSON line into one reused LineBuffer, emptied every 64 KB as the command
// hands it to the output.
// One iteration = the whole generated capture (BLETRACE_BENCH_CAPTURE, default
// /tmp/bletrace-bench/capture-1M.btsnoop). mallocCountTotal shows that no record allocates.
import Benchmark
import BenchGate
import BenchSupport
import BLETrace

let capturePath = BenchCapture.path

enum Lines { case text, jsonl }

/// Decodes and formats the whole capture; returns the bytes written.
func decode(_ lines: Lines) -> Int {
    do {
        let reader = try CaptureReader(path: capturePath)
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        var buffer = LineBuffer()
        var origin: Timestamp?
        var written = 0
        while let record = try reader.next() {
            let decoded = decoder.decode(record)
            analyzer.add(record, decoded)
            if origin == nil { origin = record.timestamp }
            switch lines {
            case .text:
                DecodeLineFormatter.write(
                    record, decoded, answering: analyzer.lastAnswered, origin: origin!, to: &buffer)
            case .jsonl:
                DecodeJSONFormatter.write(record, decoded, answering: analyzer.lastAnswered, version: 2, to: &buffer)
            }
            if buffer.count >= 1 << 16 {
                written &+= buffer.count
                buffer.removeAll()
            }
        }
        return written &+ buffer.count
    } catch { fatalError("\(error)") }
}

let benchmarks: @Sendable () -> Void = {
    guard BenchCapture.isThere(for: "DecodeLines") else { return }
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, processCPU, .throughput, .mallocCountTotal, .peakMemoryResident, .instructions],
        timeUnits: .milliseconds,
        maxDuration: .seconds(20),
        maxIterations: 5,
        // Allocations only: time is gated as a ratio to the framing pass (Benchmarks/ratios.json).
        // The harness and the prefetch thread move a file's count by up to 154 from run to run;
        // one allocation a connection adds 426, one a record 1,000,000.
        thresholds: [.mallocCountTotal: .init(absolute: [.p50: 256, .p90: 256])])

    Benchmark("decode_text_1M_records") { benchmark in
        benchmark.measuringCPU {
            blackHole(decode(.text))
        }
    }

    Benchmark("decode_jsonl_1M_records") { benchmark in
        benchmark.measuringCPU {
            blackHole(decode(.jsonl))
        }
    }
}
