import AndroidCodes
import HCI
import Wire

extension DiagnosisCollector {
    /// The connections that never came (issue 43 §3): an attempt this host cancelled at Android's
    /// 30-s direct-connection timeout, and an attempt to a peer the capture's scans never heard
    /// advertising connectably, or last heard long before.
    func neverConnected(_ report: LifecycleReport) -> [Finding] {
        var findings: [Finding] = []
        for c in report.connections
        where c.transport == .le && c.role != .peripheral && c.completion?.status != .success && !c.beganBeforeCapture {
            guard let attempt = c.attempt?.time, let record = c.attempt?.record else { continue }
            let heard = c.peer.flatMap { Self.lastHeard($0, before: attempt, in: report) }
            let scanned = report.scans.contains { ($0.startTime ?? attempt) <= attempt }
            let waitedFor = c.cancelTime.map { $0.seconds(since: attempt) }
            if let cancel = c.cancelTime, let waited = waitedFor, AndroidMapping.cancelledAttempt(after: waited) != nil
            {
                findings.append(
                    Finding(
                        rule: .connectTimedOut, record: record, time: cancel, connection: c,
                        evidence: [record] + (c.completion.map { [$0.record] } ?? []),
                        facts: .connectTimedOut(
                            c, waited: waited,
                            heard: heard.map { Finding.Heard(time: $0.time, connectable: $0.connectable) },
                            scanned: scanned),
                        android: c.android))
            }
            // Only where the capture scanned before the attempt can it say the peer was not heard.
            guard scanned, c.peer != nil, c.attempt?.usesFilterAcceptList != true else { continue }
            let stale = heard.map { attempt.seconds(since: $0.time) >= Self.staleAdvertising } ?? true
            guard heard == nil || !(heard!.connectable) || stale else { continue }
            let resolvable = c.peer.map { c.peerAddressType == 0x01 && ($0.rawValue >> 46) & 0x3 == 0x1 } ?? false
            findings.append(
                Finding(
                    rule: .connectToUnheardPeer, record: record, time: attempt, connection: c,
                    evidence: [record],
                    facts: .connectToUnheardPeer(
                        c, heard: heard.map { Finding.Heard(time: $0.time, connectable: $0.connectable) },
                        scanned: scanned, resolvable: resolvable, waited: waitedFor),
                    android: c.android))
        }
        findings += whileBusy(report)
        return findings
    }

    /// Each LE connection attempt of this host's to a peer it was connected to, or already
    /// connecting to, at the time (issue 43 §3): what concurrent `connectGatt` calls or a reconnect
    /// loop that does not wait make.
    func whileBusy(_ report: LifecycleReport) -> [Finding] {
        var findings: [Finding] = []
        let connections = report.connections
        // Per peer, the connections that may still be up or pending, in the order they came
        // (ended ones dropped as the attempts go on: a scan of every pair of connections took
        // seconds on a capture with thousands of them). Those up before the capture, from the
        // start.
        var live: [BluetoothAddress: [Int]] = [:]
        for index in connections.indices
        where connections[index].beganBeforeCapture && connections[index].transport == .le {
            if let peer = connections[index].peer { live[peer, default: []].append(index) }
        }
        for index in connections.indices where connections[index].transport == .le {
            guard let address = connections[index].peer else { continue }
            defer { if !connections[index].beganBeforeCapture { live[address, default: []].append(index) } }
            let c = connections[index]
            guard c.role != .peripheral, c.attempt?.usesFilterAcceptList != true, let attempt = c.attempt?.time,
                let record = c.attempt?.record
            else { continue }
            // (A failed attempt is never busy again.)
            live[address]?.removeAll {
                Self.ended(connections[$0], by: attempt)
                    || connections[$0].completion.map { $0.status != .success } == true
            }
            // The connection to the same peer that was up, or the attempt that was pending, then.
            guard let busy = live[address]?.first(where: { Self.busy(connections[$0], at: attempt) }) else { continue }
            let other = connections[busy]
            let up =
                other.beganBeforeCapture
                || (other.completion?.status == .success && other.completion.map { $0.time <= attempt } == true)
            let otherRecord = (up ? other.completion?.record : other.attempt?.record) ?? other.attempt?.record
            findings.append(
                Finding(
                    rule: .connectWhileBusy, record: record, time: attempt, connection: c,
                    evidence: [record] + (otherRecord.map { [$0] } ?? [])
                        + (c.outcome == .failed ? c.completion.map { [$0.record] } ?? [] : []),
                    facts: .connectWhileBusy(c, other: other, up: up, otherRecord: otherRecord),
                    android: c.android))
        }
        return findings
    }

    /// Whether `other` had disconnected, or its attempt was cancelled, by `time`.
    static func ended(_ other: Connection, by time: Timestamp) -> Bool {
        other.disconnection.map { $0.time <= time } == true || other.cancelTime.map { $0 <= time } == true
    }

    /// Whether `other` was up, or its attempt pending, at `time` (and had not ended).
    static func busy(_ other: Connection, at time: Timestamp) -> Bool {
        if ended(other, by: time) { return false }
        if other.beganBeforeCapture
            || (other.completion?.status == .success && other.completion.map { $0.time <= time } == true)
        {
            return true
        }
        // Pending: begun before, and neither completed nor failed yet.
        guard let started = other.attempt?.time, started < time else { return false }
        return other.completion.map { $0.time > time } ?? true
    }

    /// How long before a connection attempt a peer last heard advertising counts as long before.
    static let staleAdvertising = 30.0

    /// When a scan of the capture last heard `address` advertising before `time`, and whether it
    /// ever heard it connectably.
    static func lastHeard(_ address: BluetoothAddress, before time: Timestamp, in report: LifecycleReport) -> (
        time: Timestamp, connectable: Bool
    )? {
        var found: (time: Timestamp, connectable: Bool)?
        for scan in report.scans {
            guard let device = scan.devices.first(where: { $0.address == address }), device.firstSeen <= time else {
                continue
            }
            let last = device.lastSeen <= time ? device.lastSeen : time
            if found == nil || found!.time < last {
                found = (last, device.connectable || (found?.connectable ?? false))
            }
        }
        return found
    }
}
