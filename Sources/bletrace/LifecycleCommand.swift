import ArgumentParser
import BLETrace

/// `bletrace lifecycle FILE`: the story of every connection.
struct LifecycleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifecycle",
        abstract: "Tell what happened to every connection: attempt, connection, MTU, traffic, who disconnected and why.")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, jsonl (the JSON document on one line), or a timeline picture: svg or html (self-contained).")
    var format: LifecycleFormat = .text
    @OptionGroup var output: OutputOptions

    @OptionGroup var selection: SelectionOptions

    func run() throws {
        try output.apply(input: capture.file)
        let path = try capture.path
        if format == .svg || format == .html { return try printTimeline(path: path, html: format == .html) }
        let reader = try openCapture(path)
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        var collector = ErrorCollector()
        var fault: (any Error)?
        do {
            while let record = try reader.next() {
                let decoded = decoder.decode(record)
                analyzer.add(record, decoded)
                collector.add(record, decoded, analyzer: analyzer)
            }
        } catch { fault = error }
        var report = analyzer.report
        let names = analyzer.scanning.names
        var errors = collector.errors
        if let origin = report.firstTime, !selection.isEmpty {
            let end = report.lastTime
            report.connections = report.connections.filter { selection.matches($0, origin: origin, end: end) }
            report.scans = report.scans.filter { scan in
                selection.overlaps(start: scan.startTime, end: scan.stopTime ?? end, origin: origin) && selection.transport != .brEdr
                    && (selection.peer == nil || scan.devices.contains { selection.matches(peer: $0.address, name: names[$0.address]) })
            }
            report.advertising = selection.peer == nil && selection.transport != .brEdr
                ? report.advertising.filter { selection.overlaps(start: $0.startTime, end: $0.stopTime ?? end, origin: origin) } : []
            errors = errors.filter {
                selection.matches(peer: $0.peer, name: $0.peer.flatMap { names[$0] }) && selection.matches($0.transport)
                    && selection.contains($0.time, origin: origin)
            }
        }
        let summary = LifecycleSummary(connections: report.connections, scans: report.scans, errors: errors)
        if format == .json {
            // The connections are written one by one: a long capture has thousands.
            var document = JSONLifecycle(report, summary: summary)
            let connections = document.connections
            document.connections = []
            try Output.prettyJSON(document, streaming: "connections", connections)
        } else if format == .jsonl {
            try Output.json(JSONLifecycle(report, summary: summary))
        } else {
            printStory(report, summary: summary)
        }
        try finish(fault)
    }

    private func printStory(_ report: LifecycleReport, summary: LifecycleSummary) {
        guard let origin = report.firstTime else {
            Output.line("no records")
            return
        }
        var header = "\(report.records) records"
        if let last = report.lastTime { header += " over \(seconds(last.seconds(since: origin)))" }
        Output.line(header + " from \(isoTime(origin)); times are seconds from the first record, frames as Wireshark numbers them")
        if !selection.isEmpty { Output.line("showing: " + selectionDescription) }
        printSummary(summary)
        if selection.brief {
            Output.line("")
            for connection in report.connections { Output.line(briefLine(connection, origin: origin, end: report.lastTime)) }
            return
        }
        printScans(report, origin: origin)
        for connection in report.connections {
            Output.line("")
            var title = "connection \(connection.id + 1): \(connection.transport == .le ? "LE" : "BR/EDR")"
            if let role = connection.role { title += ", local \(role)" }
            if let peer = connection.peer {
                title += ", peer \(peer)"
                if let name = connection.peerName { title += " \"\(name)\"" }
                if let type = connection.peerAddressType { title += type & 1 == 0 ? " (public)" : " (random)" }
            } else if connection.usesFilterAcceptList {
                title += ", any device on the filter accept list"
            }
            if let handle = connection.handle { title += ", handle \(hex(handle, digits: 4))" }
            Output.line(Style.bold(title))
            let time = { (timestamp: Timestamp) in self.time(timestamp, origin) }
            if connection.beganBeforeCapture {
                Output.line("  (connected before the capture began)")
            }
            if let attempt = connection.attemptTime {
                Output.line(time(attempt) + "attempt (frame \(connection.attemptRecord! + 1))")
            }
            if let cancel = connection.cancelTime {
                Output.line(time(cancel) + "attempt cancelled by the host")
            }
            if let complete = connection.completeTime, let status = connection.status {
                if status == .success {
                    Output.line(time(complete) + "connected (frame \(connection.completeRecord! + 1))")
                } else {
                    var line = time(complete) + "attempt ended: \(status) (\(hex(status.rawValue, digits: 2)))"
                    if connection.transport == .classic {
                        line += "; CoreBluetooth does not apply (BR/EDR)"
                    } else if connection.outcome == .failed, let error = connection.cbError {
                        line += "; CoreBluetooth: didFailToConnect, error \(error.value.map { "\($0)" } ?? "nil") [\(error.evidence.rawValue)]"
                    }
                    Output.line(connection.outcome == .failed ? Style.red(line) : line)
                }
            }
            if let interval = connection.interval, let latency = connection.latency, let timeout = connection.supervisionTimeout {
                Output.line("              interval \(milliseconds(interval, 1.25)), latency \(latency), supervision timeout \(milliseconds(timeout, 10))")
            }
            var moments: [(Timestamp, String)] = connection.changes.map { ($0.time, describe($0.kind)) }
            if let start = connection.discoveryStart, let duration = connection.discoveryDuration {
                let procedures = connection.discoveryProcedures.map {
                    "\($0.kind.rawValue) \(seconds($0.duration)) (\($0.requests) request\($0.requests == 1 ? "" : "s"))"
                }
                moments.append((start, "discovery: \(seconds(duration))" + (procedures.isEmpty ? "" : "; " + procedures.joined(separator: ", "))))
            }
            for subscription in connection.subscriptions {
                let what = subscription.uuid.map { "\($0)" + (GATTNames.name(for: $0).map { " \($0)" } ?? "") }
                    ?? "the descriptor at \(hex(subscription.descriptorHandle, digits: 4))"
                moments.append((subscription.time, subscription.mode == .off ? "unsubscribed from \(what)" : "subscribed to \(what) (\(subscription.mode.rawValue))"))
            }
            for (time, text) in moments.sorted(by: { $0.0 < $1.0 }) { Output.line(self.time(time, origin) + text) }
            if connection.outcome == .open || connection.outcome == .disconnected {
                var traffic = "              "
                if let mtu = connection.effectiveMTU { traffic += "MTU \(mtu)\(connection.mtu == nil ? " (default)" : ""); " }
                func n(_ count: Int, _ what: String) -> String { "\(count) \(what)\(count == 1 ? "" : "s")" }
                traffic += "ATT: \(n(connection.attRequests, "request")) (\(n(connection.attReads, "read")), \(n(connection.attWrites, "write"))), "
                    + "\(n(connection.attWriteCommands, "write")) without response, \(n(connection.attErrors, "error")), "
                    + "\(n(connection.attNotifications, "notification")), \(n(connection.attIndications, "indication")), \(n(connection.attBytes, "byte"))"
                Output.line(traffic)
                if connection.serviceChangedIndications > 0 {
                    Output.line("              Service Changed indicated \(connection.serviceChangedIndications) time(s): the peer's database changed")
                }
                let end = connection.disconnectTime ?? report.lastTime ?? origin
                for request in connection.unansweredRequests {
                    let waited = end.seconds(since: request.time)
                    Output.line("              unanswered: \(request.opcode)" + (request.attributeHandle.map { " of \(hex($0, digits: 4))" } ?? "")
                        + " (frame \(request.record + 1)), \(seconds(waited)) before the \(connection.disconnectTime == nil ? "end of the capture" : "disconnection")"
                        + (waited > 30 ? "; past the 30 s ATT transaction timeout" : ""))
                }
            }
            if let end = connection.disconnectTime, let reason = connection.reason {
                let who = connection.initiator == .local ? "by this host" : "by the peer or the link"
                var line = time(end) + "disconnected \(who): \(reason) (\(hex(reason.rawValue, digits: 2)))"
                if let duration = connection.duration { line += ", after " + seconds(duration) }
                Output.line(connection.initiator == .local ? line : Style.yellow(line))
                if let error = connection.cbError {
                    Output.line("              CoreBluetooth: didDisconnectPeripheral, error \(error.value.map { "\($0) (\($0.errorCode))" } ?? "nil") [\(error.evidence.rawValue)]")
                }
            }
            switch connection.outcome {
            case .pending: Output.line("              still pending at the end of the capture")
            case .open: Output.line("              still connected at the end of the capture")
            default: break
            }
        }
    }
}

extension LifecycleCommand {
    func time(_ timestamp: Timestamp, _ origin: Timestamp) -> String { "  " + relativeTime(timestamp, since: origin) + "  " }

    var selectionDescription: String {
        var parts: [String] = []
        if let peer = selection.peer { parts.append("peer \(peer)") }
        if let transport = selection.transport { parts.append(transport == .le ? "LE" : "BR/EDR") }
        if let from = selection.from { parts.append("from +\(from) s") }
        if let to = selection.to { parts.append("to +\(to) s") }
        return parts.joined(separator: ", ")
    }

    /// Connections by transport, outcome and reason, then peers, scans and errors.
    func printSummary(_ summary: LifecycleSummary) {
        Output.line("")
        Output.line(Style.bold("summary"))
        func counts(_ list: [LifecycleSummary.Count]) -> String {
            list.map { count in
                "\(count.count) × \(count.name) (\(hex(count.code, digits: 2)))"
                    + (count.initiator.map { $0 == "local" ? " by this host" : $0 == "remote" ? " by the peer or link" : "" } ?? "")
            }.joined(separator: ", ")
        }
        func transport(_ label: String, _ t: LifecycleSummary.Transport, note: String = "") {
            guard t.total > 0 else { return }
            var parts = ["\(t.connected) connected"]
            if t.failed > 0 { parts.append("\(t.failed) failed") }
            if t.cancelled > 0 { parts.append("\(t.cancelled) cancelled by this host") }
            if t.pending > 0 { parts.append("\(t.pending) pending at the end") }
            Output.line("  \(label): \(t.total) connection\(t.total == 1 ? "" : "s") and attempts: " + parts.joined(separator: ", ") + note)
            if !t.disconnections.isEmpty || t.open > 0 {
                Output.line("      ended: " + (t.disconnections.isEmpty ? "none" : counts(t.disconnections)) + (t.open > 0 ? "; \(t.open) still open at the end" : ""))
            }
            if !t.failures.isEmpty { Output.line(Style.red("      failed: " + counts(t.failures))) }
        }
        if summary.le.total + summary.brEdr.total == 0 { Output.line("  no connections") }
        transport("LE", summary.le)
        transport("BR/EDR", summary.brEdr, note: " (CoreBluetooth makes LE connections only: its errors do not apply)")
        if !summary.peers.isEmpty {
            let shown = summary.peers.prefix(5).map { peer in
                peer.address + (peer.name.map { " \"\($0)\"" } ?? "") + " (\(peer.connections) connected"
                    + (peer.failed > 0 ? ", \(peer.failed) failed" : "") + ")"
            }
            Output.line("  peers: \(summary.peers.count): " + shown.joined(separator: ", ") + (summary.peers.count > 5 ? ", …" : ""))
        }
        if summary.scans > 0 {
            Output.line("  scans: \(summary.scans)" + (summary.emptyScans > 0 ? ", \(summary.emptyScans) of them heard no advertising" : ""))
        }
        Output.line("  errors: \(summary.unexpectedErrors) unexpected, \(summary.errors - summary.unexpectedErrors) expected" + (summary.errors > 0 ? " (bletrace errors lists them)" : ""))
    }

    /// One line for a connection, for --brief.
    func briefLine(_ connection: Connection, origin: Timestamp, end: Timestamp?) -> String {
        var line = "connection \(connection.id + 1)".rightPadded(15) + (connection.transport == .le ? "LE    " : "BR/EDR")
        line += "  " + (connection.peer.map { "\($0)" } ?? (connection.usesFilterAcceptList ? "filter accept list" : "unknown peer").rightPadded(17))
        if let name = connection.peerName { line += " \"\(name)\"" }
        let start = connection.completeTime ?? connection.attemptTime
        if let start { line += "  " + relativeTime(start, since: origin) }
        switch connection.outcome {
        case .disconnected:
            if let reason = connection.reason {
                line += " → " + relativeTime(connection.disconnectTime!, since: origin)
                line += (connection.duration.map { " (\(seconds($0)))" } ?? "")
                line += "  disconnected \(connection.initiator == .local ? "by this host" : "by the peer or link"): \(reason.name ?? "\(reason)") (\(hex(reason.rawValue, digits: 2)))"
            }
        case .failed:
            line += "  " + Style.red("failed: " + (connection.status.map { "\($0.name ?? "\($0)") (\(hex($0.rawValue, digits: 2)))" } ?? "?"))
        case .cancelled: line += "  cancelled by this host"
        case .pending: line += "  pending at the end"
        case .open: line += "  still open at the end"
        }
        return line
    }

    /// Scans (with the devices they heard) and this host's advertising sets.
    func printScans(_ report: LifecycleReport, origin: Timestamp) {
        // Scans that heard nothing, one after the other, are folded into one line.
        var quiet: [Scan] = []
        func foldQuiet() {
            defer { quiet = [] }
            guard let first = quiet.first, let last = quiet.last else { return }
            Output.line("")
            let numbers = quiet.count == 1 ? "scan \(first.id + 1)" : "scans \(first.id + 1)-\(last.id + 1)"
            var line = "\(numbers): \(quiet.count == 1 ? "heard" : "\(quiet.count) scans heard") no advertising"
            if let start = first.startTime { line += ", " + relativeTime(start, since: origin) }
            if let stop = last.stopTime ?? last.startTime { line += " to " + relativeTime(stop, since: origin) }
            Output.line(Style.dim(line))
        }
        for scan in report.scans {
            if scan.reports == 0 {
                quiet.append(scan)
                continue
            }
            foldQuiet()
            Output.line("")
            var title = "scan \(scan.id + 1): \(scan.extended ? "extended" : "legacy")"
            if let active = scan.active { title += active ? ", active" : ", passive" }
            if let interval = scan.interval, let window = scan.window {
                title += ", window \(milliseconds(window, 0.625)) every \(milliseconds(interval, 0.625))"
            }
            if scan.filterDuplicates == true { title += ", duplicates filtered" }
            Output.line(title)
            if scan.beganBeforeCapture { Output.line("  (scanning before the capture began)") }
            if let start = scan.startTime { Output.line(time(start, origin) + "started") }
            Output.line("              \(scan.reports) advertising reports from \(scan.devices.count) devices")
            for device in scan.devices.sorted(by: { $0.reports > $1.reports }).prefix(20) {
                var line = "                \(device.address)"
                if let name = device.name { line += " \"\(name)\"" }
                if !device.serviceUUIDs.isEmpty { line += " services " + device.serviceUUIDs.map { "\($0)" }.joined(separator: ",") }
                if let low = device.rssiMin, let high = device.rssiMax { line += " RSSI \(low == high ? "\(low)" : "\(low)…\(high)") dBm" }
                line += ", \(device.reports) report\(device.reports == 1 ? "" : "s")" + (device.connectable ? ", connectable" : "")
                Output.line(line)
            }
            if scan.devices.count > 20 { Output.line("                … \(scan.devices.count - 20) more (--format json lists them all)") }
            if let stop = scan.stopTime { Output.line(time(stop, origin) + "stopped") } else { Output.line("              still scanning at the end of the capture") }
        }
        foldQuiet()
        for set in report.advertising {
            Output.line("")
            var title = "advertising \(set.id + 1)" + (set.handle.map { ", set \($0)" } ?? ", legacy")
            if let name = set.name { title += ", name \"\(name)\"" }
            Output.line(title)
            if let start = set.startTime { Output.line(time(start, origin) + "started" + (set.intervalMin.map { ", interval \(milliseconds(UInt16(clamping: $0), 0.625))" } ?? "")) }
            if let stop = set.stopTime { Output.line(time(stop, origin) + "stopped") } else { Output.line("              still advertising at the end of the capture") }
        }
    }

    func describe(_ kind: Connection.Change.Kind) -> String {
        func phy(_ value: UInt8) -> String { value == 1 ? "1M" : value == 2 ? "2M" : value == 3 ? "Coded" : "PHY \(value)" }
        switch kind {
        case .parameters(let interval, let latency, let timeout):
            return "parameters updated: interval \(milliseconds(interval, 1.25)), latency \(latency), supervision timeout \(milliseconds(timeout, 10))"
        case .dataLength(let tx, let rx): return "data length: \(tx) bytes out, \(rx) in"
        case .phy(let tx, let rx): return "PHY: \(phy(tx)) out, \(phy(rx)) in"
        case .encryption(let enabled, let keySize):
            return enabled ? "encryption on" + (keySize.map { " (key size \($0))" } ?? "") : "encryption off"
        case .keyRefresh: return "encryption key refreshed"
        case .failed(let what, let status): return "\(what) failed: \(status) (\(hex(status.rawValue, digits: 2)))"
        case .serviceChanged(let start, let end):
            return "Service Changed: the peer's attributes \(hex(start, digits: 4))-\(hex(end, digits: 4)) changed; what was discovered there no longer holds"
        }
    }
}

/// `12` units of 1.25 ms → `15 ms`.
func milliseconds(_ value: UInt16, _ unit: Double) -> String {
    let ms = Double(value) * unit
    return (ms == ms.rounded() ? String(Int(ms)) : String(ms)) + " ms"
}

/// The JSON contract of `bletrace lifecycle --format json` (Formats/json.md).
struct JSONLifecycle: Encodable {
    struct CBErrorJSON: Encodable {
        var domain: String
        var code: Int
        var name: String?
        var evidence: String
    }
    struct ATTCounts: Encodable {
        var requests: Int
        var errors: Int
        var notifications: Int
        var indications: Int
        var reads: Int
        var writes: Int
        var write_commands: Int
        var bytes: Int
    }
    struct ConnectionJSON: Encodable {
        var id: Int
        var transport: String
        var handle: UInt16?
        var peer: String?
        var peer_address_type: UInt8?
        /// The name the peer advertised, where a scan in the capture heard it.
        var peer_name: String?
        var role: String?
        var attempt_ts_us: Int64?
        var attempt_index: Int?
        var attempt_frame: Int?
        var cancel_ts_us: Int64?
        var connect_ts_us: Int64?
        var connect_index: Int?
        var connect_frame: Int?
        var status: UInt8?
        /// The effective ATT MTU (23 on LE when none was exchanged); absent when unknown.
        var mtu: UInt16?
        var mtu_exchanged: Bool
        var disconnect_ts_us: Int64?
        var disconnect_index: Int?
        var disconnect_frame: Int?
        var duration_ms: Double?
        var reason: UInt8?
        var reason_name: String?
        var initiator: String?
        var outcome: String
        var began_before_capture: Bool
        /// `null` when CoreBluetooth would report no error; absent when there is nothing to report.
        var cb_error: NullOr<CBErrorJSON>?
        var att: ATTCounts
        var interval_ms: Double?
        var interval_raw: UInt16?
        var latency: UInt16?
        var supervision_timeout_ms: Int?
        var supervision_timeout_raw: UInt16?
        var changes: [ChangeJSON]
        var discovery: DiscoveryJSON?
        var subscriptions: [SubscriptionJSON]
        var unanswered: [UnansweredJSON]
        var service_changed: Int
    }
    struct ChangeJSON: Encodable {
        var ts_us: Int64
        var index: Int
        var frame: Int
        var kind: String
        var interval_ms: Double?
        var interval_raw: UInt16?
        var latency: UInt16?
        var supervision_timeout_ms: Int?
        var supervision_timeout_raw: UInt16?
        var max_tx_octets: UInt16?
        var max_rx_octets: UInt16?
        var tx_phy: UInt8?
        var rx_phy: UInt8?
        var encrypted: Bool?
        var key_size: UInt8?
        var status: UInt8?
        var start_handle: UInt16?
        var end_handle: UInt16?
    }
    struct DiscoveryJSON: Encodable {
        var start_ts_us: Int64
        var end_ts_us: Int64
        var duration_ms: Double
        var procedures: [ProcedureJSON]
    }
    struct ProcedureJSON: Encodable {
        var kind: String
        var start_ts_us: Int64
        var end_ts_us: Int64
        var duration_ms: Double
        var requests: Int
    }
    struct SubscriptionJSON: Encodable {
        var ts_us: Int64
        var index: Int
        var frame: Int
        var handle: UInt16?
        var descriptor: UInt16
        var uuid: String?
        var mode: String
    }
    struct UnansweredJSON: Encodable {
        var opcode: UInt8
        var name: String?
        var handle: UInt16?
        var ts_us: Int64
        var index: Int
        var frame: Int
    }
    var version = jsonVersion
    var summary: LifecycleSummary
    var records: Int
    var first_ts_us: Int64?
    var last_ts_us: Int64?
    var connections: [ConnectionJSON]
    var scans: [ScanJSON]
    var advertising: [AdvertisingJSON]

    struct DeviceJSON: Encodable {
        var address: String
        var address_type: UInt8
        var name: String?
        var service_uuids: [String]
        var connectable: Bool
        var rssi_min: Int8?
        var rssi_max: Int8?
        var reports: Int
        var first_ts_us: Int64
        var last_ts_us: Int64
    }
    struct ScanJSON: Encodable {
        var id: Int
        var start_ts_us: Int64?
        var stop_ts_us: Int64?
        var began_before_capture: Bool
        var extended: Bool
        var active: Bool?
        var interval_ms: Double?
        var interval_raw: UInt16?
        var window_ms: Double?
        var window_raw: UInt16?
        var filter_duplicates: Bool?
        var reports: Int
        var devices: [DeviceJSON]
    }
    struct AdvertisingJSON: Encodable {
        var id: Int
        var handle: UInt8?
        var start_ts_us: Int64?
        var stop_ts_us: Int64?
        var interval_min_ms: Double?
        var interval_min_raw: UInt32?
        var interval_max_ms: Double?
        var interval_max_raw: UInt32?
        var name: String?
        var data: String
        var scan_response: String
    }

    /// A count of `unit` ms as ms, to the µs.
    static func ms(_ value: some BinaryInteger, _ unit: Double) -> Double { (Double(value) * unit * 1000).rounded() / 1000 }

    static func change(_ change: Connection.Change) -> ChangeJSON {
        var json = ChangeJSON(ts_us: change.time.microseconds, index: change.record, frame: change.record + 1, kind: "")
        switch change.kind {
        case .parameters(let interval, let latency, let timeout):
            (json.kind, json.interval_raw, json.latency, json.supervision_timeout_raw) = ("parameters", interval, latency, timeout)
            (json.interval_ms, json.supervision_timeout_ms) = (ms(interval, 1.25), Int(timeout) * 10)
        case .dataLength(let tx, let rx): (json.kind, json.max_tx_octets, json.max_rx_octets) = ("data_length", tx, rx)
        case .phy(let tx, let rx): (json.kind, json.tx_phy, json.rx_phy) = ("phy", tx, rx)
        case .encryption(let enabled, let keySize): (json.kind, json.encrypted, json.key_size) = ("encryption", enabled, keySize)
        case .keyRefresh: json.kind = "key_refresh"
        case .failed(let what, let status): (json.kind, json.status) = (what.replacingOccurrences(of: " ", with: "_") + "_failed", status.rawValue)
        case .serviceChanged(let start, let end): (json.kind, json.start_handle, json.end_handle) = ("service_changed", start, end)
        }
        return json
    }

    init(_ report: LifecycleReport, summary: LifecycleSummary) {
        self.summary = summary
        records = report.records
        first_ts_us = report.firstTime?.microseconds
        last_ts_us = report.lastTime?.microseconds
        scans = report.scans.map { scan in
            ScanJSON(
                id: scan.id, start_ts_us: scan.startTime?.microseconds, stop_ts_us: scan.stopTime?.microseconds,
                began_before_capture: scan.beganBeforeCapture, extended: scan.extended, active: scan.active,
                interval_ms: scan.interval.map { Self.ms($0, 0.625) }, interval_raw: scan.interval,
                window_ms: scan.window.map { Self.ms($0, 0.625) }, window_raw: scan.window,
                filter_duplicates: scan.filterDuplicates, reports: scan.reports,
                devices: scan.devices.map {
                    DeviceJSON(
                        address: "\($0.address)", address_type: $0.addressType, name: $0.name,
                        service_uuids: $0.serviceUUIDs.map { "\($0)" }, connectable: $0.connectable, rssi_min: $0.rssiMin,
                        rssi_max: $0.rssiMax, reports: $0.reports, first_ts_us: $0.firstSeen.microseconds, last_ts_us: $0.lastSeen.microseconds)
                })
        }
        advertising = report.advertising.map {
            AdvertisingJSON(
                id: $0.id, handle: $0.handle, start_ts_us: $0.startTime?.microseconds, stop_ts_us: $0.stopTime?.microseconds,
                interval_min_ms: $0.intervalMin.map { Self.ms($0, 0.625) }, interval_min_raw: $0.intervalMin,
                interval_max_ms: $0.intervalMax.map { Self.ms($0, 0.625) }, interval_max_raw: $0.intervalMax, name: $0.name,
                data: $0.data.withUnsafeBytes(\.hexString), scan_response: $0.scanResponse.withUnsafeBytes(\.hexString))
        }
        connections = report.connections.map { connection in
            ConnectionJSON(
                id: connection.id, transport: connection.transport.rawValue, handle: connection.handle,
                peer: connection.peer.map { "\($0)" }, peer_address_type: connection.peerAddressType,
                peer_name: connection.peerName,
                role: connection.role?.rawValue, attempt_ts_us: connection.attemptTime?.microseconds,
                attempt_index: connection.attemptRecord, attempt_frame: connection.attemptRecord.map { $0 + 1 },
                cancel_ts_us: connection.cancelTime?.microseconds,
                connect_ts_us: connection.status == .success ? connection.completeTime?.microseconds : nil,
                connect_index: connection.completeRecord, connect_frame: connection.completeRecord.map { $0 + 1 },
                status: connection.status?.rawValue, mtu: connection.effectiveMTU, mtu_exchanged: connection.mtu != nil,
                disconnect_ts_us: connection.disconnectTime?.microseconds,
                disconnect_index: connection.disconnectRecord, disconnect_frame: connection.disconnectRecord.map { $0 + 1 },
                duration_ms: connection.duration.map { ($0 * 1_000_000).rounded() / 1000 },
                reason: connection.reason?.rawValue,
                reason_name: connection.reason?.name, initiator: connection.initiator?.rawValue,
                outcome: connection.outcome.rawValue, began_before_capture: connection.beganBeforeCapture,
                cb_error: connection.cbError.map { mapped in
                    NullOr(mapped.value.map { error in
                        CBErrorJSON(
                            domain: CBError.errorDomain, code: error.errorCode, name: error.name,
                            evidence: mapped.evidence.rawValue)
                    })
                },
                att: ATTCounts(
                    requests: connection.attRequests, errors: connection.attErrors,
                    notifications: connection.attNotifications, indications: connection.attIndications,
                    reads: connection.attReads, writes: connection.attWrites, write_commands: connection.attWriteCommands,
                    bytes: connection.attBytes),
                interval_ms: connection.interval.map { Self.ms($0, 1.25) }, interval_raw: connection.interval,
                latency: connection.latency,
                supervision_timeout_ms: connection.supervisionTimeout.map { Int($0) * 10 },
                supervision_timeout_raw: connection.supervisionTimeout,
                changes: connection.changes.map(Self.change),
                discovery: connection.discoveryStart.flatMap { start in
                    connection.discoveryEnd.map {
                        DiscoveryJSON(
                            start_ts_us: start.microseconds, end_ts_us: $0.microseconds,
                            duration_ms: Double($0.microseconds - start.microseconds) / 1000,
                            procedures: connection.discoveryProcedures.map {
                                ProcedureJSON(
                                    kind: $0.kind.rawValue, start_ts_us: $0.start.microseconds, end_ts_us: $0.end.microseconds,
                                    duration_ms: Double($0.end.microseconds - $0.start.microseconds) / 1000, requests: $0.requests)
                            })
                    }
                },
                subscriptions: connection.subscriptions.map {
                    SubscriptionJSON(
                        ts_us: $0.time.microseconds, index: $0.record, frame: $0.record + 1, handle: $0.characteristicHandle,
                        descriptor: $0.descriptorHandle, uuid: $0.uuid.map { "\($0)" }, mode: $0.mode.rawValue)
                },
                unanswered: connection.unansweredRequests.map {
                    UnansweredJSON(
                        opcode: $0.opcode.rawValue, name: $0.opcode.name, handle: $0.attributeHandle, ts_us: $0.time.microseconds,
                        index: $0.record, frame: $0.record + 1)
                },
                service_changed: connection.serviceChangedIndications)
        }
    }
}

/// A duration for people: `0.416 s`, `12.5 s`, `3 min 20 s`.
func seconds(_ value: Double) -> String {
    if value < 60 { return String(Double(Int((value * 1000).rounded())) / 1000) + " s" }
    let whole = Int(value.rounded())
    return "\(whole / 60) min \(whole % 60) s"
}
