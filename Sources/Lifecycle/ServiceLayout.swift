import ATT
import Wire

/// The primary services one connection's full discovery found on the peer's server: Discover All
/// Primary Services by this host's client (Read By Group Type of «Primary Service» from 0x0001,
/// on until Attribute Not Found or a group ending at 0xFFFF; Core 6.0, Vol 3, Part G, §4.4.1),
/// each service's handle range and UUID.
///
/// Two connections to a peer whose layouts differ, with no Service Changed indication between
/// them, show the one fact that `diagnose`'s `database-changed-without-service-changed` and the
/// replay's GATT cache (Formats/corebluetooth.md, "iOS on its own") both read: the peer's
/// database changed between the connections and the peer never said so (§7.1), so a client that
/// kept the database, as iOS does for a bonded peer, holds stale handles.
public struct ServiceLayout: Hashable, Sendable {
    /// One service: its handle range and its type.
    public struct Service: Hashable, Sendable, Codable {
        public var handle: UInt16
        public var end: UInt16
        public var uuid: BluetoothUUID
    }

    public private(set) var services: [Service] = []
    /// The discovery's first request, and the answer that ended it (nil until it ends).
    public private(set) var record: Int?
    public private(set) var completeRecord: Int?
    public private(set) var completeTime: Timestamp?
    /// Whether the discovery went on to the last handle.
    public var isComplete: Bool { completeRecord != nil }

    public init() {}

    /// Reads an ATT PDU of the connection: `answered` is the request it answers, if any
    /// (``LifecycleAnalyzer/lastAnswered``). A Read By Group Type Request of this host's client
    /// for primary services from 0x0001 begins the layout anew (a later full discovery on the
    /// same connection replaces an earlier one).
    mutating func add(_ pdu: ATTPDU, sentByClient: Bool, answered: ATTRequest?, record: Int, time: Timestamp) {
        switch pdu {
        case .readByGroupTypeRequest(let start, _, let type) where sentByClient:
            if start == 0x0001, type.uuid == .primaryService { self = ServiceLayout(record: record) }
        case .readByGroupTypeResponse(let groups):
            guard let request = answered, isDiscovery(request) else { return }
            for group in groups {
                guard let uuid = BluetoothUUID(littleEndian: group.value) else { continue }
                services.append(Service(handle: group.handle, end: group.groupEnd, uuid: uuid))
                if group.groupEnd == 0xFFFF { (completeRecord, completeTime) = (record, time) }
            }
        case .errorResponse(let opcode, _, let error) where opcode == .readByGroupTypeRequest:
            guard let request = answered, isDiscovery(request), error == .attributeNotFound else { return }
            (completeRecord, completeTime) = (record, time)
        default:
            break
        }
    }

    private init(record: Int) { self.record = record }

    /// A request of this discovery: this host's client, primary services, while it is under way.
    private func isDiscovery(_ request: ATTRequest) -> Bool {
        record != nil && completeRecord == nil && request.server == .peer
            && request.opcode == .readByGroupTypeRequest && request.type == .primaryService
    }

    /// One way a peer's primary services differ from an earlier discovery's: a service gone, new,
    /// or moved (its UUID at another range). (The words: the Reports module.)
    public enum Change: Hashable, Sendable, Codable {
        case moved(BluetoothUUID, from: Service, to: Service)
        case gone(Service)
        case new(Service)
    }

    /// What changed from `earlier`, a layout of an earlier connection to the same peer: each
    /// service that is gone, new, or moved. Empty when both discoveries found the same services,
    /// or when either did not go to the end.
    public func changes(since earlier: ServiceLayout) -> [Change] {
        guard isComplete, earlier.isComplete else { return [] }
        var changes: [Change] = []
        for old in earlier.services where !services.contains(old) {
            if let moved = services.first(where: { $0.uuid == old.uuid && !earlier.services.contains($0) }) {
                changes.append(.moved(old.uuid, from: old, to: moved))
            } else {
                changes.append(.gone(old))
            }
        }
        for new in services where !earlier.services.contains(new) {
            if !earlier.services.contains(where: { $0.uuid == new.uuid && !services.contains($0) }) {
                changes.append(.new(new))
            }
        }
        return changes
    }
}

extension Connection {
    /// Whether a pairing on this connection bonded: it asked for bonding and encrypted the link.
    public var bonded: Bool { pairings.contains { $0.bonding == true && $0.outcome == .encrypted } }

    /// The encryption of a link with a bond made before it: its first Encryption Change that
    /// turned encryption on, on a connection with no pairing of its own.
    public var encryptionWithBond: Change? {
        guard pairings.isEmpty else { return nil }
        return changes.first { if case .encryption(true, _) = $0.kind { true } else { false } }
    }
}
