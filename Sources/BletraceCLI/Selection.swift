import ArgumentParser
import BLETrace

/// What part of a busy capture to show: one peer, one transport, a time window, and how much.
/// Shared by `lifecycle`, `errors` and `decode`.
struct SelectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only this peer: its address, or the name it advertised (or the start of it, any case).", valueName: "addr|name"), completion: .peers)
    var peer: String?

    @Option(help: "Only le or br-edr connections.")
    var transport: TransportChoice?

    @Option(help: ArgumentHelp("Only from this many seconds after the first record.", valueName: "seconds"))
    var from: Double?

    @Option(help: ArgumentHelp("Only up to this many seconds after the first record.", valueName: "seconds"))
    var to: Double?

    @Flag(help: "Less detail: lifecycle gives the summary and a line per connection; errors a line per error; decode leaves out flow control (Number Of Completed Packets), vendor commands and events, and Android's debug records.")
    var brief = false

    func validate() throws {
        if let from, let to, from > to { throw ValidationError("--from \(from) is after --to \(to)") }
        if let from, from < 0 { throw ValidationError("--from takes seconds from the first record, 0 or more") }
    }

    var isEmpty: Bool { peer == nil && transport == nil && from == nil && to == nil }

    /// `--peer` names no device of the capture: none of its connections' peers, none of the
    /// advertisers a scan heard (a typo would otherwise select nothing, silently).
    func peerMatchesNothing(_ connections: [Connection], names: [BluetoothAddress: String]) -> Bool {
        guard let peer else { return false }
        let addresses = Set(connections.compactMap(\.peer)).union(names.keys)
        return !addresses.contains { peerMatches($0, name: names[$0], wanted: peer) }
    }

    /// Says so on standard error when `--peer` names no device of the capture at `path`; true
    /// then (a failure under `--fail-on`).
    func warnIfPeerMatchesNothing(_ connections: [Connection], names: [BluetoothAddress: String], path: String) -> Bool {
        guard peerMatchesNothing(connections, names: names) else { return false }
        Output.error("warning: --peer \(peer ?? "") names no device of \(path)")
        return true
    }

    func matches(peer address: BluetoothAddress?, name: String?) -> Bool {
        guard let peer else { return true }
        guard let address else { return false }
        return peerMatches(address, name: name, wanted: peer)
    }

    func matches(_ transport: Connection.Transport?) -> Bool {
        guard let wanted = self.transport else { return true }
        return transport == wanted.transport
    }

    /// Whether `start`...`end` (either may be unknown: the capture's start or end then) meets the
    /// window of --from and --to.
    func overlaps(start: Timestamp?, end: Timestamp?, origin: Timestamp) -> Bool {
        let first = start.map { $0.seconds(since: origin) } ?? 0
        let last = end.map { $0.seconds(since: origin) } ?? .infinity
        if let from, last < from { return false }
        if let to, first > to { return false }
        return true
    }

    func contains(_ time: Timestamp, origin: Timestamp) -> Bool { overlaps(start: time, end: time, origin: origin) }

    func matches(_ connection: Connection, origin: Timestamp, end: Timestamp?) -> Bool {
        matches(peer: connection.peer, name: connection.peerName) && matches(connection.transport)
            && overlaps(
                start: connection.attemptTime ?? connection.completeTime, end: connection.disconnectTime ?? connection.completeTime ?? end,
                origin: origin)
    }
}

enum TransportChoice: String, ExpressibleByArgument, CaseIterable {
    case le, brEdr = "br-edr"
    var transport: Connection.Transport { self == .le ? .le : .classic }
}

/// `wanted` names the peer `address` (advertised as `name`): the address itself, or the name or
/// its beginning, in any case.
func peerMatches(_ address: BluetoothAddress, name: String?, wanted: String) -> Bool {
    if let parsed = BluetoothAddress(wanted) { return parsed == address }
    guard let name, !wanted.isEmpty else { return false }
    return name.lowercased().hasPrefix(wanted.lowercased())
}
