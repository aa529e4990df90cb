import HCI
import TraceFiles
import Wire

/// What part of a busy capture to keep: one peer, one transport, a time window. The analysis
/// commands narrow what they report with it (`--peer`, `--transport`, `--from`, `--to`); an
/// empty selection keeps everything.
///
/// Times are seconds from `origin`, the capture's first record.
public struct TraceSelection: Sendable, Hashable {
    /// A peer's address, or the name it advertised (or the start of it, in any case).
    public var peer: String?
    public var transport: Connection.Transport?
    public var from: Double?
    public var to: Double?

    public init(peer: String? = nil, transport: Connection.Transport? = nil, from: Double? = nil, to: Double? = nil) {
        (self.peer, self.transport, self.from, self.to) = (peer, transport, from, to)
    }

    public var isEmpty: Bool { peer == nil && transport == nil && from == nil && to == nil }

    /// What the selection narrows a report to, for a person: `peer Inspire, LE, from +2.0 s`.
    public var description: String {
        var parts: [String] = []
        if let peer { parts.append("peer \(peer)") }
        if let transport { parts.append(transport == .le ? "LE" : "BR/EDR") }
        if let from { parts.append("from +\(from) s") }
        if let to { parts.append("to +\(to) s") }
        return parts.joined(separator: ", ")
    }

    /// The peer names no device of the capture: none of its connections' peers, none of the
    /// advertisers a scan heard (a typo would otherwise select nothing, silently).
    public func peerMatchesNothing(_ connections: [Connection], names: [BluetoothAddress: String]) -> Bool {
        guard let peer else { return false }
        let addresses = Set(connections.compactMap(\.peer)).union(names.keys)
        return !addresses.contains { Self.peer(peer, names: $0, advertising: names[$0]) }
    }

    public func matches(peer address: BluetoothAddress?, name: String?) -> Bool {
        guard let peer else { return true }
        guard let address else { return false }
        return Self.peer(peer, names: address, advertising: name)
    }

    public func matches(_ transport: Connection.Transport?) -> Bool {
        guard let wanted = self.transport else { return true }
        return transport == wanted
    }

    /// Whether `start`...`end` (either may be unknown: the capture's start or end then) meets the
    /// window.
    public func overlaps(start: Timestamp?, end: Timestamp?, origin: Timestamp) -> Bool {
        let first = start.map { $0.seconds(since: origin) } ?? 0
        let last = end.map { $0.seconds(since: origin) } ?? .infinity
        if let from, last < from { return false }
        if let to, first > to { return false }
        return true
    }

    public func contains(_ time: Timestamp, origin: Timestamp) -> Bool {
        overlaps(start: time, end: time, origin: origin)
    }

    public func matches(_ connection: Connection, origin: Timestamp, end: Timestamp?) -> Bool {
        matches(peer: connection.peer, name: connection.peerName) && matches(connection.transport)
            && overlaps(
                start: connection.attempt?.time ?? connection.completion?.time,
                end: connection.disconnection?.time ?? connection.completion?.time ?? end,
                origin: origin)
    }

    /// The errors selected: of the peer and transport, in the window (every time when the
    /// capture's `origin` is unknown).
    public func errors(_ errors: [TraceError], names: [BluetoothAddress: String], origin: Timestamp?) -> [TraceError] {
        guard !isEmpty else { return errors }
        return errors.filter { error in
            matches(peer: error.peer, name: error.peer.flatMap { names[$0] }) && matches(error.transport)
                && origin.map { contains(error.time, origin: $0) } ?? true
        }
    }

    /// The connections of `report` selected, times counted from `origin` (by default the
    /// report's first time).
    public func connections(of report: LifecycleReport, origin: Timestamp? = nil) -> [Connection] {
        guard let origin = origin ?? report.firstTime, !isEmpty else { return report.connections }
        return report.connections.filter { matches($0, origin: origin, end: report.lastTime) }
    }

    /// `report` narrowed: its connections, the scans that heard the peer in the window, the
    /// advertising in the window (none for a peer or BR/EDR).
    public func report(_ report: LifecycleReport, names: [BluetoothAddress: String]) -> LifecycleReport {
        guard let origin = report.firstTime, !isEmpty else { return report }
        var report = report
        let end = report.lastTime
        report.connections = report.connections.filter { matches($0, origin: origin, end: end) }
        report.scans = report.scans.filter { scan in
            overlaps(start: scan.startTime, end: scan.stopTime ?? end, origin: origin) && transport != .classic
                && (peer == nil || scan.devices.contains { matches(peer: $0.address, name: names[$0.address]) })
        }
        report.advertising =
            peer == nil && transport != .classic
            ? report.advertising.filter { overlaps(start: $0.startTime, end: $0.stopTime ?? end, origin: origin) } : []
        // A stray disconnection names no peer and no transport.
        report.strayDisconnections =
            peer == nil && transport == nil
            ? report.strayDisconnections.filter { overlaps(start: $0.time, end: $0.time, origin: origin) } : []
        return report
    }

    /// The findings about a selected peer and transport (a finding of no connection is LE's), in
    /// the window.
    public func findings(
        _ findings: [Finding], report: LifecycleReport, names: [BluetoothAddress: String], origin: Timestamp?
    ) -> [Finding] {
        guard let origin, !isEmpty else { return findings }
        let connections = Dictionary(uniqueKeysWithValues: report.connections.map { ($0.id, $0) })
        return findings.filter { finding in
            let connection = finding.connection.flatMap { connections[$0] }
            return matches(peer: finding.peer, name: finding.peer.flatMap { names[$0] })
                && matches(connection?.transport ?? .le) && contains(finding.time, origin: origin)
        }
    }

    /// The GATT entries of the peers with a connection selected (each peer's database is what all
    /// its connections showed).
    public func gatt(_ entries: [GATTCollector.Entry], report: LifecycleReport) -> [GATTCollector.Entry] {
        guard report.firstTime != nil, !isEmpty else { return entries }
        let selected = Set(connections(of: report).map(\.id))
        return entries.filter { !selected.isDisjoint(with: $0.connections) }
    }

    /// `wanted` names the peer `address` (advertised as `name`): the address itself, or the name
    /// or its beginning, in any case.
    public static func peer(_ wanted: String, names address: BluetoothAddress, advertising name: String?) -> Bool {
        if let parsed = BluetoothAddress(wanted) { return parsed == address }
        guard let name, !wanted.isEmpty else { return false }
        return name.lowercased().hasPrefix(wanted.lowercased())
    }

    /// Whether a replay's cut of the capture keeps `record`: in the window; for a peer or a
    /// transport, unless it is about another device or the other transport's connections (what
    /// belongs to no device, the host's own commands, stays).
    package func keeps(
        _ record: CaptureRecord, _ decoded: DecodedRecord, _ analyzer: LifecycleAnalyzer, origin: Timestamp
    ) -> Bool {
        guard contains(record.timestamp, origin: origin) else { return false }
        guard peer != nil || transport != nil else { return true }
        let subject = Self.subject(of: record, decoded, analyzer)
        if let address = subject.peer, !matches(peer: address, name: analyzer.scanning.name(of: address)) {
            return false
        }
        if let transport = subject.transport, !matches(transport) { return false }
        return true
    }

    /// The device a record is about, and the transport of its connection, where it is about one.
    package static func subject(of record: CaptureRecord, _ decoded: DecodedRecord, _ analyzer: LifecycleAnalyzer)
        -> (peer: BluetoothAddress?, transport: Connection.Transport?)
    {
        switch decoded.packet {
        case .event(.le(.connectionComplete(let complete))): return (complete.peerAddress, .le)
        case .event(.connectionComplete(_, _, let address, _)): return (address, .classic)
        case .command(.leCreateConnection(let create)) where create.initiatorFilterPolicy == 0:
            return (create.peerAddress, .le)
        case .command(.leExtendedCreateConnection(let create)) where create.initiatorFilterPolicy == 0:
            return (create.peerAddress, .le)
        case .event(.le(.unknown(let subevent, _))) where subevent.rawValue == 0x02 || subevent.rawValue == 0x0D:
            // An advertising report: the device it heard (the first, for a report of several).
            guard case .le(let meta)? = try? HCIEventParameters.decode(record.bytes) else { return (nil, nil) }
            switch meta {
            case .advertisingReport(let reports): return (reports.first { _ in true }?.address, nil)
            case .extendedAdvertisingReport(let reports): return (reports.first { _ in true }?.address, nil)
            default: return (nil, nil)
            }
        default: break
        }
        guard let handle = decoded.handle else { return (nil, nil) }
        let connection = analyzer.openConnection(on: handle) ?? analyzer.connections.last { $0.handle == handle }
        return (connection?.peer, connection?.transport)
    }
}
