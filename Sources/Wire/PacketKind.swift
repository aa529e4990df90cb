/// What an HCI capture record carries.
///
/// The H4 packet indicator values of Core 6.0, Vol 4, Part A, §2 where one exists.
public enum PacketKind: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05
    /// Anything that is not an HCI packet: a capture tool's notes, logs, index records.
    case other = 0xFF

    public var description: String {
        switch self {
        case .command: "command"
        case .acl: "acl"
        case .sco: "sco"
        case .event: "event"
        case .iso: "iso"
        case .other: "other"
        }
    }
}

/// Which way a packet went across the host/controller interface.
public enum Direction: UInt8, Hashable, Sendable, CustomStringConvertible {
    /// Host to controller (commands, outgoing data).
    case sent
    /// Controller to host (events, incoming data).
    case received

    public var description: String { self == .sent ? "sent" : "received" }
}
