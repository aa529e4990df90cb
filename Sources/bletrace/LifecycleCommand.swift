import ArgumentParser
import BLETrace

/// `bletrace lifecycle FILE`: the story of every connection.
struct LifecycleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifecycle",
        abstract: "Tell what happened to every connection: attempt, connection, MTU, traffic, who disconnected and why.")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text or json.") var format: OutputFormat = .text

    func validate() throws {
        guard format != .jsonl else { throw ValidationError("--format takes text or json") }
    }

    func run() throws {
        let report: LifecycleReport
        let fault: (any Error)?
        do {
            (report, fault) = try LifecycleAnalyzer.analyze(path: capture.file)
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        if format == .json {
            try Output.json(JSONLifecycle(report), pretty: true)
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
            let time = { (timestamp: Timestamp) in "  " + relativeTime(timestamp, since: origin) + "  " }
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
            if connection.outcome == .open || connection.outcome == .disconnected {
                var traffic = "              "
                if let mtu = connection.mtu { traffic += "MTU \(mtu); " }
                traffic += "ATT: \(connection.attRequests) requests, \(connection.attErrors) errors, \(connection.attNotifications) notifications, \(connection.attIndications) indications"
                Output.line(traffic)
            }
            if let end = connection.disconnectTime, let reason = connection.reason {
                let who = connection.initiator == .local ? "by this host" : "by the peer or the link"
                var line = time(end) + "disconnected \(who): \(reason) (\(hex(reason.rawValue, digits: 2)))"
                if let duration = connection.duration { line += ", after " + seconds(duration) }
                Output.line(line)
                if let error = connection.cbError {
                    Output.line("              CoreBluetooth: didDisconnectPeripheral, error \(error.value.map { "\($0) (\($0.code.rawValue))" } ?? "nil") [\(error.evidence.rawValue)]")
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

/// The JSON contract of `bletrace lifecycle --format json` (Formats/json.md).
struct JSONLifecycle: Encodable {
    struct CBErrorJSON: Encodable {
        var domain: String
        var code: Int
        var name: String?
        var evidence: String
    }
    /// `null` when CoreBluetooth would report no error; the key is left out when there is
    /// nothing to report at all.
    enum CBErrorField: Encodable {
        case none
        case error(CBErrorJSON)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .none: try container.encodeNil()
            case .error(let error): try container.encode(error)
            }
        }
    }
    struct ATTCounts: Encodable {
        var requests: Int
        var errors: Int
        var notifications: Int
        var indications: Int
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
        var cb_error: CBErrorField?
        var att: ATTCounts
    }
    var records: Int
    var first_ts: Int64?
    var last_ts: Int64?
    var connections: [ConnectionJSON]

    init(_ report: LifecycleReport) {
        records = report.records
        first_ts = report.firstTime?.microseconds
        last_ts = report.lastTime?.microseconds
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
                    guard let error = mapped.value else { return .none }
                    return .error(
                        CBErrorJSON(
                            domain: CBError.errorDomain, code: error.code.rawValue, name: error.code.name,
                            evidence: mapped.evidence.rawValue))
                },
                att: ATTCounts(
                    requests: connection.attRequests, errors: connection.attErrors,
                    notifications: connection.attNotifications, indications: connection.attIndications))
        }
    }
}

/// A duration for people: `0.416 s`, `12.5 s`, `3 min 20 s`.
func seconds(_ value: Double) -> String {
    if value < 60 { return String(Double(Int((value * 1000).rounded())) / 1000) + " s" }
    let whole = Int(value.rounded())
    return "\(whole / 60) min \(whole % 60) s"
}
