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
        where c.transport == .le && c.role != .peripheral && c.status != .success && !c.beganBeforeCapture {
            guard let attempt = c.attemptTime, let record = c.attemptRecord else { continue }
            var peer: String { c.peer.map { "\($0)" + (c.peerName.map { " \"\($0)\"" } ?? "") } ?? "the peer" }
            let heard = c.peer.flatMap { Self.lastHeard($0, before: attempt, in: report) }
            let scanned = report.scans.contains { ($0.startTime ?? attempt) <= attempt }
            let waitedFor = c.cancelTime.map { $0.seconds(since: attempt) }
            if let cancel = c.cancelTime, let waited = waitedFor, AndroidMapping.cancelledAttempt(after: waited) != nil
            {
                let target =
                    c.peer == nil
                    ? "through the Filter Accept List (frame \(record + 1); Android's stack makes its direct connections so)"
                    : "to \(peer) (frame \(record + 1))"
                var summary =
                    "The attempt to connect \(target) was cancelled by this host after \(Wording.duration(waited)), Android's direct-connection timeout: the peer never answered"
                if c.peer != nil { summary += ", and " + Self.heardWords(heard, attempt: attempt, scanned: scanned) }
                summary += "."
                findings.append(
                    Finding(
                        rule: .connectTimedOut, record: record, time: cancel, connection: c,
                        evidence: [record] + (c.completeRecord.map { [$0] } ?? []),
                        summary: summary,
                        coreBluetooth:
                            "no callback: a CoreBluetooth connect does not time out; iOS keeps the attempt pending until the peer answers or the app cancels it",
                        android: c.android,
                        lookAt:
                            "whether the peer was advertising connectably, in range, at the address the phone used (a resolvable private address it has since changed); the app should scan first and connect to what it hears"
                    ))
            }
            // Only where the capture scanned before the attempt can it say the peer was not heard.
            guard scanned, c.peer != nil, !c.usesFilterAcceptList else { continue }
            let stale = heard.map { attempt.seconds(since: $0.time) >= Self.staleAdvertising } ?? true
            guard heard == nil || !(heard!.connectable) || stale else { continue }
            var summary =
                "This host tried to connect to \(peer) (frame \(record + 1)), but "
                + Self.heardWords(heard, attempt: attempt, scanned: scanned)
            if let address = c.peer, c.peerAddressType == 0x01, (address.rawValue >> 46) & 0x3 == 0x1 {
                summary +=
                    "; the address is a resolvable private one, which the peer changes (every 15 minutes, as the specification recommends), so an address remembered from an older scan no longer reaches it"
            }
            let ending =
                switch c.outcome {
                case .pending: "; the attempt was still pending when the capture ended."
                case .cancelled: "; the host cancelled it after \(waitedFor.map(Wording.duration) ?? "a while")."
                default:
                    "; it failed (\(c.status.map { "\($0.name ?? "status") \(hex($0.rawValue, digits: 2))" } ?? "no status"))."
                }
            summary += ending
            findings.append(
                Finding(
                    rule: .connectToUnheardPeer, record: record, time: attempt, connection: c,
                    evidence: [record],
                    summary: summary,
                    coreBluetooth:
                        "no callback while the attempt is pending: iOS waits for the peer to advertise, with no timeout",
                    android: c.android,
                    lookAt:
                        "the address the app connects to: take it from a fresh scan (or connect with autoConnect, which follows the peer's resolvable address), and check the peer is advertising connectably"
                ))
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
            guard c.role != .peripheral, !c.usesFilterAcceptList, let attempt = c.attemptTime,
                let record = c.attemptRecord
            else { continue }
            // (A failed attempt is never busy again.)
            live[address]?.removeAll {
                Self.ended(connections[$0], by: attempt) || connections[$0].status.map { $0 != .success } == true
            }
            // The connection to the same peer that was up, or the attempt that was pending, then.
            guard let busy = live[address]?.first(where: { Self.busy(connections[$0], at: attempt) }) else { continue }
            let other = connections[busy]
            let up =
                other.beganBeforeCapture
                || (other.status == .success && other.completeTime.map { $0 <= attempt } == true)
            let otherRecord = (up ? other.completeRecord : other.attemptRecord) ?? other.attemptRecord
            var summary =
                "This host asked to connect to \(address)\(c.peerName.map { " \"\($0)\"" } ?? "") (frame \(record + 1)) while "
            summary +=
                up
                ? "its connection to it (connection \(other.id + 1)\(otherRecord.map { ", frame \($0 + 1)" } ?? "")) was up"
                : "its attempt to connect to it (frame \((other.attemptRecord ?? record) + 1)) was still pending"
            let ending =
                switch c.outcome {
                case .failed:
                    "; the controller refused it (\(c.status.map { "\($0.name ?? "status") \(hex($0.rawValue, digits: 2))" } ?? "no status"))."
                case .cancelled:
                    "; it never completed, and the host cancelled it after \(c.cancelTime.map { Wording.duration($0.seconds(since: attempt)) } ?? "a while")."
                case .pending: "; it was still pending when the capture ended."
                default: "."
                }
            summary += ending
            findings.append(
                Finding(
                    rule: .connectWhileBusy, record: record, time: attempt, connection: c,
                    evidence: [record] + (otherRecord.map { [$0] } ?? [])
                        + (c.outcome == .failed ? c.completeRecord.map { [$0] } ?? [] : []),
                    summary: summary,
                    coreBluetooth:
                        "none: iOS keeps one connection per peripheral; a connect to a peripheral already connected or connecting sends nothing new, and the app waits for centralManager(_:didConnect:) of the one under way",
                    android: c.android,
                    lookAt:
                        "the app's connect calls: one connectGatt (or one CBCentralManager.connect) per peer at a time, after the last attempt completed or was cancelled, and close() of each BluetoothGatt it gives up (Android keeps at most 32 GATT clients; a leaked one makes later connects fail with 133 before any HCI command, which only logcat shows)"
                ))
        }
        return findings
    }

    /// Whether `other` had disconnected, or its attempt was cancelled, by `time`.
    static func ended(_ other: Connection, by time: Timestamp) -> Bool {
        other.disconnectTime.map { $0 <= time } == true || other.cancelTime.map { $0 <= time } == true
    }

    /// Whether `other` was up, or its attempt pending, at `time` (and had not ended).
    static func busy(_ other: Connection, at time: Timestamp) -> Bool {
        if ended(other, by: time) { return false }
        if other.beganBeforeCapture || (other.status == .success && other.completeTime.map { $0 <= time } == true) {
            return true
        }
        // Pending: begun before, and neither completed nor failed yet.
        guard let started = other.attemptTime, started < time else { return false }
        return other.completeTime.map { $0 > time } ?? (other.status == nil)
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

    /// `the capture's scans last heard it advertising connectably 1 s before the attempt`.
    static func heardWords(_ heard: (time: Timestamp, connectable: Bool)?, attempt: Timestamp, scanned: Bool) -> String
    {
        guard let heard else {
            return scanned
                ? "the capture's scans never heard it advertising before the attempt"
                : "no scan of the capture's ran before the attempt"
        }
        let how =
            heard.connectable
            ? "connectably" : "only non-connectably (ADV_NONCONN_IND or ADV_SCAN_IND: it accepts no connection)"
        return
            "the capture's scans last heard it advertising \(how) \(Wording.duration(attempt.seconds(since: heard.time))) before the attempt"
    }
}
