import ArgumentParser
import BLETrace

/// What part of a busy capture to show: one peer, one transport, a time window, and how much.
/// Shared by `lifecycle`, `errors` and `decode`.
struct SelectionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Only this peer: its address, or the name it advertised (or the start of it, any case).",
            valueName: "addr|name"), completion: .peers)
    var peer: String?

    @Option(help: "Only le or br-edr connections.")
    var transport: TransportChoice?

    @Option(help: ArgumentHelp("Only from this many seconds after the first record.", valueName: "seconds"))
    var from: Double?

    @Option(help: ArgumentHelp("Only up to this many seconds after the first record.", valueName: "seconds"))
    var to: Double?

    @Flag(
        help:
            "Less detail: lifecycle gives the summary and a line per connection; errors a line per error; decode leaves out flow control (Number Of Completed Packets), vendor commands and events, and Android's debug records."
    )
    var brief = false

    func validate() throws {
        if let from, let to, from > to { throw ValidationError("--from \(from) is after --to \(to)") }
        if let from, from < 0 { throw ValidationError("--from takes seconds from the first record, 0 or more") }
    }

    var isEmpty: Bool { criteria.isEmpty }

    /// What the options select, for the library's reports.
    var criteria: TraceSelection { TraceSelection(peer: peer, transport: transport?.transport, from: from, to: to) }

    /// Says so on standard error when `--peer` names no device of the capture at `path`; true
    /// then (a failure under `--fail-on`).
    func warnIfPeerMatchesNothing(_ connections: [Connection], names: [BluetoothAddress: String], path: String) -> Bool
    {
        guard criteria.peerMatchesNothing(connections, names: names) else { return false }
        Output.error("warning: --peer \(peer ?? "") names no device of \(path)")
        return true
    }
}

enum TransportChoice: String, ExpressibleByArgument, CaseIterable {
    case le, brEdr = "br-edr"
    var transport: Connection.Transport { self == .le ? .le : .classic }
}
