import Flow
import Replay

/// One run of a fault sweep, for a test's own check: the faults injected (one, or a combination)
/// and what the replay gave.
public struct FaultedRun: Sendable {
    public let faults: [Fault]
    public let replay: ReplayResult
    /// The first fault.
    public var fault: Fault { faults[0] }
}

/// What a fault sweep found (``ReplayCapture/sweep(_:faults:options:points:check:)``): whether
/// the app survived every fault, and each failure with the invariants it broke, the fault that
/// replays it alone and where its flow parts from the run without it.
public struct FaultSweepResult: Sendable, CustomStringConvertible {
    /// The sweep, every run.
    public let sweep: FaultSweep
    /// The capture's file and the app's name, as the report gives them.
    public let capture: String
    public let app: String

    /// Whether the app survived every fault.
    public var survived: Bool { sweep.survived }

    /// The runs that broke an invariant, most serious first.
    public var failures: [FaultSweep.Run] { sweep.failures }

    /// The faults whose runs broke `invariant`.
    public func failures(breaking invariant: FaultSweep.Invariant) -> [Fault] {
        failures.filter { $0.failures.contains { $0.invariant == invariant } }.map(\.fault)
    }

    /// The report, as `bletrace replay --sweep faults` prints it; each failure's reproducer is
    /// the `ReplayOptions` that replays it alone.
    public var description: String {
        sweep.text(capture: capture, app: app) { faults in
            "ReplayOptions(faults: [" + faults.map { "try Fault(parsing: \"\($0)\")" }.joined(separator: ", ") + "])"
        }
    }
}

extension ReplayResult {
    /// The result of the replay `engine` ran, whose flow is `flow`.
    init(engine: ReplayEngine, flow: Flow) {
        self.init(
            records: engine.records, flow: flow, finalState: engine.finalState, failed: engine.failed,
            peripheralStates: engine.finalPeripheralStates)
    }
}
