import AndroidCodes
import CoreBluetoothCodes
import HCI
import Lifecycle
import Wire
import ATT

/// The story of every connection in a capture, for people (`bletrace lifecycle`): a header, a
/// summary of outcomes, reasons, peers and errors, then each scan, advertising set and
/// connection with its moments (attempt, connection, parameters, discovery, subscriptions,
/// traffic, disconnection with its reason and CoreBluetooth's error).
///
/// ```swift
/// let story = LifecycleStory(report: analyzer.report, summary: summary)
/// print(story.text)
/// ```
public struct LifecycleStory {
    /// The connections, scans and advertising of the capture (possibly a selection of them).
    public var report: LifecycleReport
    /// The counts the summary shows.
    public var summary: LifecycleSummary
    /// What the report was narrowed to (`peer 11:22:33:44:55:66, LE`), shown as a `showing:`
    /// line under the header; nil when it shows everything.
    public var showing: String?
    /// The summary and one line per connection, instead of every moment.
    public var brief: Bool
    /// Colour for a terminal, or plain text.
    public var style: TextStyle
    /// The findings of `bletrace diagnose` about the same connections: the summary leads with
    /// their count. Nil leaves the line out.
    public var findings: [Finding]?

    /// A story of `report` with its `summary`.
    public init(
        report: LifecycleReport, summary: LifecycleSummary, showing: String? = nil, brief: Bool = false,
        style: TextStyle = .plain, findings: [Finding]? = nil
    ) {
        self.report = report
        self.summary = summary
        self.findings = findings
        self.showing = showing
        self.brief = brief
        self.style = style
    }

    /// The story of a whole capture read with `TraceAnalysis(path:)`.
    public init(_ analysis: TraceAnalysis, style: TextStyle = .plain) {
        self.init(report: analysis.lifecycle, summary: analysis.summary, style: style, findings: analysis.findings)
    }

    /// The whole story, each line ended by a line feed.
    public var text: String {
        var text = ""
        write { text += $0 + "\n" }
        return text
    }

    /// Writes the story, a line at a time (without line ends), to `emit`.
    public func write(_ emit: (String) -> Void) {
        guard let origin = report.firstTime else {
            emit("no records")
            return
        }
        var header = Wording.count(report.records, "record")
        if let last = report.lastTime { header += " over \(Wording.duration(last.seconds(since: origin)))" }
        emit(
            header
                + " from \(isoTime(origin)); times are seconds from the first record, frames as Wireshark numbers them")
        if let showing { emit("showing: " + showing) }
        writeSummary(emit)
        if brief {
            emit("")
            for connection in report.connections { emit(briefLine(connection, origin: origin, end: report.lastTime)) }
            return
        }
        writeScans(origin: origin, emit)
        for connection in report.connections {
            emit("")
            var title = "connection \(connection.id + 1): \(Self.name(of: connection.transport))"
            if let role = connection.role { title += ", local " + role.rawValue }
            if let peer = connection.peer {
                title += ", peer \(peer)"
                if let name = connection.peerName { title += " \"\(name)\"" }
                if let type = connection.peerAddressType { title += type & 1 == 0 ? " (public)" : " (random)" }
            } else if connection.attempt?.usesFilterAcceptList == true {
                title += ", any device on the filter accept list"
            }
            if let handle = connection.handle { title += ", handle \(hex(handle, digits: 4))" }
            emit(style.bold(title))
            let time = { (timestamp: Timestamp) in self.time(timestamp, origin) }
            if connection.beganBeforeCapture {
                emit("  (connected before the capture began)")
            }
            if let attempt = connection.attempt {
                emit(time(attempt.time) + "attempt (frame \(attempt.record + 1))")
            }
            if let cancel = connection.cancelTime {
                emit(time(cancel) + "attempt cancelled by the host")
                if connection.outcome != .failed, let android = connection.android {
                    emit("              Android: \(android)")
                }
            }
            if let completion = connection.completion {
                let status = completion.status
                if status == .success {
                    emit(time(completion.time) + "connected (frame \(completion.record + 1))")
                } else {
                    var line = time(completion.time) + "attempt ended: \(status) (\(hex(status.rawValue, digits: 2)))"
                    if connection.transport == .classic {
                        line += "; CoreBluetooth does not apply (BR/EDR)"
                    } else if connection.outcome == .failed, let error = connection.cbError {
                        line +=
                            "; CoreBluetooth: didFailToConnect, error \(error.value.map { "\($0)" } ?? "nil") [\(error.evidence.rawValue)]"
                    } else if connection.failedEstablishment != nil {
                        line += "; CoreBluetooth: " + EstablishmentFailure.retried(failing: "didFailToConnect")
                    }
                    emit(connection.outcome == .failed ? style.red(line) : line)
                    if connection.outcome == .failed, let android = connection.android {
                        emit("              Android: \(android)")
                    }
                }
            }
            if let interval = connection.interval, let latency = connection.latency,
                let timeout = connection.supervisionTimeout
            {
                emit(
                    "              interval \(Wording.milliseconds(interval, unit: 1.25)), latency \(latency), supervision timeout \(Wording.milliseconds(timeout, unit: 10))"
                )
            }
            if let air = connection.air { for line in Self.airLines(air) { emit("              " + line) } }
            var moments: [(Timestamp, String)] = connection.changes.map { ($0.time, describe($0.kind)) }
            if let start = connection.discoveryStart, let duration = connection.discoveryDuration {
                let procedures = connection.discoveryProcedures.map {
                    "\($0.kind.name) \(Wording.duration($0.duration)) (\(Wording.count($0.requests, "request")))"
                }
                moments.append(
                    (
                        start,
                        "discovery: \(Wording.duration(duration))"
                            + (procedures.isEmpty ? "" : "; " + procedures.joined(separator: ", "))
                    ))
            }
            for subscription in connection.subscriptions {
                let what =
                    subscription.uuid.map { "\($0)" + (GATTNames.name(for: $0).map { " \($0)" } ?? "") }
                    ?? "the descriptor at \(hex(subscription.descriptorHandle, digits: 4))"
                moments.append(
                    (
                        subscription.time,
                        subscription.mode == .off
                            ? "unsubscribed from \(what)" : "subscribed to \(what) (\(subscription.mode.rawValue))"
                    ))
            }
            for subscription in connection.peerSubscriptions {
                let what =
                    subscription.uuid.map { "\($0)" + (GATTNames.name(for: $0).map { " \($0)" } ?? "") }
                    ?? "the descriptor at \(hex(subscription.descriptorHandle, digits: 4))"
                moments.append(
                    (
                        subscription.time,
                        "the peer's client "
                            + (subscription.mode == .off
                                ? "unsubscribed from this host's \(what)"
                                : "subscribed to this host's \(what) (\(subscription.mode.rawValue))")
                    ))
            }
            for pairing in connection.pairings { moments.append((pairing.time, describe(pairing, connection))) }
            for (time, text) in moments.sorted(by: { $0.0 < $1.0 }) { emit(self.time(time, origin) + text) }
            if connection.outcome == .open || connection.outcome == .disconnected {
                var traffic = "              "
                if let mtu = connection.effectiveMTU {
                    traffic += "MTU \(mtu)\(connection.mtu == nil ? " (default)" : ""); "
                }
                func n(_ count: Int, _ what: String) -> String { Wording.count(count, what) }
                traffic +=
                    "ATT: \(n(connection.att.requests, "request")) (\(n(connection.att.reads, "read")), \(n(connection.att.writes, "write"))), "
                    + "\(n(connection.att.writeCommands, "write")) without response, \(n(connection.att.errors, "error")), "
                    + "\(n(connection.att.notifications, "notification")), \(n(connection.att.indications, "indication")), \(n(connection.att.bytes, "byte"))"
                emit(traffic)
                if connection.serviceChangedIndications > 0 {
                    emit(
                        "              Service Changed indicated \(connection.serviceChangedIndications) time(s): the peer's database changed"
                    )
                }
                let end = connection.disconnection?.time ?? report.lastTime ?? origin
                for request in connection.unansweredRequests {
                    let waited = end.seconds(since: request.time)
                    emit(
                        "              unanswered: \(request.opcode)"
                            + (request.attributeHandle.map { " of \(hex($0, digits: 4))" } ?? "")
                            + " (frame \(request.record + 1)), \(Wording.duration(waited)) before the \(connection.disconnection == nil ? "end of the capture" : "disconnection")"
                            + (waited > 30 ? "; past the 30 s ATT transaction timeout" : ""))
                }
            }
            // This host's Disconnect, where the completion's reason does not say so (a controller
            // whose terminate went unacknowledged reports 0x08 or 0x22).
            if let disconnection = connection.disconnection, let request = disconnection.request,
                !Self.localDisconnectionReasons.contains(disconnection.reason.rawValue)
            {
                emit(
                    time(request.time)
                        + "this host ended the link (HCI Disconnect, frame \(request.record + 1)); the completion's reason is the controller's"
                )
            }
            if let disconnection = connection.disconnection {
                let reason = disconnection.reason
                let who = disconnection.initiator == .local ? "by this host" : "by the peer or the link"
                var line =
                    time(disconnection.time) + "disconnected \(who): \(reason) (\(hex(reason.rawValue, digits: 2)))"
                if let duration = connection.duration { line += ", after " + Wording.duration(duration) }
                if disconnection.repeats > 0 {
                    let n = disconnection.repeats
                    line += "; the controller repeated the event \(Wording.count(n, "time")) (folded here)"
                }
                emit(disconnection.initiator == .local ? line : style.yellow(line))
                if let error = connection.cbError {
                    emit(
                        "              CoreBluetooth: didDisconnectPeripheral, error \(error.value.map { "\($0) (\($0.errorCode))" } ?? "nil") [\(error.evidence.rawValue)]"
                    )
                    if let android = connection.android { emit("              Android: \(android)") }
                } else if connection.failedEstablishment != nil {
                    emit(
                        "              CoreBluetooth: "
                            + EstablishmentFailure.retried(failing: "didDisconnectPeripheral"))
                    if let android = connection.android { emit("              Android: \(android)") }
                } else if connection.role == .peripheral {
                    emit(
                        "              CoreBluetooth: a peripheral manager has no disconnection callback; a subscribed central's subscriptions end with didUnsubscribeFrom [reported]"
                    )
                } else if disconnection.initiator == .local, reason == .remoteDeviceTerminatedPowerOff {
                    emit(
                        "              CoreBluetooth: no didDisconnectPeripheral: this host's Bluetooth went off, and apps get centralManagerDidUpdateState(.poweredOff) only [documented]"
                    )
                }
            }
            switch connection.outcome {
            case .pending: emit("              still pending at the end of the capture")
            case .open: emit("              still connected at the end of the capture")
            default: break
            }
        }
        if !report.strayDisconnections.isEmpty {
            emit("")
            emit(
                style.bold("stray disconnections")
                    + " (no link on the handle in the capture: none of them is a connection)")
            for stray in report.strayDisconnections {
                emit(
                    time(stray.time, origin)
                        + "handle \(hex(stray.handle, digits: 4)): \(stray.reason) (\(hex(stray.reason.rawValue, digits: 2)))"
                        + " (frame \(stray.record + 1))"
                        + (stray.repeats > 0 ? "; repeated \(Wording.count(stray.repeats, "time"))" : ""))
            }
        }
    }

    /// The reasons a completion of this host's own Disconnect carries: Connection Terminated By
    /// Local Host (0x16), or the reason the host gave (Core 6.0, Vol 4, Part E, §7.1.6: 0x05,
    /// 0x13-0x15, 0x1A, 0x29, 0x3B).
    static let localDisconnectionReasons: Set<UInt8> = [0x16, 0x05, 0x13, 0x14, 0x15, 0x1A, 0x29, 0x3B]

    /// How a transport is named in the story.
    static func name(of transport: Connection.Transport) -> String {
        switch transport {
        case .le: "LE"
        case .classic: "BR/EDR"
        case .unknown: "transport unknown"
        }
    }
}

extension LifecycleStory {
    func time(_ timestamp: Timestamp, _ origin: Timestamp) -> String {
        "  " + Wording.sinceStart(timestamp, origin: origin) + "  "
    }

    /// Connections by transport, outcome and reason, then peers, scans and errors.
    func writeSummary(_ emit: (String) -> Void) {
        emit("")
        emit(style.bold("summary"))
        if let findings {
            emit("  findings: " + FindingList.counts(findings) + (findings.isEmpty ? "" : " (bletrace diagnose)"))
        }
        func counts(_ list: [LifecycleSummary.Count]) -> String {
            list.map { count in
                "\(count.count) × \(count.name) (\(hex(count.code, digits: 2)))"
                    + (count.initiator.map {
                        $0 == "local" ? " by this host" : $0 == "remote" ? " by the peer or link" : ""
                    } ?? "")
            }.joined(separator: ", ")
        }
        func transport(_ label: String, _ t: LifecycleSummary.Transport, note: String = "") {
            guard t.total > 0 else { return }
            var parts = ["\(t.connected) connected"]
            if t.failed > 0 { parts.append("\(t.failed) failed") }
            if t.cancelled > 0 { parts.append("\(t.cancelled) cancelled by this host") }
            if t.pending > 0 { parts.append("\(t.pending) pending at the end") }
            emit(
                "  \(label): \(Wording.count(t.total, "connection")) and attempts: "
                    + parts.joined(separator: ", ") + note)
            if !t.disconnections.isEmpty || t.open > 0 {
                emit(
                    "      ended: " + (t.disconnections.isEmpty ? "none" : counts(t.disconnections))
                        + (t.open > 0 ? "; \(t.open) still open at the end" : ""))
            }
            if !t.failures.isEmpty { emit(style.red("      failed: " + counts(t.failures))) }
        }
        if summary.le.total + summary.brEdr.total + summary.unknownTransport.total == 0 { emit("  no connections") }
        transport("LE", summary.le)
        transport("BR/EDR", summary.brEdr, note: " (CoreBluetooth makes LE connections only: its errors do not apply)")
        transport(
            "transport unknown", summary.unknownTransport,
            note: " (links that began before the capture and showed nothing of their transport)")
        if summary.strayDisconnections > 0 {
            let n = summary.strayDisconnections
            emit(
                "  stray: \(Wording.count(n, "Disconnection Complete event")) for a handle with no link in the capture (listed at the end)"
            )
        }
        if !summary.peers.isEmpty {
            let shown = summary.peers.prefix(5).map { peer in
                peer.address + (peer.name.map { " \"\($0)\"" } ?? "") + " (\(peer.connections) connected"
                    + (peer.failed > 0 ? ", \(peer.failed) failed" : "")
                    + (peer.cancelled > 0 ? ", \(peer.cancelled) cancelled" : "")
                    + (peer.pending > 0 ? ", \(peer.pending) pending" : "") + ")"
            }
            emit(
                "  peers: \(summary.peers.count): " + shown.joined(separator: ", ")
                    + (summary.peers.count > 5 ? ", …" : ""))
        }
        if summary.scans > 0 {
            emit(
                "  scans: \(summary.scans)"
                    + (summary.emptyScans > 0 ? ", \(summary.emptyScans) of them heard no advertising" : ""))
        }
        emit(
            "  errors: \(summary.unexpectedErrors) unexpected, \(summary.errors - summary.unexpectedErrors) expected"
                + (summary.errors > 0 ? " (bletrace errors lists them)" : ""))
    }

    /// One line for a connection, for --brief.
    func briefLine(_ connection: Connection, origin: Timestamp, end: Timestamp?) -> String {
        var line =
            "connection \(connection.id + 1)".rightPadded(15) + Self.name(of: connection.transport).rightPadded(6)
        line +=
            "  "
            + (connection.peer.map { "\($0)" }
                ?? (connection.attempt?.usesFilterAcceptList == true ? "filter accept list" : "unknown peer")
                .rightPadded(17))
        if let name = connection.peerName { line += " \"\(name)\"" }
        let start = connection.completion?.time ?? connection.attempt?.time
        if let start { line += "  " + Wording.sinceStart(start, origin: origin) }
        switch connection.outcome {
        case .disconnected:
            if let disconnection = connection.disconnection {
                let reason = disconnection.reason
                line += " → " + Wording.sinceStart(disconnection.time, origin: origin)
                line += (connection.duration.map { " (\(Wording.duration($0)))" } ?? "")
                line +=
                    "  disconnected \(disconnection.initiator == .local ? "by this host" : "by the peer or link"): \(reason.name ?? "\(reason)") (\(hex(reason.rawValue, digits: 2)))"
            }
        case .failed:
            line +=
                "  "
                + style.red(
                    "failed: "
                        + (connection.completion.map(\.status).map {
                            "\($0.name ?? "\($0)") (\(hex($0.rawValue, digits: 2)))"
                        } ?? "?"))
        case .cancelled: line += "  cancelled by this host"
        case .pending: line += "  pending at the end"
        case .open: line += "  still open at the end"
        }
        return line
    }

    /// Scans (with the devices they heard) and this host's advertising sets.
    func writeScans(origin: Timestamp, _ emit: (String) -> Void) {
        // Scans that heard nothing, one after the other, are folded into one line.
        var quiet: [Scan] = []
        func foldQuiet() {
            defer { quiet = [] }
            guard let first = quiet.first, let last = quiet.last else { return }
            emit("")
            let numbers = quiet.count == 1 ? "scan \(first.id + 1)" : "scans \(first.id + 1)-\(last.id + 1)"
            var line = "\(numbers): \(quiet.count == 1 ? "heard" : "\(quiet.count) scans heard") no advertising"
            if let start = first.startTime { line += ", " + Wording.sinceStart(start, origin: origin) }
            if let stop = last.stopTime ?? last.startTime { line += " to " + Wording.sinceStart(stop, origin: origin) }
            emit(style.dim(line))
        }
        for scan in report.scans {
            if scan.reports == 0 {
                quiet.append(scan)
                continue
            }
            foldQuiet()
            emit("")
            var title = "scan \(scan.id + 1): \(scan.extended ? "extended" : "legacy")"
            if let active = scan.active { title += active ? ", active" : ", passive" }
            if let interval = scan.interval, let window = scan.window {
                title +=
                    ", window \(Wording.milliseconds(window, unit: 0.625)) every \(Wording.milliseconds(interval, unit: 0.625))"
            }
            if scan.filterDuplicates == true { title += ", duplicates filtered" }
            emit(title)
            if scan.beganBeforeCapture { emit("  (scanning before the capture began)") }
            if let start = scan.startTime { emit(time(start, origin) + "started") }
            emit(
                "              \(Wording.count(scan.reports, "advertising report")) from \(Wording.count(scan.devices.count, "device"))"
            )
            for device in scan.devices.sorted(by: { $0.reports > $1.reports }).prefix(20) {
                var line = "                \(device.address)"
                if let name = device.name { line += " \"\(name)\"" }
                if !device.serviceUUIDs.isEmpty {
                    line += " services " + device.serviceUUIDs.map { "\($0)" }.joined(separator: ",")
                }
                if let low = device.rssiMin, let high = device.rssiMax {
                    line += " RSSI \(low == high ? "\(low)" : "\(low)…\(high)") dBm"
                }
                line +=
                    ", \(Wording.count(device.reports, "report"))"
                    + (device.connectable ? ", connectable" : "")
                emit(line)
            }
            if scan.devices.count > 20 {
                emit("                … \(scan.devices.count - 20) more (--format json lists them all)")
            }
            if let stop = scan.stopTime {
                emit(time(stop, origin) + "stopped")
            } else {
                emit("              still scanning at the end of the capture")
            }
        }
        foldQuiet()
        for set in report.advertising {
            emit("")
            var title = "advertising \(set.id + 1)" + (set.handle.map { ", set \($0)" } ?? ", legacy")
            if let name = set.name { title += ", name \"\(name)\"" }
            emit(title)
            if let start = set.startTime {
                emit(
                    time(start, origin) + "started"
                        + (set.intervalMin.map {
                            ", interval \(Wording.milliseconds(UInt16(clamping: $0), unit: 0.625))"
                        } ?? ""))
            }
            if let stop = set.stopTime {
                emit(time(stop, origin) + "stopped")
            } else {
                emit("              still advertising at the end of the capture")
            }
        }
    }

    func describe(_ kind: Connection.Change.Kind) -> String {
        func phy(_ value: UInt8) -> String { LEPHY(rawValue: value).shortName }
        switch kind {
        case .parameters(let interval, let latency, let timeout):
            return
                "parameters updated: interval \(Wording.milliseconds(interval, unit: 1.25)), latency \(latency), supervision timeout \(Wording.milliseconds(timeout, unit: 10))"
        case .dataLength(let tx, let rx): return "data length: \(tx) bytes out, \(rx) in"
        case .phy(let tx, let rx): return "PHY: \(phy(tx)) out, \(phy(rx)) in"
        case .encryption(let enabled, let keySize):
            return enabled ? "encryption on" + (keySize.map { " (key size \($0))" } ?? "") : "encryption off"
        case .keyRefresh: return "encryption key refreshed"
        case .failed(let what, let status): return "\(what) failed: \(status) (\(hex(status.rawValue, digits: 2)))"
        case .serviceChanged(let start, let end):
            return
                "Service Changed: the peer's attributes \(hex(start, digits: 4))-\(hex(end, digits: 4)) changed; what was discovered there no longer holds"
        }
    }

    /// One pairing, as a line: who started it, its method, how it ended, what led to it.
    func describe(_ pairing: Pairing, _ connection: Connection) -> String {
        var text =
            "pairing started by " + (pairing.startedBy == .host ? "this host" : "the peer")
            + (pairing.securityRequested ? " (Security Request)" : "") + " (frame \(pairing.record + 1))"
        var how: [String] = []
        if let secure = pairing.secureConnections { how.append(secure ? "LE Secure Connections" : "legacy") }
        if let method = pairing.method { how.append(method.rawValue) }
        if let bonding = pairing.bonding { how.append(bonding ? "bonding" : "no bonding") }
        if !how.isEmpty { text += ", " + how.joined(separator: ", ") }
        if let cause = pairing.causeRecord { text += ", after the refusal for security in frame \(cause + 1)" }
        switch pairing.outcome {
        case .encrypted:
            text += ": encrypted" + (pairing.endRecord.map { " (frame \($0 + 1))" } ?? "")
        case .failed:
            text +=
                ": failed, Pairing Failed sent by " + (pairing.failedBy == .host ? "this host" : "the peer")
                + ": \(pairing.failureName ?? "?")" + (pairing.endRecord.map { " (frame \($0 + 1))" } ?? "")
        case .unfinished:
            text += ": never finished"
        }
        if let earlier = pairing.pairedBeforeOn {
            text += "; paired already on connection \(earlier + 1): the bond was not kept"
        }
        return text
    }
}
