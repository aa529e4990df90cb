import ATT
import HCI
import Wire

/// A request as the tracker remembers it until its answer.
public struct ATTRequest: Hashable, Sendable {
    public var opcode: ATTOpcode
    /// The attribute it names (for a range: its start).
    public var attributeHandle: UInt16?
    /// The attribute type asked for (Read By Type, Read By Group Type, Find By Type Value).
    public var type: BluetoothUUID?
    public var time: Timestamp
    public var record: Int
}

/// What the tracker knows of an attribute, learned from discovery in the capture.
public struct AttributeInfo: Hashable, Sendable {
    public enum Role: String, Hashable, Sendable {
        case service, characteristicDeclaration = "characteristic declaration"
        case characteristicValue = "characteristic value", descriptor, attribute
    }
    public var uuid: BluetoothUUID
    public var role: Role
    public var name: String? { GATTNames.name(for: uuid) }
}

/// Per-connection ATT state, as btmon keeps it: the request each side has outstanding (ATT allows
/// one at a time per direction, Core 6.0, Vol 3, Part F, §3.3.2), the MTU, and the attributes
/// discovery has revealed, so that a response is read knowing its request and an error knowing
/// its attribute.
public struct ATTTracker {
    private var pending: [UInt32: ATTRequest] = [:]
    private var attributes: [UInt16: [UInt16: AttributeInfo]] = [:]
    private var clientMTU: [UInt16: UInt16] = [:]
    public private(set) var mtu: [UInt16: UInt16] = [:]

    public init() {}

    /// Notes `pdu`, sent on `connection` in `direction`, and returns the request it answers
    /// (a response, an Error Response, or a confirmation answering an indication). A capture that
    /// records no direction (pcap link type 187) pairs each answer with the connection's last
    /// request, whichever way it went.
    public mutating func observe(
        _ pdu: ATTPDU, connection: UInt16, direction: Direction?, time: Timestamp, record: Int
    ) -> ATTRequest? {
        let opcode = pdu.opcode
        switch opcode.method {
        case .request, .indication:
            var request = ATTRequest(opcode: opcode, attributeHandle: pdu.handle, time: time, record: record)
            switch pdu {
            case .readByTypeRequest(_, _, let type), .readByGroupTypeRequest(_, _, let type):
                request.type = type.uuid
            case .findByTypeValueRequest(_, _, let type, let value):
                // Discovering a primary service by UUID: the value is the service's UUID.
                request.type = type == 0x2800 || type == 0x2801
                    ? BluetoothUUID(littleEndian: value) : BluetoothUUID(type)
            case .exchangeMTURequest(let mtu):
                clientMTU[connection] = mtu
            default: break
            }
            pending[key(connection, direction)] = request
            return nil
        case .response, .confirmation:
            // The answer travels the other way.
            let asked: Direction? = direction.map { $0 == .sent ? .received : .sent }
            guard let request = pending.removeValue(forKey: key(connection, asked)) else { return nil }
            learn(from: pdu, answering: request, on: connection)
            return request
        default:
            return nil
        }
    }

    /// What discovery revealed about `attribute` on `connection`.
    public func attribute(_ attribute: UInt16, on connection: UInt16) -> AttributeInfo? {
        attributes[connection]?[attribute]
    }

    /// Everything discovery revealed on `connection`, to carry over to the peer's next connection.
    public func attributes(on connection: UInt16) -> [UInt16: AttributeInfo] { attributes[connection] ?? [:] }

    /// Starts `connection` with attributes known from the peer's earlier connection: a client may
    /// rely on cached handles (Core 6.0, Vol 3, Part G, §2.5.2) and skip discovery.
    public mutating func seed(connection: UInt16, with known: [UInt16: AttributeInfo]) {
        if !known.isEmpty { attributes[connection] = known }
    }

    /// Requests still waiting for an answer on `connection`.
    public func unanswered(on connection: UInt16) -> [ATTRequest] {
        [Direction.sent, .received, nil].compactMap { pending[key(connection, $0)] }
    }

    /// Forgets a connection: its handle may be reused by the next one.
    public mutating func reset(connection: UInt16) {
        for direction in [Direction.sent, .received, nil] { pending[key(connection, direction)] = nil }
        attributes[connection] = nil
        clientMTU[connection] = nil
        mtu[connection] = nil
    }

    private func key(_ connection: UInt16, _ direction: Direction?) -> UInt32 {
        UInt32(connection) << 2 | UInt32(direction?.rawValue ?? 2)
    }

    private mutating func learn(from pdu: ATTPDU, answering request: ATTRequest, on connection: UInt16) {
        switch pdu {
        case .exchangeMTUResponse(let server):
            if let client = clientMTU.removeValue(forKey: connection) { mtu[connection] = Swift.min(client, server) }
        case .readByGroupTypeResponse(let groups):
            for group in groups {
                guard let uuid = BluetoothUUID(littleEndian: group.value) else { continue }
                attributes[connection, default: [:]][group.handle] = AttributeInfo(uuid: uuid, role: .service)
            }
        case .readByTypeResponse(let pairs) where request.type == CharacteristicDeclaration.type:
            for pair in pairs {
                guard let declaration = CharacteristicDeclaration(value: pair.value) else { continue }
                attributes[connection, default: [:]][pair.handle] = AttributeInfo(uuid: CharacteristicDeclaration.type, role: .characteristicDeclaration)
                attributes[connection, default: [:]][declaration.valueHandle] = AttributeInfo(uuid: declaration.uuid, role: .characteristicValue)
            }
        case .readByTypeResponse(let pairs):
            if let type = request.type {
                for pair in pairs { attributes[connection, default: [:]][pair.handle] = AttributeInfo(uuid: type, role: .attribute) }
            }
        case .findInformationResponse(let list):
            for entry in list where attributes[connection]?[entry.handle] == nil {
                let isDeclaration = entry.type.shortValue.map { (0x2800...0x2803).contains($0) } ?? false
                attributes[connection, default: [:]][entry.handle] = AttributeInfo(
                    uuid: entry.type, role: isDeclaration ? .attribute : .descriptor)
            }
        case .findByTypeValueResponse(let ranges):
            if let type = request.type {
                for range in ranges { attributes[connection, default: [:]][range.found] = AttributeInfo(uuid: type, role: .service) }
            }
        default:
            break
        }
    }
}
