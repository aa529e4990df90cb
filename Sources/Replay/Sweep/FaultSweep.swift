import BLETraceCoreBluetooth
import Flow
import Foundation
import Wire

/// Replays a capture once per failure it could have had and per point where the app's state
/// differs (``Fault``), and checks each run against what every app must do after a failure
/// (``Invariant``) and what the user expects (a pattern flow, a check of their own): `bletrace
/// replay --sweep faults`, Formats/faults.md.
///
/// Points are placed as the kill-point sweep places kill points: a fault of a moment (a link
/// loss, a reset, a lost notification) midway between two distinct event times of the run
/// without a fault; a fault of a request (a refusal, a timeout, a pairing) on each of the app's
/// GATT requests in that run. A point whose app state is identical to the point before it, for
/// the same fault, is not replayed again: it is given that one's outcome (``Run/sameAs``).
/// Identical means what the kill-point sweep says (nothing of what iOS keeps for the app changed
/// between them, and the event after each is of the same kind) and, for a request, the same
/// request on the same attribute. The app's memory is not compared: a point skipped so can
/// differ for an app that counts its notifications or requests, which `points: nil,
/// replaysIdentical: true` checks. The runs are independent and use every core.
public struct FaultSweep: Sendable {
    /// The kinds of fault a sweep takes (`--sweep link-loss,att-error,…`).
    public enum Family: String, Hashable, Sendable, CaseIterable {
        case linkLoss = "link-loss", attError = "att-error", timeout, notifications, serviceChanged = "service-changed"
        case bondLost = "bond-lost", pairing, reset, power
        /// A second loss while the app reconnects after a link loss: the reconnection fails to
        /// be established, or the new link drops during what the app does first on it.
        case reconnectLoss = "reconnect-loss"
    }

    /// What every app must do after a failure, most serious first.
    public enum Invariant: String, Hashable, Sendable, CaseIterable, Comparable {
        /// It does not crash (an exception CoreBluetooth raises).
        case crash
        /// It does not make a request iOS drops unanswered (on a peripheral that is not
        /// connected): whatever waits for its answer waits forever.
        case requestDropped = "request-dropped"
        /// After a link it did not ask to end is lost, or an attempt fails, it connects again or
        /// gives the peripheral up (`cancelPeripheralConnection`); it ends connected, connecting
        /// or scanning where it ends connected or connecting without the fault, unless it gave up.
        case noReconnect = "no-reconnect"
        /// Connected again, it is subscribed to what it is subscribed to without the fault.
        case subscriptionsLost = "subscriptions-lost"
        /// It uses no object iOS invalidated (a service, characteristic or descriptor of a link
        /// that ended or changed).
        case invalidObject = "invalid-object"
        /// The flow matches the user's pattern (`--expect`).
        case expectation = "expect"
        /// The user's own check (the testing library's closure).
        case check

        public static func < (a: Invariant, b: Invariant) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    /// One broken invariant.
    public struct Failure: Hashable, Sendable, CustomStringConvertible {
        public var invariant: Invariant
        /// What it is about (a peripheral, a characteristic, the misuse's text): the same failure
        /// in the run without a fault is not the fault's.
        public var subject: String
        public var message: String
        public init(_ invariant: Invariant, _ subject: String, _ message: String) {
            (self.invariant, self.subject, self.message) = (invariant, subject, message)
        }
        public var description: String { "\(invariant.rawValue): \(message)" }
    }

    /// Where a run's flow first parts from the run without a fault.
    public struct Divergence: Hashable, Sendable {
        /// The first event that differs, 1-based in the run without a fault.
        public var event: Int
        /// The lines around it: `  ` the same event, `- ` one missing, `+ ` one more.
        public var lines: [String]
    }

    /// One fault at one point, and what became of the app.
    public struct Run: Sendable {
        /// The fault, and for a combination (``Family/reconnectLoss``) the one after it.
        public var faults: [Fault]
        public var family: Family
        /// The point's time in the run without a fault (a request's own time), seconds after the
        /// capture's start.
        public var seconds: Double
        /// The event of the run without a fault that the point follows (or the request hit).
        public var after: String
        /// The invariants the run broke that the run without a fault keeps.
        public var failures: [Failure]
        /// The earlier point whose app state this one's is identical to: not replayed, its
        /// outcome is that one's.
        public var sameAs: Fault?
        /// Where the run's flow first parts from the run without a fault (for a failure).
        public var divergence: Divergence?
        /// The fault never happened in the run (its request never came).
        public var notInjected: Bool

        public var survived: Bool { failures.isEmpty }
        /// The first fault.
        public var fault: Fault { faults[0] }
        /// The faults, `+` between them: how the report names the run.
        public var name: String { faults.map(\.description).joined(separator: " + ") }
        /// The faults' kinds, `+` between them: how the report groups the runs.
        public var kindText: String { faults.map(\.kindText).joined(separator: " + ") }
        /// The most serious failure.
        public var worst: Invariant? { failures.map(\.invariant).min() }
    }

    /// What the app holds at the end without a fault.
    public var reference: AppState
    /// The invariants the run without a fault already breaks (not counted against any fault).
    public var referenceFailures: [Failure]
    /// The families swept, in order.
    public var families: [Family]
    /// Every run, by family, then fault, then time.
    public var runs: [Run]

    /// How many runs were replayed (the others share an earlier point's outcome).
    public var replayed: Int { runs.count { $0.sameAs == nil } }
    /// The runs that broke an invariant, most serious first, then in time order.
    public var failures: [Run] {
        runs.filter { !$0.survived }.sorted { a, b in
            (a.worst!, a.seconds, a.name) < (b.worst!, b.seconds, b.name)
        }
    }
    /// Whether the app survived every fault.
    public var survived: Bool { runs.allSatisfy(\.survived) }

    /// A check of the user's: the failures it finds in one run (the faults, the engine after
    /// the run, its flow), as messages.
    public typealias Check = @Sendable (_ faults: [Fault], _ engine: ReplayEngine, _ flow: Flow) -> [String]

    /// Sweeps `families` over the run of `app` on `cassette`: at every point of each, or at
    /// `points` of them evenly spread per fault. `expect` is a pattern every run's flow must
    /// match; `check` finds failures of its own. `progress` is told, from the replays' threads,
    /// how many replays are done of how many.
    public static func run(
        _ cassette: Cassette, app: ReferenceApps.Entry, families: [Family] = Family.allCases,
        unmatched: UnmatchedPolicy = .pend,
        events: [SystemEvent] = [], launchState: CBManagerState = .poweredOn, platform: Platform = Platform(),
        points limit: Int? = nil,
        replaysIdentical: Bool = false, expect: FlowExpectation? = nil, check: Check? = nil,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async -> FaultSweep {
        @Sendable func engine(_ faults: [Fault]) -> ReplayEngine {
            ReplayEngine(
                cassette: cassette, unmatched: unmatched, events: events, launchState: launchState, platform: platform,
                faults: faults)
        }
        // The run without a fault, with what iOS keeps for the app after each event and the
        // app's requests.
        let reference = engine([])
        reference.logsRequests = true
        let kept = KeptStates()
        reference.afterEvent = { [unowned reference] in kept.states.append(reference.keptState()) }
        let flow = await reference.run(name: app.name) { app.make(for: cassette) }
        reference.afterEvent = nil
        let referenceFailures = violations(flow, reference, nil, expect: expect, check: nil)
        let candidates = Self.candidates(
            families, flow: flow, states: kept.states, requests: reference.requestLog, cassette: cassette)
        // Identical points: the same fault, the same state epoch and the same next event.
        var chosen: [Candidate] = []
        for family in families where family != .reconnectLoss {
            let ofFamily = candidates.filter { $0.family == family }
            for kind in uniqued(ofFamily.map(\.kindText)) {
                chosen += KillPointSweep.evenly(ofFamily.filter { $0.kindText == kind }, limit: limit)
            }
        }
        if families.contains(.reconnectLoss) {
            // A second loss while the app reconnects after a first: placed from the flow of each
            // first loss (a supervision timeout at a point of its own).
            let firsts = dropIdentical(
                KillPointSweep.evenly(
                    Self.candidates([.linkLoss], flow: flow, states: kept.states, requests: [], cassette: cassette)
                        .filter { $0.faults == [Fault(.linkLoss(0x08), at: $0.faults[0].point)] }, limit: limit),
                replaysIdentical)
            let flows = await parallel(firsts.count) { index in
                await engine(firsts[index].faults).run(name: app.name) { app.make(for: cassette) }
            }
            let combinations = zip(firsts, flows).flatMap { Self.reconnectLosses(after: $0, $1) }
            for kind in uniqued(combinations.map(\.kindText)) { chosen += combinations.filter { $0.kindText == kind } }
        }
        let replayed = replayedIndices(chosen, replaysIdentical)
        let referenceState = reference.finalState
        let reportedFlow = flow
        let toReplay = replayed.map { chosen[$0] }
        let outcomes = await parallel(toReplay.count, progress: progress) { number in
            let candidate = toReplay[number]
            let faulted = engine(candidate.faults)
            let runFlow = await faulted.run(name: app.name) { app.make(for: cassette) }
            let found = violations(runFlow, faulted, referenceState, expect: expect, check: check)
            let failures = found.filter { failure in
                failure.invariant == .check || failure.invariant == .expectation
                    || !referenceFailures.contains {
                        $0.invariant == failure.invariant && $0.subject == failure.subject
                    }
            }
            return Run(
                faults: candidate.faults, family: candidate.family, seconds: candidate.seconds, after: candidate.after,
                failures: failures,
                sameAs: nil, divergence: failures.isEmpty ? nil : Self.divergence(reportedFlow, runFlow),
                notInjected: !faulted.faultsNotInjected.isEmpty)
        }
        var runs: [Run] = []
        var representative: Run?
        var outcome = outcomes.makeIterator()
        let isReplayed = Set(replayed)
        for (index, candidate) in chosen.enumerated() {
            if isReplayed.contains(index), let run = outcome.next() {
                representative = run
                runs.append(run)
            } else if var same = representative {
                same.sameAs = same.faults[0]
                same.faults = candidate.faults
                same.seconds = candidate.seconds
                same.after = candidate.after
                runs.append(same)
            }
        }
        return FaultSweep(
            reference: referenceState, referenceFailures: referenceFailures, families: families, runs: runs)
    }

    /// `body` for 0..<count, on every core, in order of the indices; `progress` told as each ends.
    static func parallel<T: Sendable>(
        _ count: Int, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil,
        _ body: @escaping @Sendable (Int) async -> T
    ) async -> [T] {
        var results: [Int: T] = [:]
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        await withTaskGroup(of: (Int, T).self) { group in
            var next = 0
            func add() {
                guard next < count else { return }
                let index = next
                next += 1
                group.addTask { (index, await body(index)) }
            }
            for _ in 0..<workers { add() }
            for await (index, result) in group {
                results[index] = result
                progress?(results.count, count)
                add()
            }
        }
        return (0..<count).map { results[$0]! }
    }

    /// The indices of `candidates` not identical to the one before (every one when `keep`):
    /// the same fault's kinds and the same key.
    static func replayedIndices(_ candidates: [Candidate], _ keep: Bool) -> [Int] {
        candidates.indices.filter { index in
            keep || index == 0 || candidates[index].kindText != candidates[index - 1].kindText
                || candidates[index].key != candidates[index - 1].key
        }
    }

    /// `candidates` without those identical to the one before (unless `keep`).
    static func dropIdentical(_ candidates: [Candidate], _ keep: Bool) -> [Candidate] {
        replayedIndices(candidates, keep).map { candidates[$0] }
    }

    /// The second losses after `first`, a link loss whose run's flow is `lost`: the app's
    /// reconnection fails to be established (0x3E, armed as the first loss happens), and the
    /// reconnected link drops again during what the app does first on it (midway between its
    /// `didConnect` and the next event). None when the app never connected again.
    static func reconnectLosses(after first: Candidate, _ lost: Flow) -> [Candidate] {
        guard case .seconds(let at) = first.faults[0].point,
            let reconnected = lost.events.first(where: {
                $0.actor == "central" && $0.name == "didConnect" && ($0.time ?? 0) > at
            }),
            let connected = reconnected.time
        else { return [] }
        var found = [
            Candidate(
                faults: first.faults + [Fault(.linkLoss(0x3E), at: .seconds(at))], family: .reconnectLoss,
                seconds: first.seconds,
                after: first.after, key: first.key)
        ]
        if let next = lost.events.first(where: { ($0.time ?? 0) > connected })?.time {
            found.append(
                Candidate(
                    faults: first.faults + [Fault(.linkLoss(0x08), at: .seconds((connected + next) / 2))],
                    family: .reconnectLoss,
                    seconds: first.seconds, after: first.after, key: first.key))
        }
        return found
    }

    // MARK: Points

    /// A fault at a point, before the identical ones are set aside.
    struct Candidate: Sendable {
        /// The fault, and for a combination the one after it.
        var faults: [Fault]
        var family: Family
        var seconds: Double
        var after: String
        /// Equal for two points of the same fault whose outcomes are taken to be the same.
        var key: String
        /// The faults' kinds, as the report groups them.
        var kindText: String { faults.map(\.kindText).joined(separator: " + ") }
    }

    /// The ATT errors a real peer sends for each kind of request (Core 6.0, Vol 3, Part F,
    /// §3.4.1.1 and the procedures of Part G, §4): refusals by permission, security,
    /// authorization, length and resources, Unlikely Error, an application error (0x80) and,
    /// for a subscription, Client Characteristic Configuration Descriptor Improperly Configured
    /// (0xFD, Core Specification Supplement, Part B, §1.2).
    static func attErrors(for request: LoggedRequest) -> [UInt8] {
        if request.isDiscovery { return [0x0E, 0x11] }
        switch request.method {
        case "readValue": return [0x01, 0x02, 0x05, 0x08, 0x0C, 0x0E, 0x0F, 0x11, 0x80]
        case "writeValue": return [0x01, 0x03, 0x05, 0x08, 0x0C, 0x0D, 0x0E, 0x0F, 0x11, 0x80]
        case "setNotifyValue": return [0x03, 0x05, 0x0E, 0x0F, 0xFD]
        default: return [0x0E]
        }
    }

    /// Every fault of `families` at every point of the run without a fault (`flow`, the kept
    /// states after each event, its requests).
    static func candidates(
        _ families: [Family], flow: Flow, states: [[String]], requests: [LoggedRequest], cassette: Cassette
    ) -> [Candidate] {
        let moments = KillPointSweep.killPoints(of: flow)
        // Each event's state epoch: a number that changes whenever what iOS keeps does.
        var epochs: [Int] = []
        var epoch = 0
        for index in states.indices {
            if index > 0, states[index] != states[index - 1] { epoch += 1 }
            epochs.append(epoch)
        }
        func epochAt(_ event: Int) -> Int { epochs.indices.contains(event) ? epochs[event] : epoch }
        // A link is up after `event`: what iOS keeps says so, or the event is the connection's
        // completion (recorded before the peripheral's state changes).
        func connected(_ event: Int) -> Bool {
            if flow.events.indices.contains(event), flow.events[event].actor == "central",
                flow.events[event].name == "didConnect"
            {
                return true
            }
            guard states.indices.contains(event) else { return false }
            return states[event].contains { $0.hasPrefix("connected [") && $0 != "connected []" }
        }
        func nextEvent(_ event: Int) -> String {
            flow.events.indices.contains(event + 1)
                ? flow.events[event + 1].actor + " " + flow.events[event + 1].name : ""
        }
        let bonded = cassette.links.contains { link in
            link.security.contains { if case .encryptionChanged(true, _) = $0.kind { true } else { false } }
        }
        var found: [Candidate] = []
        func atMoments(_ kind: Fault.Kind, _ family: Family, where include: (Int) -> Bool) {
            for moment in moments where include(moment.event) {
                found.append(
                    Candidate(
                        faults: [Fault(kind, at: .seconds(moment.seconds))], family: family, seconds: moment.seconds,
                        after: moment.after,
                        key: "\(epochAt(moment.event)) \(nextEvent(moment.event))"))
            }
        }
        func atRequests(_ kinds: (LoggedRequest) -> [Fault.Kind], _ family: Family) {
            for request in requests {
                for kind in kinds(request) {
                    found.append(
                        Candidate(
                            faults: [Fault(kind, at: .request(request.number))], family: family,
                            seconds: request.seconds,
                            after: flow.events.indices.contains(request.event)
                                ? flow.events[request.event].signature : request.method,
                            key: "\(epochAt(request.event)) \(request.method) \(request.target)"))
                }
            }
        }
        for family in families {
            switch family {
            case .linkLoss:
                for reason: UInt8 in [0x08, 0x13] { atMoments(.linkLoss(reason), family, where: connected) }
                atMoments(.linkLoss(0x3E), family) { nextEvent($0) == "central didConnect" }
            case .attError:
                atRequests({ request in attErrors(for: request).map { .attError($0) } }, family)
            case .timeout:
                atRequests({ _ in [.timeout] }, family)
            case .notifications:
                for how: Fault.NotificationFault in [.drop, .duplicate] {
                    atMoments(.notification(how), family) { nextEvent($0) == "peripheral didUpdateValueFor" }
                }
                atRequests({ $0.subscribes ? [.notification(.early)] : [] }, family)
            case .serviceChanged:
                atMoments(.serviceChanged, family, where: connected)
            case .bondLost:
                if bonded { atMoments(.bondLost, family) { nextEvent($0) == "central didConnect" } }
            case .pairing:
                atRequests({ $0.isValueRequest ? Fault.PairingFault.allCases.map { .pairing($0) } : [] }, family)
            case .reset:
                atMoments(.reset, family) { _ in true }
            case .power:
                atMoments(.power, family) { _ in true }
            case .reconnectLoss:
                break  // placed from the flows of the first losses (``reconnectLosses(after:_:)``)
            }
        }
        return found
    }

    private static func uniqued(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    // MARK: Invariants

    /// The invariants `flow` (run by `engine`) breaks; `reference`, what the app holds at the end
    /// without a fault (nil for that run itself).
    static func violations(
        _ flow: Flow, _ engine: ReplayEngine, _ reference: AppState?, expect: FlowExpectation?, check: Check?
    ) -> [Failure] {
        var failures: [Failure] = []
        if let reason = engine.crashReason { failures.append(Failure(.crash, reason, "the app crashes: \(reason)")) }
        for comment in Set(flow.comments) where comment.hasPrefix("API MISUSE") {
            if comment.contains("can only be used while the peripheral is connected") {
                failures.append(
                    Failure(.requestDropped, comment, "\(comment): iOS drops the request, and nothing answers it"))
            } else if comment.contains("not a valid one of this peripheral") {
                failures.append(Failure(.invalidObject, comment, comment))
            }
        }
        // Each link the app did not ask to end, and each failed attempt: a connect or a cancel
        // of the peripheral must follow (or the system reconnects by itself).
        var cancelled: Set<String> = []
        var lost: [String: (index: Int, event: FlowEvent)] = [:]
        for (index, event) in flow.events.enumerated() {
            guard let peripheral = event.argument("peripheral") else { continue }
            switch (event.actor, event.name) {
            case ("app", "cancelPeripheralConnection"):
                cancelled.insert(peripheral)
                lost[peripheral] = nil
            case ("app", "connect"):
                cancelled.remove(peripheral)
                lost[peripheral] = nil
            case ("central", "didDisconnectPeripheral")
            where !cancelled.contains(peripheral) && event.argument("isReconnecting") != "true",
                ("central", "didFailToConnect"):
                if lost[peripheral] == nil { lost[peripheral] = (index, event) }
            default: continue
            }
        }
        for (peripheral, loss) in lost.sorted(by: { $0.value.index < $1.value.index }) {
            failures.append(
                Failure(
                    .noReconnect, peripheral,
                    "\(peripheral): after `\(loss.event.signature)` at \(Wording.sinceStart(seconds: loss.event.time ?? 0)) the app neither connects again nor cancels"
                ))
        }
        if let reference {
            // Scanning again is looking for the peripheral again.
            let final = engine.finalState
            for peripheral in reference.connected.union(reference.pending).sorted()
            where !final.connected.contains(peripheral) && !final.pending.contains(peripheral) && !final.scanning
                && !cancelled.contains(peripheral)
                && lost[peripheral] == nil
            {
                failures.append(
                    Failure(
                        .noReconnect, peripheral,
                        "\(peripheral): the app ends neither connected nor connecting, as it does without the fault, and never gave it up"
                    ))
            }
            for subscription in reference.subscribed.subtracting(final.subscribed).sorted() {
                let peripheral = String(subscription.prefix { $0 != " " })
                guard final.connected.contains(peripheral) else { continue }
                failures.append(
                    Failure(
                        .subscriptionsLost, subscription,
                        "connected to \(peripheral) again, the app is not subscribed to \(subscription.dropFirst(peripheral.count + 1)) as it is without the fault"
                    ))
            }
        }
        if let expect {
            let comparison = FlowComparison(expected: expect, actual: flow)
            if !comparison.isEqual {
                let first = comparison.sections.first { !$0.isEqual }
                let text = first.map { section in
                    section.diff.lines.first { if case .same = $0 { false } else { true } }.map { line in
                        switch line {
                        case .missing(let event): "expected `\(event.signature)` is missing"
                        case .unexpected(let event): "unexpected `\(event.signature)`"
                        case .same: ""
                        }
                    } ?? section.timing.first?.message ?? "the flow does not match"
                }
                failures.append(Failure(.expectation, "expect", text ?? "the flow does not match"))
            }
        }
        if let check, !engine.faults.isEmpty {
            for message in check(engine.faults, engine, flow) { failures.append(Failure(.check, message, message)) }
        }
        return failures.sorted { ($0.invariant, $0.subject) < ($1.invariant, $1.subject) }
    }

    /// Where `actual` first parts from `expected`: the first hunk of their comparison.
    static func divergence(_ expected: Flow, _ actual: Flow) -> Divergence? {
        let diff = FlowDiff(expected: expected, actual: actual, context: 2, limit: 50)
        guard let first = diff.firstDivergence, let hunk = diff.hunks.first else { return nil }
        let lines = hunk.prefix(12).map { line -> String in
            switch line {
            case .same(let event): "  " + event.line
            case .missing(let event): "- " + event.line
            case .unexpected(let event): "+ " + event.line
            }
        }
        return Divergence(event: first + 1, lines: lines)
    }
}

/// What iOS keeps of the app after each event of a run (``ReplayEngine/keptState()``).
final class KeptStates: @unchecked Sendable {
    var states: [[String]] = []
}

extension [FaultSweep.Family] {
    /// Every kind of fault: `capture.sweep(App.self, faults: .all)`.
    public static var all: [FaultSweep.Family] { FaultSweep.Family.allCases }
}
