import Lifecycle
import Wire

/// The JSON document of `bletrace gatt --format json` (its contract: Formats/json.md): each
/// peer's services, characteristics and descriptors with their last values.
public struct JSONGATT: Encodable {
    struct Value: Encodable {
        var hex: String
        var source: String
        var index: Int
        var frame: Int
        init?(_ value: GATTDatabase.Value?) {
            guard let value else { return nil }
            hex = value.bytes.withUnsafeBytes(\.hexString)
            source = value.source.rawValue
            self.index = value.record
            frame = value.record + 1
        }
    }
    struct Descriptor: Encodable {
        var handle: UInt16
        var uuid: String
        var name: String?
        var value: Value?
    }
    struct Characteristic: Encodable {
        var declaration_handle: UInt16
        var handle: UInt16
        var uuid: String
        var name: String?
        var properties: [String]
        var value: Value?
        var descriptors: [Descriptor]
    }
    struct Service: Encodable {
        var start: UInt16
        var end: UInt16
        var uuid: String
        var name: String?
        var primary: Bool
        var characteristics: [Characteristic]
    }
    /// An attribute discovery found outside every service it found: a characteristic
    /// declaration (`declaration_handle`, `handle` its value's, `properties`) or another.
    struct Outside: Encodable {
        var declaration_handle: UInt16?
        var handle: UInt16
        var uuid: String
        var name: String?
        var properties: [String]?
    }
    struct Peer: Encodable {
        var peer: String?
        /// The connections (1-based, as `lifecycle` numbers them) whose traffic built the database.
        var connections: [Int]
        /// The peer's server, as this host's client discovered it.
        var services: [Service]
        /// This host's server, as the peer's client discovered it.
        var local_services: [Service]
        /// `--gatt FILE` when `services` are that file's (the capture never discovered them).
        var services_from: String?
        /// What discovery found outside every service it found, on each server (absent when
        /// nothing).
        var outside: [Outside]?
        var local_outside: [Outside]?
    }
    var version = jsonVersion
    var peers: [Peer]

    /// The document of the databases in `entries` (give it those with services, as
    /// ``GATTListing`` keeps).
    public init(_ entries: [GATTCollector.Entry], given: (file: String, connections: Set<Int>)? = nil) {
        peers = entries.map { entry in
            Peer(
                peer: entry.peer.map { "\($0)" }, connections: entry.connections.map { $0 + 1 },
                services: Self.services(entry.database), local_services: Self.services(entry.localDatabase),
                services_from: given.flatMap {
                    $0.connections.contains(entry.connections[0]) ? "--gatt \($0.file)" : nil
                },
                outside: Self.outside(entry.database), local_outside: Self.outside(entry.localDatabase))
        }
    }

    private static func outside(_ database: GATTDatabase) -> [Outside]? {
        database.outside.isEmpty
            ? nil
            : database.outside.map { attribute in
                Outside(
                    declaration_handle: attribute.valueHandle == nil ? nil : attribute.handle,
                    handle: attribute.valueHandle ?? attribute.handle, uuid: "\(attribute.uuid)", name: attribute.name,
                    properties: attribute.properties?.names)
            }
    }

    private static func services(_ database: GATTDatabase) -> [Service] {
        database.services.map { service in
            Service(
                start: service.handle, end: service.endHandle, uuid: "\(service.uuid)", name: service.name,
                primary: service.isPrimary,
                characteristics: service.characteristics.map { c in
                    Characteristic(
                        declaration_handle: c.declarationHandle, handle: c.valueHandle, uuid: "\(c.uuid)", name: c.name,
                        properties: c.properties.names, value: Value(c.lastValue),
                        descriptors: c.descriptors.map {
                            Descriptor(handle: $0.handle, uuid: "\($0.uuid)", name: $0.name, value: Value($0.lastValue))
                        })
                })
        }
    }
}
