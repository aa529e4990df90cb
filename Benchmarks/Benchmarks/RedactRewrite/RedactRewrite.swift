// Whole files rewritten (issue 44): `bletrace redact` against `bletrace convert` on the same
// capture in the same run, both writing pcapng (link type 201) to /dev/null. Redact reads the
// capture twice as the command does (a scouting pass learns every address from the fields, the
// second redacts and writes); convert reads it once. One iteration = the whole generated
// capture (BLETRACE_BENCH_CAPTURE, default /tmp/bletrace-bench/capture-1M.btsnoop, made by
// `make bench` with generate-capture).
// Time is gated as redact's CPU time over convert's (Benchmarks/ratios.json), allocations as
// counts (Thresholds/: redact's are its address map and per-connection state): one allocation a
// record would add 1,000,000.
import Benchmark
import BenchGate
import BenchSupport

let capturePath = BenchCapture.path

let benchmarks: @Sendable () -> Void = {
    guard BenchCapture.isThere(for: "RedactRewrite") else { return }
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, processCPU, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds,
        maxDuration: .seconds(30),
        maxIterations: 5,
        // Allocations only (time is a ratio), with the harness's run-to-run noise (up to 154 in
        // CaptureFraming) and the dictionaries' growth as slack.
        thresholds: [.mallocCountTotal: .init(absolute: [.p50: 1_000, .p90: 1_000])])

    // `bletrace convert capture.btsnoop -o out.pcapng`: read, write.
    Benchmark("convert_1M_records_btsnoop_to_pcapng") { benchmark in
        benchmark.measuringCPU {
            blackHole(rewrite(redacting: false))
        }
    }

    // `bletrace redact capture.btsnoop -o out.pcapng`: the scouting pass, then read, redact, write.
    Benchmark("redact_1M_records_btsnoop_to_pcapng") { benchmark in
        benchmark.measuringCPU {
            blackHole(rewrite(redacting: true))
        }
    }
}

/// The capture written as pcapng to /dev/null, redacted or as it is; the records written.
func rewrite(redacting: Bool) -> Int {
    do {
        var redactor: Redactor?
        if redacting {
            let scout = Redactor(scouting: true)
            try CaptureReader(path: capturePath).forEach { _ = scout.redact(copy $0) }
            redactor = Redactor()
            redactor!.knowAddresses(of: scout)
        }
        let reader = try CaptureReader(path: capturePath)
        let writer = try CaptureWriter(path: "/dev/null", format: .pcapng(linkType: 201))
        while let record = try reader.next() {
            if let redactor {
                guard let made = redactor.redact(record) else { continue }
                try writer.write(made)
            } else {
                try writer.write(record)
            }
        }
        try writer.close()
        return writer.recordsWritten
    } catch { fatalError("\(error)") }
}
