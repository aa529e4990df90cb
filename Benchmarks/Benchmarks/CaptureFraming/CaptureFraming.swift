// Whole files: btsnoop record framing alone (CaptureReader.next() over every record, and
// CaptureReader.forEach, which the analysis commands use), and decoding every layer with
// per-connection state as `bletrace stats`, `lifecycle`, `errors` and `gatt` do in process (the
// AnalysisPass: TraceDecoder + LifecycleAnalyzer + ErrorCollector per record, the commonest
// records in their quick form, then each command's collector), each with what the command then
// makes of it (counts; the lifecycle story; the findings of diagnose; the GATT listing; the error
// table), written to no output. One iteration = the whole generated capture
// (BLETRACE_BENCH_CAPTURE, default /tmp/bletrace-bench/capture-1M.btsnoop, made by `make bench`
// with generate-capture). Throughput is files per second; MB/s is the file size divided by the
// wall time (60.3 MB: 1 GB/s is 60 ms).
import Benchmark
import BenchGate
import BenchSupport

let capturePath = BenchCapture.path

let benchmarks: @Sendable () -> Void = {
    guard BenchCapture.isThere(for: "CaptureFraming") else { return }
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, processCPU, .throughput, .mallocCountTotal, .peakMemoryResident, .instructions],
        timeUnits: .milliseconds,
        maxDuration: .seconds(20),
        maxIterations: 5,
        // Allocations only: time is gated as a ratio to the framing pass (Benchmarks/ratios.json).
        // The harness and the prefetch thread move a file's count by up to 154 from run to run;
        // one allocation a connection adds 426, one a record 1,000,000.
        thresholds: [.mallocCountTotal: .init(absolute: [.p50: 256, .p90: 256])])

    Benchmark("btsnoop_framing_1M_records_CaptureReader") { benchmark in
        benchmark.measuringCPU {
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
    }

    Benchmark("btsnoop_framing_1M_records_forEach") { benchmark in
        benchmark.measuringCPU {
            do {
                let reader = try CaptureReader(path: capturePath)
                var records = 0
                var bytes = 0
                try reader.forEach { record in
                    records &+= 1
                    bytes &+= record.bytes.count
                }
                blackHole(records)
                blackHole(bytes)
            } catch { fatalError("\(error)") }
        }
    }

    // `bletrace stats`: every record counted by kind and ATT opcode (as `TraceStatistics.Counter` does).
    Benchmark("stats_path_1M_records_decoder_analyzer_errors") { benchmark in
        benchmark.measuringCPU {
            let (analysis, att) = analyze()
            blackHole(att)
            blackHole(analysis.lifecycle.connections.count)
            blackHole(analysis.errors.errors.count)
        }
    }

    // `bletrace lifecycle`: the report, its summary and the story's lines.
    Benchmark("lifecycle_1M_records_analysis_story") { benchmark in
        benchmark.measuringCPU {
            let analysis = analyzed()
            let report = analysis.lifecycle.report
            let summary = LifecycleSummary(
                connections: report.connections, scans: report.scans, errors: analysis.errors.errors)
            var characters = 0
            LifecycleStory(report: report, summary: summary).write { characters &+= $0.utf8.count }
            blackHole(characters)
        }
    }

    // `bletrace diagnose`: the findings (gathered in the same single pass by the analysis's
    // DiagnosisCollector, the rules applied once at the end) and the finding list's lines.
    Benchmark("diagnose_1M_records_analysis_findings") { benchmark in
        benchmark.measuringCPU {
            let analysis = analyzed()
            let findings = analysis.findings
            var characters = 0
            FindingList(
                findings: findings, origin: analysis.lifecycle.report.firstTime,
                names: analysis.lifecycle.names
            )
            .write { characters &+= $0.utf8.count }
            blackHole(characters)
        }
    }

    // `bletrace gatt`: each peer's databases, collected in the same pass as the lifecycles (a
    // notification's or a write's value read from its quick form), and the listing's lines.
    Benchmark("gatt_1M_records_analysis_listing") { benchmark in
        benchmark.measuringCPU {
            var gatt = GATTCollector()
            let pass = run(CaptureAnalyzer(diagnosing: false), &gatt)
            var characters = 0
            GATTListing(gatt.entries).write { characters &+= $0.utf8.count }
            blackHole(characters)
            blackHole(pass.analysis.lifecycle.connections.count)
        }
    }

    // `bletrace errors`: the error table's lines.
    Benchmark("errors_1M_records_analysis_table") { benchmark in
        benchmark.measuringCPU {
            let analysis = analyzed(diagnosing: false)
            var characters = 0
            ErrorTable(
                errors: analysis.errors.errors, origin: analysis.lifecycle.report.firstTime,
                names: analysis.lifecycle.names
            )
            .write { characters &+= $0.utf8.count }
            blackHole(characters)
        }
    }
}

/// The whole capture through the analysis pass, with the ATT PDUs counted by opcode as `bletrace
/// stats` counts them (and, as it, nothing gathered for diagnose).
func analyze() -> (CaptureAnalyzer, [Int]) {
    var opcodes = OpcodeCount()
    let pass = run(CaptureAnalyzer(diagnosing: false), &opcodes)
    return (pass.analysis, opcodes.att)
}

/// The whole capture through the analysis pass and nothing else, as `bletrace lifecycle`,
/// `errors` and `diagnose` read it (they count no opcodes; `errors` gathers nothing for diagnose).
func analyzed(diagnosing: Bool = true) -> CaptureAnalyzer {
    var none = NoCollector()
    return run(CaptureAnalyzer(diagnosing: diagnosing), &none).analysis
}

/// The analysis pass over the capture, its records handed to `collector`.
func run<Collector: RecordCollector>(_ analysis: CaptureAnalyzer, _ collector: inout Collector) -> AnalysisPass {
    do {
        var pass = AnalysisPass(reader: try AnalysisReader(path: capturePath), analysis: analysis)
        pass.run(&collector)
        if let fault = pass.fault { fatalError("\(fault)") }
        return pass
    } catch { fatalError("\(error)") }
}

/// ATT PDUs counted by opcode.
struct OpcodeCount: RecordCollector {
    var att = [Int](repeating: 0, count: 256)

    mutating func add(_ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer) {
        if let quick {
            if case .att(_, let opcode, _, _) = quick { att[Int(opcode.rawValue)] &+= 1 }
        } else if let pdu = analysis.decoded.att {
            att[Int(pdu.opcode.rawValue)] &+= 1
        }
    }
}
