import ATT
import HCI
import Wire

/// A request as the tracker remembers it until its answer.
public struct ATTRequest: Hashable, Sendable, Codable {
    public var opcode: ATTOpcode
    /// The attribute it names (for a range: its start).
    public var attributeHandle: UInt16?
    /// The attribute type asked for (Read By Type, Read By Group Type, Find By Type Value).
    public var type: BluetoothUUID?
    public var time: Timestamp
    public var record: Int
    /// The server it asks: the peer's when this host's client sent it, this host's when the
    /// peer's client did (for an indication: the server that sent it).
    public var server: GATTServer = .peer
}

/// What the tracker knows of an attribute, learned from discovery in the capture.
public struct AttributeInfo: Hashable, Sendable, Codable {
    /// What the attribute is in the database.
    public enum Role: String, Hashable, Sendable, Codable {
        case service, characteristicDeclaration = "characteristic declaration"
        case characteristicValue = "characteristic value", descriptor, attribute
    }
    public var uuid: BluetoothUUID
    public var role: Role
    public var name: String? { GATTNames.name(for: uuid) }
}

/// Per-connection ATT state, as btmon keeps it: the transactions each side has open (paired by
/// ATT's `ATTTransactions`, which states the rule), the MTU, and the attributes discovery has
/// revealed, so that a response is read knowing its request and an error knowing its attribute.
package struct ATTTracker {
    /// What is known of one connection.
    private struct Link {
        /// The outstanding request and indication of each direction (sent: this host's end).
        var transactions = ATTTransactions<ATTRequest>()
        var clientMTU: UInt16?
        /// What discovery revealed of each server: the peer's (this host's client asked) and this
        /// host's (the peer's client asked), never mixed.
        var peerAttributes: [UInt16: AttributeInfo] = [:]
        var localAttributes: [UInt16: AttributeInfo] = [:]

        /// Changed in place: a getter and setter would copy the whole table for every attribute
        /// a discovery answer names.
        subscript(server: GATTServer) -> [UInt16: AttributeInfo] {
            get { server == .peer ? peerAttributes : localAttributes }
            _modify {
                if server == .peer { yield &peerAttributes } else { yield &localAttributes }
            }
        }
    }

    private var links = HandleTable<Link>()
    /// The agreed MTU per connection, kept apart from ``Link``: it is looked up for every ATT PDU,
    /// and reading it from a plain table copies no link (with its arrays) out.
    private var mtus = HandleTable<UInt16>()

    package init() {}

    /// The MTU both sides agreed on `connection`, once its Exchange MTU Response has been seen.
    package func mtu(on connection: UInt16) -> UInt16? { mtus[connection] }

    /// Notes `pdu`, sent on `connection` in `direction`, and returns the request it answers
    /// (a response, an Error Response, or a confirmation answering an indication). A capture that
    /// records no direction (pcap link type 187) pairs each answer with the connection's last
    /// request, whichever way it went.
    package mutating func observe(
        _ pdu: ATTPDU, connection: UInt16, direction: Direction?, time: Timestamp, record: Int
    ) -> ATTRequest? {
        let opcode = pdu.opcode
        switch opcode.method {
        case .request, .indication:
            var request = ATTRequest(
                opcode: opcode, attributeHandle: pdu.handle, time: time, record: record,
                server: GATTServer(opcode.method, direction: direction))
            var clientMTU: UInt16?
            switch pdu {
            case .readByTypeRequest(_, _, let type), .readByGroupTypeRequest(_, _, let type):
                request.type = type.uuid
            case .findByTypeValueRequest(_, _, let type, let value):
                // Discovering a primary service by UUID: the value is the service's UUID.
                request.type =
                    type == 0x2800 || type == 0x2801
                    ? BluetoothUUID(littleEndian: value) : BluetoothUUID(type)
            case .exchangeMTURequest(let mtu):
                clientMTU = mtu
            default: break
            }
            links.update(connection, default: Link()) { link in
                link.transactions.begin(request, opcode.method, from: ATTEnd(direction))
                if let clientMTU { link.clientMTU = clientMTU }
            }
            return nil
        case .response, .confirmation:
            guard
                let request = links.modify(
                    connection, { $0.transactions.answer(opcode.method, from: ATTEnd(direction)) }) ?? nil
            else { return nil }
            learn(
                from: pdu, answering: request, on: connection, server: GATTServer(opcode.method, direction: direction))
            return request
        default:
            return nil
        }
    }

    /// ``observe(_:connection:direction:time:record:)`` of a Read Request of `attribute` or of a
    /// Read Response (which teaches nothing about attributes), from its opcode alone; nil for any
    /// other opcode.
    package mutating func observeRead(
        _ opcode: ATTOpcode, attribute: UInt16, connection: UInt16, direction: Direction?, time: Timestamp, record: Int
    ) -> ATTRequest? {
        if opcode == .readRequest {
            let request = ATTRequest(
                opcode: opcode, attributeHandle: attribute, time: time, record: record,
                server: GATTServer(.request, direction: direction))
            links.update(connection, default: Link()) {
                _ = $0.transactions.begin(request, .request, from: ATTEnd(direction))
            }
            return nil
        }
        guard opcode == .readResponse else { return nil }
        return links.modify(connection) { $0.transactions.answer(.response, from: ATTEnd(direction)) } ?? nil
    }

    /// What discovery revealed about `attribute` of `server` on `connection`.
    package func attribute(_ attribute: UInt16, on connection: UInt16, server: GATTServer = .peer) -> AttributeInfo? {
        links[connection]?[server][attribute]
    }

    /// The service (its UUID) discovery placed `attribute` of `server` in: the nearest service
    /// declaration at or below it.
    package func service(containing attribute: UInt16, on connection: UInt16, server: GATTServer = .peer)
        -> BluetoothUUID?
    {
        guard let attributes = links[connection]?[server] else { return nil }
        var best: (UInt16, BluetoothUUID)?
        for (handle, info) in attributes where info.role == .service && handle <= attribute && handle >= (best?.0 ?? 0)
        {
            best = (handle, info.uuid)
        }
        return best?.1
    }

    /// Everything discovery revealed of `server` on `connection`, to carry over to the peer's
    /// next connection.
    package func attributes(on connection: UInt16, server: GATTServer = .peer) -> [UInt16: AttributeInfo] {
        links[connection]?[server] ?? [:]
    }

    /// Starts `connection` with attributes of `server` known from the peer's earlier connection:
    /// a client may rely on cached handles (Core 6.0, Vol 3, Part G, §2.5.2) and skip discovery.
    package mutating func seed(connection: UInt16, with known: [UInt16: AttributeInfo], server: GATTServer = .peer) {
        guard !known.isEmpty else { return }
        links.update(connection, default: Link()) { $0[server] = known }
    }

    /// Requests, then indications, still waiting for their answers on `connection`.
    package func unanswered(on connection: UInt16) -> [ATTRequest] {
        links[connection]?.transactions.outstanding ?? []
    }

    /// Forgets what discovery revealed about the attributes `range` on `connection`: a Service
    /// Changed indication said they changed (Core 6.0, Vol 3, Part G, §7.1), and only a new
    /// discovery says what they are now. The Service Changed characteristic's value stays: its
    /// handle does not change while a client relies on it (§7.1).
    package mutating func forget(_ range: ClosedRange<UInt16>, on connection: UInt16, server: GATTServer = .peer) {
        links.modify(connection) { link in
            link[server] = link[server].filter { !range.contains($0.key) || Self.isServiceChanged($0.value) }
        }
    }

    static func isServiceChanged(_ info: AttributeInfo) -> Bool {
        info.uuid == .serviceChanged && info.role == .characteristicValue
    }

    /// Forgets a connection: its handle may be reused by the next one.
    package mutating func reset(connection: UInt16) {
        links[connection] = nil
        mtus[connection] = nil
    }

    /// Stores what discovery found about `attribute` of `server`.
    private mutating func learn(_ attribute: UInt16, _ info: AttributeInfo, on connection: UInt16, _ server: GATTServer)
    {
        links.modify(connection) { $0[server][attribute] = info }
    }

    /// Learns from the answer `pdu` of `server` (the server that sent it) to `request`.
    private mutating func learn(
        from pdu: ATTPDU, answering request: ATTRequest, on connection: UInt16, server: GATTServer
    ) {
        switch pdu {
        case .exchangeMTUResponse(let server):
            let agreed: UInt16?? = links.modify(connection) { link in
                defer { link.clientMTU = nil }
                return link.clientMTU.map { Swift.min($0, server) }
            }
            if case let mtu?? = agreed { mtus[connection] = mtu }
        case .readByGroupTypeResponse(let groups):
            for group in groups {
                guard let uuid = BluetoothUUID(littleEndian: group.value) else { continue }
                learn(group.handle, AttributeInfo(uuid: uuid, role: .service), on: connection, server)
            }
        case .readByTypeResponse(let pairs) where request.type == .characteristicDeclaration:
            for pair in pairs {
                guard let declaration = CharacteristicDeclaration(value: pair.value) else { continue }
                learn(
                    pair.handle, AttributeInfo(uuid: .characteristicDeclaration, role: .characteristicDeclaration),
                    on: connection, server)
                learn(
                    declaration.valueHandle, AttributeInfo(uuid: declaration.uuid, role: .characteristicValue),
                    on: connection, server)
            }
        case .readByTypeResponse(let pairs):
            if let type = request.type {
                for pair in pairs {
                    learn(pair.handle, AttributeInfo(uuid: type, role: .attribute), on: connection, server)
                }
            }
        case .findInformationResponse(let list):
            for entry in list where attribute(entry.handle, on: connection, server: server) == nil {
                let isDeclaration = entry.type.isDeclaration
                learn(
                    entry.handle,
                    AttributeInfo(
                        uuid: entry.type, role: isDeclaration ? .attribute : .descriptor), on: connection, server)
            }
        case .findByTypeValueResponse(let ranges):
            if let type = request.type {
                for range in ranges {
                    learn(range.found, AttributeInfo(uuid: type, role: .service), on: connection, server)
                }
            }
        default:
            break
        }
    }
}
