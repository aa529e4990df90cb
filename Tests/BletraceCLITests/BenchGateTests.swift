import Foundation
import TestSupport
import Testing

/// The time gate of `make bench` (`scripts/bench_ratios.py`, Benchmarks/README.md, "The gate"),
/// fed package-benchmark JSON exports made up here: a machine twice as slow passes, a benchmark
/// that regresses against its reference fails, and so does a run that lacks a benchmark.
@Suite struct BenchGateTests {
    static let script = Fixtures.packageRoot.appendingPathComponent("scripts/bench_ratios.py").path

    /// Two gated benchmarks, one against a reference in its own target and one in another's.
    static let spec = """
        {"ratios": [
          {"benchmark": "ATTCodec.ATT_decode_notification_20B", "reference": "ATTCodec.reference_hash_notification_20B", "measured": 0.5, "margin": 1.5},
          {"benchmark": "ReplayMirror.replay_1M_records_mirror", "reference": "CaptureFraming.btsnoop_framing_1M_records_forEach", "measured": 20.0, "margin": 2.0}
        ]}
        """

    /// One JMH element as package-benchmark 1.38.1 writes it, the wall clock in µs: `fastest` is
    /// the p0 the gate reads, the other iterations slower.
    static func element(_ name: String, fastest: Double) -> String {
        let wall = """
            {"score": \(fastest * 1.2), "scoreError": 0, "scoreConfidence": [0, 0], "scoreUnit": "μs",
             "scorePercentiles": {"0.0": \(fastest), "50.0": \(fastest * 1.1), "90.0": \(fastest * 1.5), "100.0": \(fastest * 2)},
             "rawData": [[\(fastest), \(fastest * 1.1), \(fastest * 2)]]}
            """
        return """
            {"benchmark": "package.benchmark.\(name)", "mode": "thrpt", "threads": 1, "forks": 1,
             "warmupIterations": 1, "warmupTime": "1 s", "warmupBatchSize": 1, "measurementIterations": 3,
             "measurementTime": "1 s", "measurementBatchSize": 1,
             "primaryMetric": {"score": 5, "scoreError": 0, "scoreConfidence": [0, 0], "scoreUnit": "# / s",
                               "scorePercentiles": {"0.0": 5}, "rawData": [[5]]},
             "secondaryMetrics": {"Time (wall clock)": \(wall), "Malloc (total)": {"score": 16, "scoreError": 0,
                               "scoreConfidence": [0, 0], "scoreUnit": "#", "scorePercentiles": {"0.0": 16}, "rawData": [[16]]}}}
            """
    }

    /// The gate's exit status and output on a run whose fastest times are `times` (µs).
    static func check(_ times: [String: Double]) throws -> ProcessResult {
        let python = try #require(which("python3"), "python3 is missing: scripts/bench_ratios.py needs it")
        let results =
            "[" + times.sorted { $0.key < $1.key }.map { element($0.key, fastest: $0.value) }.joined(separator: ",")
            + "]"
        let resultsPath = try Fixtures.temporaryFile(Array(results.utf8), name: "gate.jmh.json")
        let specPath = try Fixtures.temporaryFile(Array(spec.utf8), name: "ratios.json")
        return try run(python, [script, "check", specPath, resultsPath])
    }

    /// The times of a run on the machine the ratios were stored on: each ratio as measured.
    static let stored: [String: Double] = [
        "ATTCodec.ATT_decode_notification_20B": 5_000, "ATTCodec.reference_hash_notification_20B": 10_000,
        "ReplayMirror.replay_1M_records_mirror": 400_000, "CaptureFraming.btsnoop_framing_1M_records_forEach": 20_000,
    ]

    @Test func aRunAsStoredPasses() throws {
        let result = try Self.check(Self.stored)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("2 time ratios within their limits"))
    }

    @Test(arguments: [2.0, 0.4])
    func aMachineTwiceAsSlowOrMuchFasterPasses(_ factor: Double) throws {
        let result = try Self.check(Self.stored.mapValues { $0 * factor })
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    @Test func aBenchmarkSlowerAgainstItsReferenceFails() throws {
        // The replay 2.5 times slower while the framing pass is not: past 20 × 2.
        var times = Self.stored
        times["ReplayMirror.replay_1M_records_mirror"] = 1_000_000
        let result = try Self.check(times)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains("ReplayMirror.replay_1M_records_mirror")
                && result.stdout.contains("WORSE: past its limit"), "\(result.stdout)")
        let decoder = result.stdout.split(separator: "\n").first {
            $0.hasPrefix("ATTCodec.ATT_decode_notification_20B")
        }
        #expect(decoder.map { !$0.contains("WORSE") } == true, "\(result.stdout)")
    }

    @Test func aRegressionOnASlowerMachineStillFails() throws {
        // Everything twice as slow, and the decoder twice more: its ratio doubles.
        var times = Self.stored.mapValues { $0 * 2 }
        times["ATTCodec.ATT_decode_notification_20B"] = 20_000
        let result = try Self.check(times)
        #expect(result.status == 1, "\(result.stdout)")
    }

    @Test func aMissingBenchmarkFails() throws {
        var times = Self.stored
        times["CaptureFraming.btsnoop_framing_1M_records_forEach"] = nil
        let result = try Self.check(times)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains("MISSING: CaptureFraming.btsnoop_framing_1M_records_forEach is not in the run"),
            "\(result.stdout)")
    }
}
