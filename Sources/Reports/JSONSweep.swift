/// The JSON document of `bletrace replay FILE --sweep KIND --format json` (its contract:
/// Formats/json.md): what the app holds at the end without a kill, then each kill point with its
/// time in seconds after the capture's start and what a kill there loses or gains.
package struct JSONSweep: Encodable {
    /// What an app holds, each list sorted.
    package struct State: Encodable, Sendable {
        var connected: [String]
        var subscribed: [String]
        var pending: [String]
        public init(connected: some Sequence<String>, subscribed: some Sequence<String>, pending: some Sequence<String>)
        {
            (self.connected, self.subscribed, self.pending) = (
                connected.sorted(), subscribed.sorted(), pending.sorted()
            )
        }
    }
    package struct Point: Encodable, Sendable {
        /// Seconds after the capture's start, to the microsecond.
        var at_s: Double
        var after: String
        var lost: [String]
        var gained: [String]
        var relaunch: String?
        /// The earlier kill point whose app state this one's is identical to (its `at_s`): not
        /// replayed, its outcome is that one's.
        var same_as_s: Double?

        /// A kill point `seconds` after the capture's start; `sameAs` is the earlier one whose
        /// outcome it shares.
        package init(
            seconds: Double, after: String, lost: [String], gained: [String], relaunch: String?, sameAs: Double?
        ) {
            (at_s, self.after, self.lost, self.gained, self.relaunch) = (
                ReportJSON.seconds(seconds), after, lost, gained, relaunch
            )
            same_as_s = sameAs.map(ReportJSON.seconds)
        }
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

    /// The document of a sweep of `kind`, of `app` on `capture` (its file name): what the app holds
    /// without a kill, each kill point, and how many were replayed (BLETrace builds it from the
    /// replay's `KillPointSweep`).
    package init(capture: String, app: String, kind: String, reference: State, points: [Point], replayed: Int) {
        (self.capture, self.app, self.kind) = (capture, app, kind)
        (self.reference, self.points, self.replayed) = (reference, points, replayed)
        losing = points.count { !$0.lost.isEmpty }
    }
}
