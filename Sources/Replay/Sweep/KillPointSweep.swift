import BLETraceCoreBluetooth
import Flow
import Foundation
import Wire

/// Replays a capture once per moment iOS could terminate the app, and tells for each whether the
/// app ends the capture holding what it holds without the termination (``AppState``): the same
/// connections, subscriptions and pending connects.
///
/// The kill points are the moments between two distinct event times of the run without a kill
/// (midway between them), and one just after its last event; `killPoints` N keeps N of them,
/// evenly spread. After the kill, a Bluetooth event may relaunch the app; if none does, the user
/// opens it at the end of the capture, so that the end state is what the app holds once it runs
/// again (a restored app gets its state back then). The runs are independent and use every core.
///
/// A kill point whose app state is identical to the kill point before it is not replayed again:
/// it is given that one's outcome (``Point/sameAs``). Identical means that, in the run without a
/// kill, nothing of what iOS keeps for a killed app changed from the one to the other: whether
/// the app runs, which peripherals it was given and their states, their discovered services and
/// characteristics and which of them notify, its scan, and what it holds (``AppState``) — so a
/// kill at either leaves the system holding the same, with only traffic that changes none of it
/// (values read, written, notified) between them — and that the event after each is of the same
/// kind (its actor and name: what wakes the app first). The app's memory is not compared: a kill
/// ends it.
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
        /// The earlier kill point (its seconds) whose app state this one's is identical to: not
        /// replayed, its outcome is that one's. Nil for a kill point that was replayed.
        public var sameAs: Double?
    }

    /// What the app holds at the end without a kill.
    public var reference: AppState
    /// In time order.
    public var points: [Point]
    /// How many kill points were replayed (the others share an earlier one's app state).
    public var replayed: Int { points.count { $0.sameAs == nil } }

    /// The kill points after which the app lost something.
    public var losses: [Point] { points.filter { !$0.lost.isEmpty } }

    /// Whether the app lost nothing at any kill point.
    public var survived: Bool { losses.isEmpty }

    /// The kinds a sweep takes (`bletrace replay --sweep`), in the order `--sweep all` reports them.
    public static let kinds: [SystemEvent.Kind] = [
        .terminate, .crash, .forceQuit, .reboot, .powerOff, .controlCenter, .airplaneMode,
    ]

    /// The system events of a kill of `kind` at `seconds` after `origin`, the capture's first
    /// record. A process ends there (termination, crash, force quit, restart); for a way of
    /// turning Bluetooth off, the app is in the background, already removed from memory by iOS,
    /// when the user turns Bluetooth off: whether what the system kept survives is TN3115's
    /// question. Turned off in Settings or with Airplane Mode, the user turns it on again a second
    /// later; turned off with Control Center's button, it stays off until iOS turns it back on
    /// itself at the next 5 AM (Apple's support note, "Use Bluetooth and Wi-Fi in Control
    /// Center"), which is usually after the capture's end (``controlCenterReturn(after:)``).
    public static func kill(_ kind: SystemEvent.Kind, at seconds: Double, origin: Timestamp = Timestamp(rawValue: 0))
        -> [SystemEvent]
    {
        switch kind {
        case .controlCenter:
            let killed = origin.adding(microseconds: ReplayEngine.microseconds(seconds))
            let back = controlCenterReturn(after: killed).seconds(since: origin)
            return [
                SystemEvent(.terminate, at: seconds), SystemEvent(kind, at: seconds + 0.000001),
                SystemEvent(.powerOn, at: back),
            ]
        case .powerOff, .airplaneMode:
            return [
                SystemEvent(.terminate, at: seconds), SystemEvent(kind, at: seconds + 0.000001),
                SystemEvent(.powerOn, at: seconds + 1),
            ]
        default: return [SystemEvent(kind, at: seconds)]
        }
    }

    /// When Bluetooth turned off with Control Center at `time` comes back by itself: the next
    /// 5 AM, on the capture's clock read as UTC (a capture carries no time zone), or a restart
    /// (none follows in a sweep).
    public static func controlCenterReturn(after time: Timestamp) -> Timestamp {
        let day: Int64 = 86_400_000_000
        let fiveAM: Int64 = 5 * 3_600_000_000
        let sinceFive = time.microseconds - fiveAM
        // Floor division: the 5 AM at or before `time`, then the one after.
        let days = sinceFive >= 0 ? sinceFive / day : -((-sinceFive + day - 1) / day)
        return Timestamp(rawValue: days * day + fiveAM + day)
    }

    /// Sweeps `kind` (one of ``kinds``) over the run of `app` on `cassette`, on `platform`: at
    /// every kill point, or at `killPoints` of them evenly spread. `progress` is told, from the
    /// replays' own threads, how many replays are done of how many. `replaysIdentical` replays
    /// the kill points whose app state is identical to the one before too (to check that rule).
    public static func run(
        _ cassette: Cassette, app: ReferenceApps.Entry, kind: SystemEvent.Kind = .terminate,
        unmatched: UnmatchedPolicy = .pend,
        events: [SystemEvent] = [], launchState: CBManagerState = .poweredOn, platform: Platform = Platform(),
        killPoints limit: Int? = nil, replaysIdentical: Bool = false,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async -> KillPointSweep {
        // The run without a kill, with what iOS would keep for the app after each event.
        let kept = KeptStates()
        func replay(_ kill: Double?, recording: KeptStates? = nil) async -> (Flow, AppState) {
            // After the kill, the user opens the app at the end of the capture if nothing
            // relaunched it before: the end state is what the app holds once it runs again.
            let end = cassette.end.seconds(since: cassette.origin)
            let killed = kill.map {
                Self.kill(kind, at: $0, origin: cassette.origin) + [
                    SystemEvent(.launch, at: max(end, $0 + 1) + 0.000001)
                ]
            }
            let engine = ReplayEngine(
                cassette: cassette, unmatched: unmatched, events: events + (killed ?? []), launchState: launchState,
                platform: platform)
            if let recording { engine.afterEvent = { [unowned engine] in recording.states.append(engine.keptState()) } }
            let flow = await engine.run(name: app.name) { app.make(for: cassette) }
            return (flow, engine.finalState)
        }
        let (flow, reference) = await replay(nil, recording: kept)
        let snapshots = kept.states
        let moments = evenly(killPoints(of: flow), limit: limit)
        // Each kill point's app state, as a number that changes whenever that state does: two
        // neighbouring kill points with the same number are identical (see above).
        var epochs: [Int] = []
        var epoch = 0
        var lastEvent = -1
        for moment in moments {
            for event in (lastEvent + 1)..<(moment.event + 1)
            where event > 0 && event < snapshots.count && snapshots[event] != snapshots[event - 1] {
                epoch += 1
            }
            lastEvent = max(lastEvent, moment.event)
            epochs.append(epoch)
        }
        // And what comes next: the event after the kill point in that run (its actor and name),
        // which decides what wakes the app first.
        let next = moments.map { moment in
            flow.events.indices.contains(moment.event + 1)
                ? flow.events[moment.event + 1].actor + " " + flow.events[moment.event + 1].name : ""
        }
        let replayed = moments.indices.filter {
            replaysIdentical || $0 == 0 || epochs[$0] != epochs[$0 - 1] || next[$0] != next[$0 - 1]
        }
        var outcomes: [Int: Point] = [:]
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        await withTaskGroup(of: (Int, Point).self) { group in
            var next = 0
            func add() {
                guard next < replayed.count else { return }
                let index = replayed[next]
                let moment = moments[index]
                next += 1
                group.addTask {
                    let (killed, state) = await replay(moment.seconds)
                    let relaunch = killed.events.first { $0.actor == "system" && $0.name == "relaunch" }?.argument(
                        "reason")
                    return (
                        index,
                        Point(
                            seconds: moment.seconds, after: moment.after, lost: reference.lost(comparedWith: state),
                            gained: state.lost(comparedWith: reference), relaunch: relaunch)
                    )
                }
            }
            for _ in 0..<workers { add() }
            for await (index, point) in group {
                outcomes[index] = point
                progress?(outcomes.count, replayed.count)
                add()
            }
        }
        // The kill points not replayed take the outcome of the one their state is identical to.
        var points: [Point] = []
        var representative: Point?
        for (index, moment) in moments.enumerated() {
            if let outcome = outcomes[index] {
                representative = outcome
                points.append(outcome)
            } else if let same = representative {
                points.append(
                    Point(
                        seconds: moment.seconds, after: moment.after, lost: same.lost, gained: same.gained,
                        relaunch: same.relaunch,
                        sameAs: same.seconds))
            }
        }
        return KillPointSweep(reference: reference, points: points)
    }

    /// `limit` of `moments`, evenly spread from the first to the last (all of them without a
    /// limit or with fewer).
    static func evenly<Moment>(_ moments: [Moment], limit: Int?) -> [Moment] {
        guard let limit, limit < moments.count else { return moments }
        guard limit > 1 else { return Array(moments.prefix(limit)) }
        return (0..<limit).map { moments[($0 * (moments.count - 1) + (limit - 1) / 2) / (limit - 1)] }
    }

    /// Midway between consecutive distinct event times, and 1 ms after the last event; each with
    /// the last event before it and that event's place in the flow.
    static func killPoints(of flow: Flow) -> [(seconds: Double, after: String, event: Int)] {
        var moments: [(Double, String, Int)] = []
        let timed = flow.events.enumerated().compactMap { index, event in
            event.time.map { ($0, event.signature, index) }
        }
        for (position, (time, signature, event)) in timed.enumerated() {
            if position + 1 < timed.count {
                let next = timed[position + 1].0
                if next > time { moments.append(((time + next) / 2, signature, event)) }
            } else {
                moments.append((time + 0.001, signature, event))
            }
        }
        return moments
    }
}

extension ReplayEngine {
    /// What iOS keeps for the app if it is killed now, as lines to compare: whether it runs, what
    /// it holds (``AppState``), its scan, and each peripheral it was given with its state, its
    /// discovered services and characteristics and which of them notify.
    func keptState() -> [String] {
        let state = process.appState()
        var lines = [
            "running \(process.isRunning)", "connected \(state.connected.sorted())",
            "subscribed \(state.subscribed.sorted())",
            "pending \(state.pending.sorted())", "scanning \(process.centrals.map(\.isScanning))",
        ]
        for (address, peripheral) in links.given.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            var line = "\(address) \(peripheral.state.rawValue)"
            for service in peripheral.services ?? [] {
                line += " [\(service.uuid)"
                for characteristic in service.characteristics ?? [] {
                    line += " \(characteristic.uuid)\(characteristic.isNotifying ? "*" : "")"
                }
                line += "]"
            }
            lines.append(line)
        }
        return lines
    }
}

// MARK: Reports

extension KillPointSweep {
    /// The report for people: one line per kill point (time, what the app loses, the event the
    /// kill follows), then a verdict that names the first kill point that loses something.
    public func text(capture: String, app: String, kind: String) -> String {
        var lines = [
            "\(kind) sweep of \(app) on \(capture): \(Wording.count(points.count, "kill point"))" + replayedText
        ]
        lines.append("without a kill the app ends " + Self.describe(reference))
        lines.append("")
        let width = max(9, points.map { Wording.sinceStart(seconds: $0.seconds).count }.max() ?? 0)
        func pad(_ text: String, _ count: Int) -> String {
            text + String(repeating: " ", count: max(0, count - text.count))
        }
        let reasons = max(8, points.map { ($0.relaunch ?? "-").count }.max() ?? 0)
        let lostWidth = max(7, points.map { lostText($0).count }.max() ?? 0)
        lines.append(
            pad("kill at", width) + "  " + pad("relaunch", reasons) + "  " + pad("loses", lostWidth) + "  after")
        for point in points {
            lines.append(
                pad(Wording.sinceStart(seconds: point.seconds), width) + "  " + pad(point.relaunch ?? "-", reasons)
                    + "  "
                    + pad(lostText(point), lostWidth) + "  " + point.after)
        }
        lines.append("")
        if let first = losses.first {
            lines.append(
                "\(losses.count) of \(points.count) kill points lose something; the first, at \(Wording.sinceStart(seconds: first.seconds)) (after `\(first.after)`), loses \(first.lost.joined(separator: ", "))"
            )
        } else {
            lines.append("no kill point loses anything")
        }
        return lines.joined(separator: "\n")
    }

    /// `, 12 replayed (…)` when some kill points share an earlier one's app state.
    private var replayedText: String {
        replayed == points.count
            ? "" : ", \(replayed) replayed (the others' app state is that of the kill point before them)"
    }

    private func lostText(_ point: Point) -> String {
        point.lost.isEmpty ? "nothing" : point.lost.joined(separator: ", ")
    }

    static func describe(_ state: AppState) -> String {
        var parts: [String] = []
        if !state.connected.isEmpty { parts.append("connected to \(state.connected.sorted().joined(separator: ", "))") }
        if !state.subscribed.isEmpty {
            parts.append("subscribed to \(state.subscribed.sorted().joined(separator: ", "))")
        }
        if !state.pending.isEmpty { parts.append("connecting to \(state.pending.sorted().joined(separator: ", "))") }
        return parts.isEmpty ? "holding nothing" : parts.joined(separator: "; ")
    }

    /// `--sweep all`: one line per kind (how many kill points lose something, how many were
    /// followed by a relaunch for a Bluetooth event, and the first loss), for the platform.
    public static func summary(
        _ sweeps: [(kind: String, sweep: KillPointSweep)], capture: String, app: String, platform: Platform
    ) -> String {
        let reference = sweeps.first?.sweep.reference ?? AppState()
        var lines = [
            "every kind of sweep of \(app) on \(capture), iOS \(platform.release.rawValue)"
                + (platform.accessorySetupKit ? " with AccessorySetupKit" : "")
                + ": \(sweeps.first?.sweep.points.count ?? 0) kill points each"
                + (sweeps.first.map { $0.sweep.replayedText } ?? ""),
            "without a kill the app ends " + describe(reference), "",
        ]
        let kindWidth = max(4, sweeps.map(\.kind.count).max() ?? 0)
        func pad(_ text: String, _ count: Int) -> String {
            text + String(repeating: " ", count: max(0, count - text.count))
        }
        lines.append(pad("kind", kindWidth) + "  losing    relaunched  first loss")
        for (kind, sweep) in sweeps {
            let relaunched = sweep.points.filter { $0.relaunch != nil && $0.relaunch != "user" }.count
            let first =
                sweep.losses.first.map {
                    "\(Wording.sinceStart(seconds: $0.seconds)) (after `\($0.after)`): \($0.lost.joined(separator: ", "))"
                } ?? "-"
            lines.append(
                pad(kind, kindWidth) + "  " + pad("\(sweep.losses.count) of \(sweep.points.count)", 8) + "  "
                    + pad("\(relaunched)", 10) + "  " + first)
        }
        let losing = sweeps.filter { !$0.sweep.losses.isEmpty }.map(\.kind)
        lines.append("")
        lines.append(
            losing.isEmpty
                ? "no kind of kill loses anything" : "the app loses something after: \(losing.joined(separator: ", "))")
        return lines.joined(separator: "\n")
    }
}
