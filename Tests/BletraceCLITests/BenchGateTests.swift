import Foundation
import TestSupport
import Testing

/// The time gate of `make bench` (`scripts/bench_ratios.py`, Benchmarks/README.md, "The gate"),
/// fed package-benchmark JSON exports made up here: a machine twice as slow passes, and so does a
/// busy one whose wall times grow while the CPU times do not; a benchmark that regresses against
/// its reference fails, and so does a run that lacks a benchmark or a ratio stored on another clock.
@Suite struct BenchGateTests {
    static let script = Fixtures.packageRoot.appendingPathComponent("scripts/bench_ratios.py").path

    /// Two gated benchmarks, one against a reference in its own target on the wall clock, one
    /// against another target's on the process's CPU time (`replayClock`).
    static func spec(replayClock: String = "cpu") -> String {
        """
        {"ratios": [
          {"benchmark": "ATTCodec.ATT_decode_notification_20B", "reference": "ATTCodec.reference_hash_notification_20B", "clock": "wall", "measured": 0.5, "margin": 1.5},
          {"benchmark": "ReplayMirror.replay_1M_records_mirror", "reference": "CaptureFraming.btsnoop_framing_1M_records_forEach", "clock": "\(replayClock)", "measured": 20.0, "margin": 2.0}
        ]}
        """
    }

    /// One metric's percentiles: `fastest` is the p0 the gate reads, the other iterations slower.
    static func metric(_ fastest: Double, unit: String) -> String {
        """
        {"score": \(fastest * 1.2), "scoreError": 0, "scoreConfidence": [0, 0], "scoreUnit": "\(unit)",
         "scorePercentiles": {"0.0": \(fastest), "50.0": \(fastest * 1.1), "90.0": \(fastest * 1.5), "100.0": \(fastest * 2)},
         "rawData": [[\(fastest), \(fastest * 1.1), \(fastest * 2)]]}
        """
    }

    /// One JMH element as package-benchmark 1.38.1 writes it: the wall clock in µs and, where
    /// given, the process's CPU time (Benchmarks/Sources/BenchGate) in ns.
    static func element(_ name: String, fastest: Double, cpu: Double? = nil) -> String {
        let wall = metric(fastest, unit: "μs")
        let processCPU = cpu.map { #""CPU time (process, ns)": "# + metric($0, unit: "#") + "," } ?? ""
        return """
            {"benchmark": "package.benchmark.\(name)", "mode": "thrpt", "threads": 1, "forks": 1,
             "warmupIterations": 1, "warmupTime": "1 s", "warmupBatchSize": 1, "measurementIterations": 3,
             "measurementTime": "1 s", "measurementBatchSize": 1,
             "primaryMetric": {"score": 5, "scoreError": 0, "scoreConfidence": [0, 0], "scoreUnit": "# / s",
                               "scorePercentiles": {"0.0": 5}, "rawData": [[5]]},
             "secondaryMetrics": {\(processCPU) "Time (wall clock)": \(wall), "Malloc (total)": {"score": 16, "scoreError": 0,
                               "scoreConfidence": [0, 0], "scoreUnit": "#", "scorePercentiles": {"0.0": 16}, "rawData": [[16]]}}}
            """
    }

    /// The gate's exit status and output on a run whose fastest times are `times` (wall, µs) and
    /// `cpu` (CPU, ns; by default the whole-file benchmarks' wall times, as on an idle machine).
    static func check(
        _ times: [String: Double], cpu: [String: Double]? = nil, replayClock: String = "cpu"
    ) throws -> ProcessResult {
        let cpu = cpu ?? times.filter { !$0.key.hasPrefix("ATTCodec.") }.mapValues { $0 * 1_000 }
        let elements = times.sorted { $0.key < $1.key }.map { element($0.key, fastest: $0.value, cpu: cpu[$0.key]) }
        return try check(elements: elements, replayClock: replayClock)
    }

    /// The gate's exit status and output on a run of these JMH elements, in this order.
    static func check(elements: [String], replayClock: String = "cpu") throws -> ProcessResult {
        let python = try #require(which("python3"), "python3 is missing: scripts/bench_ratios.py needs it")
        let results = "[" + elements.joined(separator: ",") + "]"
        let resultsPath = try Fixtures.temporaryFile(Array(results.utf8), name: "gate.jmh.json")
        let specPath = try Fixtures.temporaryFile(Array(spec(replayClock: replayClock).utf8), name: "ratios.json")
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

    @Test func aBusyMachineWhoseWallTimesGrowUnevenlyPasses() throws {
        // Load stretches the 400 ms replay's wall time three times and not the 20 ms framing's:
        // the wall ratio is past 20 × 2, the CPU ratio, which the replay is gated on, is not.
        var wall = Self.stored
        wall["ReplayMirror.replay_1M_records_mirror"] = 1_200_000
        let cpu = Self.stored.filter { !$0.key.hasPrefix("ATTCodec.") }.mapValues { $0 * 1_000 }
        let result = try Self.check(wall, cpu: cpu)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let replay = result.stdout.split(separator: "\n").first {
            $0.hasPrefix("ReplayMirror.replay_1M_records_mirror ")
        }
        #expect(replay?.split(separator: " ").dropFirst().first == "cpu", "\(result.stdout)")
    }

    @Test func aRegressionInCPUTimeFails() throws {
        // The replay's CPU time 2.5 times its stored ratio, its wall time as stored.
        var cpu = Self.stored.filter { !$0.key.hasPrefix("ATTCodec.") }.mapValues { $0 * 1_000 }
        cpu["ReplayMirror.replay_1M_records_mirror"] = 1_000_000_000
        let result = try Self.check(Self.stored, cpu: cpu)
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("WORSE: past its limit"), "\(result.stdout)")
    }

    @Test func aRatioStoredOnTheWallClockIsNotComparedWithCPUTime() throws {
        let result = try Self.check(Self.stored, replayClock: "wall")
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("stored on the wall clock, measured on the cpu clock"), "\(result.stdout)")
    }

    @Test func aMetricTheExportCarriesOverFromTheBenchmarkBeforeIsNotRead() throws {
        // package-benchmark 1.38.1's JMH export copies the replay's CPU time into the codec
        // elements after it, which measure none: read as theirs, the codecs would be compared on
        // a CPU time that is not theirs (a ratio of 1, on a clock they were not stored on).
        let replayCPU = 400_000_000.0
        let elements = [
            Self.element("CaptureFraming.btsnoop_framing_1M_records_forEach", fastest: 20_000, cpu: 20_000_000),
            Self.element("ReplayMirror.replay_1M_records_mirror", fastest: 400_000, cpu: replayCPU),
            Self.element("ATTCodec.reference_hash_notification_20B", fastest: 10_000, cpu: replayCPU),
            Self.element("ATTCodec.ATT_decode_notification_20B", fastest: 5_000, cpu: replayCPU),
        ]
        let result = try Self.check(elements: elements)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let decoder = result.stdout.split(separator: "\n").first {
            $0.hasPrefix("ATTCodec.ATT_decode_notification_20B ")
        }
        #expect(decoder?.split(separator: " ").dropFirst().first == "wall", "\(result.stdout)")
    }
}
