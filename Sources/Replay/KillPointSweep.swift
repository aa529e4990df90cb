import BLETraceCoreBluetooth
import Foundation

/// Replays a capture once per moment iOS could terminate the app, and tells for each whether the
/// app ends the capture holding what it holds without the termination (``AppState``): the same
/// connections, subscriptions and pending connects.
///
/// The kill points are the moments between two distinct event times of the run without a kill
/// (midway between them), and one just after its last event. After the kill, a Bluetooth event
/// may relaunch the app; if none does, the user opens it at the end of the capture, so that the
/// end state is what the app holds once it runs again (a restored app gets its state back then).
/// The runs are independent and use every core.
public struct KillPointSweep: Sendable {
    /// One kill point and what the app lost (or gained) by it.
    public struct Point: Sendable, Codable, Hashable {
        /// Seconds after the capture's start.
        public var seconds: Double
        /// The last event of the run without a kill before this moment (its flow line, no time).
        public var after: String
        /// What the app held at the end without the kill and not with it (``AppState/lost(comparedWith:)``).
        public var lost: [String]
        /// What it held with the kill and not without.
        public var gained: [String]
        /// What relaunched the app first after the kill: the delegate method of the Bluetooth event
        /// that woke it, `user` when it was opened at the end of the capture, nil if neither.
        public var relaunch: String?
    }

    /// What the app holds at the end without a kill.
    public var reference: AppState
    /// In time order.
    public var points: [Point]

    /// The kill points after which the app lost something.
    public var losses: [Point] { points.filter { !$0.lost.isEmpty } }

    /// Whether the app lost nothing at any kill point.
    public var survived: Bool { losses.isEmpty }

    /// The kinds a sweep takes (`bletrace replay --sweep`), in the order `--sweep all` reports them.
    public static let kinds: [SystemEvent.Kind] = [.terminate, .crash, .forceQuit, .reboot, .powerOff, .controlCenter, .airplaneMode]

    /// The system events of a kill of `kind` at `seconds`. A process ends there (termination,
    /// crash, force quit, restart); for a way of turning Bluetooth off, the app is in the
    /// background, already removed from memory by iOS, when the user turns Bluetooth off, and on
    /// again a second later: whether what the system kept survives is TN3115's question.
    public static func kill(_ kind: SystemEvent.Kind, at seconds: Double) -> [SystemEvent] {
        switch kind {
        case .powerOff, .controlCenter, .airplaneMode:
            [SystemEvent(.terminate, at: seconds), SystemEvent(kind, at: seconds + 0.000001), SystemEvent(.powerOn, at: seconds + 1)]
        default: [SystemEvent(kind, at: seconds)]
        }
    }

    /// Sweeps `kind` (one of ``kinds``) over the run of `app` on `cassette`, on `platform`.
    public static func run(
        _ cassette: Cassette, app: ReferenceApps.Entry, kind: SystemEvent.Kind = .terminate, unmatched: UnmatchedPolicy = .pend,
        events: [SystemEvent] = [], launchState: CBManagerState = .poweredOn, platform: Platform = Platform()
    ) async -> KillPointSweep {
        func replay(_ kill: Double?) async -> (Flow, AppState) {
            let engine = ReplayEngine(cassette: cassette)
            engine.unmatched = unmatched
            engine.launchState = launchState
            engine.platform = platform
            // After the kill, the user opens the app at the end of the capture if nothing
            // relaunched it before: the end state is what the app holds once it runs again.
            let end = cassette.end.seconds(since: cassette.start)
            engine.events = events + (kill.map { Self.kill(kind, at: $0) + [SystemEvent(.launch, at: max(end, $0 + 1) + 0.000001)] } ?? [])
            let flow = await engine.run(name: app.name) { app.make(for: cassette) }
            return (flow, engine.finalState)
        }
        let (flow, reference) = await replay(nil)
        let moments = killPoints(of: flow)
        var points: [Point?] = Array(repeating: nil, count: moments.count)
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        await withTaskGroup(of: (Int, Point).self) { group in
            var next = 0
            func add() {
                guard next < moments.count else { return }
                let index = next
                let (seconds, after) = moments[index]
                next += 1
                group.addTask {
                    let (killed, state) = await replay(seconds)
                    let relaunch = killed.events.first { $0.actor == "system" && $0.name == "relaunch" }?.argument("reason")
                    return (index, Point(
                        seconds: seconds, after: after, lost: reference.lost(comparedWith: state),
                        gained: state.lost(comparedWith: reference), relaunch: relaunch))
                }
            }
            for _ in 0..<workers { add() }
            for await (index, point) in group {
                points[index] = point
                add()
            }
        }
        return KillPointSweep(reference: reference, points: points.compactMap { $0 })
    }

    /// Midway between consecutive distinct event times, and 1 ms after the last event; each with
    /// the last event before it.
    static func killPoints(of flow: Flow) -> [(seconds: Double, after: String)] {
        var moments: [(Double, String)] = []
        let timed = flow.events.compactMap { event in event.time.map { ($0, event.signature) } }
        for (index, (time, signature)) in timed.enumerated() {
            if index + 1 < timed.count {
                let next = timed[index + 1].0
                if next > time { moments.append(((time + next) / 2, signature)) }
            } else {
                moments.append((time + 0.001, signature))
            }
        }
        return moments
    }
}

// MARK: Reports

extension KillPointSweep {
    /// The report for people: one line per kill point (time, what the app loses, the event the
    /// kill follows), then a verdict that names the first kill point that loses something.
    public func text(capture: String, app: String, kind: String) -> String {
        var lines = ["\(kind) sweep of \(app) on \(capture): \(points.count) kill points"]
        lines.append("without a kill the app ends " + Self.describe(reference))
        lines.append("")
        let width = max(9, points.map { formatSeconds($0.seconds).count + 1 }.max() ?? 0)
        func pad(_ text: String, _ count: Int) -> String { text + String(repeating: " ", count: max(0, count - text.count)) }
        let reasons = max(8, points.map { ($0.relaunch ?? "-").count }.max() ?? 0)
        let lostWidth = max(7, points.map { lostText($0).count }.max() ?? 0)
        lines.append(pad("kill at", width) + "  " + pad("relaunch", reasons) + "  " + pad("loses", lostWidth) + "  after")
        for point in points {
            lines.append(
                pad("+" + formatSeconds(point.seconds), width) + "  " + pad(point.relaunch ?? "-", reasons) + "  "
                    + pad(lostText(point), lostWidth) + "  " + point.after)
        }
        lines.append("")
        if let first = losses.first {
            lines.append("\(losses.count) of \(points.count) kill points lose something; the first, at +\(formatSeconds(first.seconds)) (after `\(first.after)`), loses \(first.lost.joined(separator: ", "))")
        } else {
            lines.append("no kill point loses anything")
        }
        return lines.joined(separator: "\n")
    }

    private func lostText(_ point: Point) -> String { point.lost.isEmpty ? "nothing" : point.lost.joined(separator: ", ") }

    static func describe(_ state: AppState) -> String {
        var parts: [String] = []
        if !state.connected.isEmpty { parts.append("connected to \(state.connected.sorted().joined(separator: ", "))") }
        if !state.subscribed.isEmpty { parts.append("subscribed to \(state.subscribed.sorted().joined(separator: ", "))") }
        if !state.pending.isEmpty { parts.append("connecting to \(state.pending.sorted().joined(separator: ", "))") }
        return parts.isEmpty ? "holding nothing" : parts.joined(separator: "; ")
    }

    /// The report for tools (`--format json`).
    public struct Document: Codable, Sendable {
        public var capture: String
        public var app: String
        public var kind: String
        public var reference: AppState
        public var points: [Point]
        /// How many kill points lose something.
        public var losing: Int
    }

    public func document(capture: String, app: String, kind: String) -> Document {
        Document(capture: capture, app: app, kind: kind, reference: reference, points: points, losing: losses.count)
    }

    /// `--sweep all`: one line per kind (how many kill points lose something, how many were
    /// followed by a relaunch for a Bluetooth event, and the first loss), for the platform.
    public static func summary(_ sweeps: [(kind: String, sweep: KillPointSweep)], capture: String, app: String, platform: Platform) -> String {
        let reference = sweeps.first?.sweep.reference ?? AppState()
        var lines = [
            "every kind of sweep of \(app) on \(capture), iOS \(platform.release.rawValue)"
                + (platform.accessorySetupKit ? " with AccessorySetupKit" : "") + ": \(sweeps.first?.sweep.points.count ?? 0) kill points each",
            "without a kill the app ends " + describe(reference), "",
        ]
        let kindWidth = max(4, sweeps.map(\.kind.count).max() ?? 0)
        func pad(_ text: String, _ count: Int) -> String { text + String(repeating: " ", count: max(0, count - text.count)) }
        lines.append(pad("kind", kindWidth) + "  losing    relaunched  first loss")
        for (kind, sweep) in sweeps {
            let relaunched = sweep.points.filter { $0.relaunch != nil && $0.relaunch != "user" }.count
            let first = sweep.losses.first.map { "+\(formatSeconds($0.seconds)) (after `\($0.after)`): \($0.lost.joined(separator: ", "))" } ?? "-"
            lines.append(
                pad(kind, kindWidth) + "  " + pad("\(sweep.losses.count) of \(sweep.points.count)", 8) + "  "
                    + pad("\(relaunched)", 10) + "  " + first)
        }
        let losing = sweeps.filter { !$0.sweep.losses.isEmpty }.map(\.kind)
        lines.append("")
        lines.append(losing.isEmpty ? "no kind of kill loses anything" : "the app loses something after: \(losing.joined(separator: ", "))")
        return lines.joined(separator: "\n")
    }
}
