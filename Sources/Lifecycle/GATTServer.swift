import ATT
import Wire

/// Which of a link's two GATT servers an ATT PDU belongs to.
///
/// Both ends of an LE link may be a GATT server and a GATT client at once, whatever their link
/// roles (Core 6.0, Vol 3, Part G, §2.2): a phone connected to a watch reads the watch's server
/// while the watch discovers the phone's (Service Changed, ANCS, AMS). Each direction of the
/// bearer carries its own request and its own answer (Vol 3, Part F, §3.3.2), so the sender of a
/// PDU and its method say which server it is about:
///
/// | PDU | sent by this host | received from the peer |
/// | --- | --- | --- |
/// | request, command | the peer's server | this host's server |
/// | response, Error Response | this host's server | the peer's server |
/// | notification, indication | this host's server | the peer's server |
/// | confirmation | the peer's server | this host's server |
///
/// A capture that records no direction (pcap link type 187) is read as if this host were the
/// client only: everything is the peer's server.
public enum GATTServer: String, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The peer's server: what this host's GATT client (an iOS app's `CBCentralManager` side)
    /// discovers, reads, writes and subscribes to.
    case peer
    /// This host's own server: what the peer's GATT client discovers, reads, writes and
    /// subscribes to (an iOS app's `CBPeripheralManager` services, or the system's own: GAP,
    /// GATT, ANCS, AMS).
    case local

    /// The server a PDU of `method` that went `direction` is about.
    @inlinable
    public init(_ method: ATTOpcode.Method, direction: Direction?) {
        guard let direction else { self = .peer; return }
        let sent = direction == .sent
        switch method {
        case .request, .command, .confirmation, .unknown: self = sent ? .peer : .local
        case .response, .notification, .indication: self = sent ? .local : .peer
        }
    }

    public var description: String { self == .peer ? "the peer's server" : "this host's server" }
}
