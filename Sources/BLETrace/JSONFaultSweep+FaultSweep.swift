import Reports
import Replay

extension JSONFaultSweep {
    /// The document of `sweep`, of `app` on `capture` (its file name); `reproduce` gives the
    /// command line that replays a fault alone. Here, where the replay and the reports meet, so
    /// that `Reports` needs nothing of the replay.
    package init(_ sweep: FaultSweep, capture: String, app: String, reproduce: ([Fault]) -> String) {
        let reference = sweep.reference
        func failures(_ list: [FaultSweep.Failure]) -> [Failure] {
            list.map { Failure(invariant: $0.invariant.rawValue, message: $0.message) }
        }
        self.init(
            capture: capture, app: app, families: sweep.families.map(\.rawValue),
            reference: JSONSweep.State(
                connected: reference.connected, subscribed: reference.subscribed, pending: reference.pending),
            referenceFailures: failures(sweep.referenceFailures),
            runs: sweep.runs.map { run in
                Run(
                    fault: run.name, inject: run.faults.map(\.description), family: run.family.rawValue,
                    seconds: run.seconds, after: run.after, failures: failures(run.failures),
                    sameAs: run.sameAs?.description, reproduce: reproduce(run.faults),
                    divergence: run.divergence.map { Divergence(event: $0.event, lines: $0.lines) },
                    notInjected: run.notInjected)
            },
            replayed: sweep.replayed)
    }
}
