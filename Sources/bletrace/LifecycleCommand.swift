import ArgumentParser
import BLETrace

/// `bletrace lifecycle FILE`: the story of every connection.
struct LifecycleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifecycle",
        abstract: "Tell what happened to every connection: attempt, connection, MTU, traffic, who disconnected and why.")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, or a timeline picture: svg or html (self-contained).") var format: LifecycleFormat = .text

    func run() throws {
        if format == .svg || format == .html { return try printTimeline(path: capture.file, html: format == .html) }
        let report: LifecycleReport
        let fault: (any Error)?
        do {
            (report, fault) = try LifecycleAnalyzer.analyze(path: capture.file)
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        if format == .json {
            // The connections are written one by one: a long capture has thousands.
            var document = JSONLifecycle(report)
            let connections = document.connections
            document.connections = []
            try Output.prettyJSON(document, streaming: "connections", connections)
        } else {
            printStory(report)
        }
        try finish(fault)
    }

    private func printStory(_ report: LifecycleReport) {
        guard let origin = report.firstTime else {
            Output.line("no records")
            return
        }
        Output.line("\(report.records) records from \(isoTime(origin)); times are seconds from the first record")
        if report.connections.isEmpty { Output.line("no connections") }
        printScans(report, origin: origin)
        for connection in report.connections {
            Output.line("")
            var title = "connection \(connection.id + 1): \(connection.transport == .le ? "LE" : "BR/EDR")"
            if let role = connection.role { title += ", local \(role)" }
            if let peer = connection.peer {
                title += ", peer \(peer)"
                if let type = connection.peerAddressType { title += type & 1 == 0 ? " (public)" : " (random)" }
            } else if connection.usesFilterAcceptList {
                title += ", any device on the filter accept list"
            }
            if let handle = connection.handle { title += ", handle \(hex(handle, digits: 4))" }
            Output.line(title)
            let time = { (timestamp: Timestamp) in self.time(timestamp, origin) }
            if connection.beganBeforeCapture {
                Output.line("  (connected before the capture began)")
            }
            if let attempt = connection.attemptTime {
                Output.line(time(attempt) + "attempt (record \(connection.attemptRecord!))")
            }
            if let cancel = connection.cancelTime {
                Output.line(time(cancel) + "attempt cancelled by the host")
            }
            if let complete = connection.completeTime, let status = connection.status {
                if status == .success {
                    Output.line(time(complete) + "connected (record \(connection.completeRecord!))")
                } else {
                    var line = time(complete) + "attempt ended: \(status) (\(hex(status.rawValue, digits: 2)))"
                    if connection.outcome == .failed, let error = connection.cbError {
                        line += "; CoreBluetooth: didFailToConnect, error \(error.value.map { "\($0)" } ?? "nil") [\(error.evidence.rawValue)]"
                    }
                    Output.line(line)
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
                if let mtu = connection.mtu { traffic += "MTU \(mtu); " }
                traffic += "ATT: \(connection.attRequests) requests (\(connection.attReads) reads, \(connection.attWrites) writes), \(connection.attErrors) errors, \(connection.attNotifications) notifications, \(connection.attIndications) indications, \(connection.attBytes) bytes"
                Output.line(traffic)
                if connection.serviceChangedIndications > 0 {
                    Output.line("              Service Changed indicated \(connection.serviceChangedIndications) time(s): the peer's database changed")
                }
                let end = connection.disconnectTime ?? report.lastTime ?? origin
                for request in connection.unansweredRequests {
                    let waited = end.seconds(since: request.time)
                    Output.line("              unanswered: \(request.opcode)" + (request.attributeHandle.map { " of \(hex($0, digits: 4))" } ?? "")
                        + " (record \(request.record)), \(seconds(waited)) before the \(connection.disconnectTime == nil ? "end of the capture" : "disconnection")"
                        + (waited > 30 ? "; past the 30 s ATT transaction timeout" : ""))
                }
            }
            if let end = connection.disconnectTime, let reason = connection.reason {
                let who = connection.initiator == .local ? "by this host" : "by the peer or the link"
                var line = time(end) + "disconnected \(who): \(reason) (\(hex(reason.rawValue, digits: 2)))"
                if let duration = connection.duration { line += ", after " + seconds(duration) }
                Output.line(line)
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

    /// Scans (with the devices they heard) and this host's advertising sets.
    func printScans(_ report: LifecycleReport, origin: Timestamp) {
        for scan in report.scans {
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
        var bytes: Int
    }
    struct ConnectionJSON: Encodable {
        var id: Int
        var transport: String
        var handle: UInt16?
        var peer: String?
        var peer_address_type: UInt8?
        var role: String?
        var attempt_ts: Int64?
        var cancel_ts: Int64?
        var connect_ts: Int64?
        var status: UInt8?
        var mtu: UInt16?
        var disconnect_ts: Int64?
        var reason: UInt8?
        var reason_name: String?
        var initiator: String?
        var outcome: String
        var began_before_capture: Bool
        /// `null` when CoreBluetooth would report no error; absent when there is nothing to report.
        var cb_error: NullOr<CBErrorJSON>?
        var att: ATTCounts
        var interval: UInt16?
        var latency: UInt16?
        var supervision_timeout: UInt16?
        var changes: [ChangeJSON]
        var discovery: DiscoveryJSON?
        var subscriptions: [SubscriptionJSON]
        var unanswered: [UnansweredJSON]
        var service_changed: Int
    }
    struct ChangeJSON: Encodable {
        var ts: Int64
        var index: Int
        var kind: String
        var interval: UInt16?
        var latency: UInt16?
        var supervision_timeout: UInt16?
        var max_tx_octets: UInt16?
        var max_rx_octets: UInt16?
        var tx_phy: UInt8?
        var rx_phy: UInt8?
        var encrypted: Bool?
        var key_size: UInt8?
        var status: UInt8?
    }
    struct DiscoveryJSON: Encodable {
        var start_ts: Int64
        var end_ts: Int64
        var procedures: [ProcedureJSON]
    }
    struct ProcedureJSON: Encodable {
        var kind: String
        var start_ts: Int64
        var end_ts: Int64
        var requests: Int
    }
    struct SubscriptionJSON: Encodable {
        var ts: Int64
        var index: Int
        var handle: UInt16?
        var descriptor: UInt16
        var uuid: String?
        var mode: String
    }
    struct UnansweredJSON: Encodable {
        var opcode: UInt8
        var name: String?
        var handle: UInt16?
        var ts: Int64
        var index: Int
    }
    var records: Int
    var first_ts: Int64?
    var last_ts: Int64?
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
        var first_ts: Int64
        var last_ts: Int64
    }
    struct ScanJSON: Encodable {
        var id: Int
        var start_ts: Int64?
        var stop_ts: Int64?
        var began_before_capture: Bool
        var extended: Bool
        var active: Bool?
        var interval: UInt16?
        var window: UInt16?
        var filter_duplicates: Bool?
        var reports: Int
        var devices: [DeviceJSON]
    }
    struct AdvertisingJSON: Encodable {
        var id: Int
        var handle: UInt8?
        var start_ts: Int64?
        var stop_ts: Int64?
        var interval_min: UInt32?
        var interval_max: UInt32?
        var name: String?
        var data: String
        var scan_response: String
    }

    static func change(_ change: Connection.Change) -> ChangeJSON {
        var json = ChangeJSON(ts: change.time.microseconds, index: change.record, kind: "")
        switch change.kind {
        case .parameters(let interval, let latency, let timeout):
            (json.kind, json.interval, json.latency, json.supervision_timeout) = ("parameters", interval, latency, timeout)
        case .dataLength(let tx, let rx): (json.kind, json.max_tx_octets, json.max_rx_octets) = ("data_length", tx, rx)
        case .phy(let tx, let rx): (json.kind, json.tx_phy, json.rx_phy) = ("phy", tx, rx)
        case .encryption(let enabled, let keySize): (json.kind, json.encrypted, json.key_size) = ("encryption", enabled, keySize)
        case .keyRefresh: json.kind = "key_refresh"
        case .failed(let what, let status): (json.kind, json.status) = (what.replacingOccurrences(of: " ", with: "_") + "_failed", status.rawValue)
        }
        return json
    }

    init(_ report: LifecycleReport) {
        records = report.records
        first_ts = report.firstTime?.microseconds
        last_ts = report.lastTime?.microseconds
        scans = report.scans.map { scan in
            ScanJSON(
                id: scan.id, start_ts: scan.startTime?.microseconds, stop_ts: scan.stopTime?.microseconds,
                began_before_capture: scan.beganBeforeCapture, extended: scan.extended, active: scan.active,
                interval: scan.interval, window: scan.window, filter_duplicates: scan.filterDuplicates, reports: scan.reports,
                devices: scan.devices.map {
                    DeviceJSON(
                        address: "\($0.address)", address_type: $0.addressType, name: $0.name,
                        service_uuids: $0.serviceUUIDs.map { "\($0)" }, connectable: $0.connectable, rssi_min: $0.rssiMin,
                        rssi_max: $0.rssiMax, reports: $0.reports, first_ts: $0.firstSeen.microseconds, last_ts: $0.lastSeen.microseconds)
                })
        }
        advertising = report.advertising.map {
            AdvertisingJSON(
                id: $0.id, handle: $0.handle, start_ts: $0.startTime?.microseconds, stop_ts: $0.stopTime?.microseconds,
                interval_min: $0.intervalMin, interval_max: $0.intervalMax, name: $0.name,
                data: $0.data.withUnsafeBytes(\.hexString), scan_response: $0.scanResponse.withUnsafeBytes(\.hexString))
        }
        connections = report.connections.map { connection in
            ConnectionJSON(
                id: connection.id, transport: connection.transport.rawValue, handle: connection.handle,
                peer: connection.peer.map { "\($0)" }, peer_address_type: connection.peerAddressType,
                role: connection.role?.rawValue, attempt_ts: connection.attemptTime?.microseconds,
                cancel_ts: connection.cancelTime?.microseconds,
                connect_ts: connection.status == .success ? connection.completeTime?.microseconds : nil,
                status: connection.status?.rawValue, mtu: connection.mtu,
                disconnect_ts: connection.disconnectTime?.microseconds, reason: connection.reason?.rawValue,
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
                    reads: connection.attReads, writes: connection.attWrites, bytes: connection.attBytes),
                interval: connection.interval, latency: connection.latency,
                supervision_timeout: connection.supervisionTimeout,
                changes: connection.changes.map(Self.change),
                discovery: connection.discoveryStart.flatMap { start in
                    connection.discoveryEnd.map {
                        DiscoveryJSON(
                            start_ts: start.microseconds, end_ts: $0.microseconds,
                            procedures: connection.discoveryProcedures.map {
                                ProcedureJSON(kind: $0.kind.rawValue, start_ts: $0.start.microseconds, end_ts: $0.end.microseconds, requests: $0.requests)
                            })
                    }
                },
                subscriptions: connection.subscriptions.map {
                    SubscriptionJSON(
                        ts: $0.time.microseconds, index: $0.record, handle: $0.characteristicHandle,
                        descriptor: $0.descriptorHandle, uuid: $0.uuid.map { "\($0)" }, mode: $0.mode.rawValue)
                },
                unanswered: connection.unansweredRequests.map {
                    UnansweredJSON(opcode: $0.opcode.rawValue, name: $0.opcode.name, handle: $0.attributeHandle, ts: $0.time.microseconds, index: $0.record)
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
