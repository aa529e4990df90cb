import Replay

/// The JSON document of `bletrace replay FILE --sweep KIND --format json` (its contract:
/// Formats/json.md): what the app holds at the end without a kill, then each kill point with its
/// time in seconds after the capture's start and what a kill there loses or gains.
public struct JSONSweep: Encodable {
    /// What an app holds, each list sorted.
    struct State: Encodable {
        var connected: [String]
        var subscribed: [String]
        var pending: [String]
        init(_ state: AppState) {
            (connected, subscribed, pending) = (state.connected.sorted(), state.subscribed.sorted(), state.pending.sorted())
        }
    }
    struct Point: Encodable {
        /// Seconds after the capture's start, to the microsecond.
        var at_s: Double
        var after: String
        var lost: [String]
        var gained: [String]
        var relaunch: String?
        /// The earlier kill point whose app state this one's is identical to (its `at_s`): not
        /// replayed, its outcome is that one's.
        var same_as_s: Double?
    }
    var version = jsonVersion
    var capture: String
    var app: String
    var kind: String
    var reference: State
    var points: [Point]
    /// How many kill points lose something.
    var losing: Int
    /// How many kill points were replayed.
    var replayed: Int

    /// The document of `sweep` of `kind`, of `app` on `capture` (its file name).
    public init(_ sweep: KillPointSweep, capture: String, app: String, kind: String) {
        (self.capture, self.app, self.kind) = (capture, app, kind)
        reference = State(sweep.reference)
        points = sweep.points.map {
            Point(
                at_s: ReportJSON.seconds($0.seconds), after: $0.after, lost: $0.lost, gained: $0.gained, relaunch: $0.relaunch,
                same_as_s: $0.sameAs.map(ReportJSON.seconds))
        }
        losing = sweep.losses.count
        replayed = sweep.replayed
    }
}
