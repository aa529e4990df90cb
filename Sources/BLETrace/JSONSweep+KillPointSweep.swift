import Reports
import Replay

extension JSONSweep {
    /// The document of `sweep` of `kind`, of `app` on `capture` (its file name). Here, where the
    /// replay and the reports meet, so that `Reports` needs nothing of the replay.
    package init(_ sweep: KillPointSweep, capture: String, app: String, kind: String) {
        let reference = sweep.reference
        self.init(
            capture: capture, app: app, kind: kind,
            reference: State(
                connected: reference.connected, subscribed: reference.subscribed, pending: reference.pending),
            points: sweep.points.map {
                Point(
                    seconds: $0.seconds, after: $0.after, lost: $0.lost, gained: $0.gained, relaunch: $0.relaunch,
                    sameAs: $0.sameAs)
            },
            replayed: sweep.replayed)
    }
}
