import ATT
import Foundation
import TraceFiles
import Wire

/// Where a peer's GATT database comes from when its connections never discovered it (a phone
/// reusing the handles it cached: bonded or Service-Changed-aware peers, iPhones above all).
/// Formats/cassette.md, "Databases a capture did not discover".
public enum GATTSource: Hashable, Sendable {
    /// The capture discovered it (on this connection or on another of the same peer).
    case discovered
    /// The user gave it (`--gatt FILE`): the file's name.
    case given(String)
    /// Built from the traffic: the handles read, written, notified and indicated, and the
    /// Client Characteristic Configurations written (``GATTDatabase/inferred(from:)``).
    case inferred
}

// MARK: Databases a user gives

/// The databases of `--gatt FILE`: a capture that discovered them (any format bletrace reads),
/// or the JSON `bletrace gatt --format json` writes.
///
/// Which peer each applies to: a database applies to the peer of its address; a file of one
/// database applies to every peer the capture never discovered too (a peer's address often
/// differs between captures: a resolvable private address, or a link that began before the
/// capture). A discovered database always wins over a given one, and a given one over an
/// inferred one.
public struct GivenGATT: Sendable {
    /// The file's name, as flows and listings cite it.
    public var name: String
    /// Its databases in the file's order, with the peer each belongs to when the file names it.
    public var databases: [(peer: BluetoothAddress?, database: GATTDatabase)]

    public init(name: String, databases: [(peer: BluetoothAddress?, database: GATTDatabase)]) {
        self.name = name
        self.databases = databases.filter { !$0.database.services.isEmpty }
    }

    /// Reads `path`: JSON when its first character other than white space is `{`, a capture
    /// otherwise.
    public static func load(path: String, air: AirOptions = AirOptions()) throws -> GivenGATT {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let handle = FileHandle(forReadingAtPath: path) else { throw GivenGATTError.unreadable(path) }
        let head = (try? handle.read(upToCount: 64)) ?? Data()
        try? handle.close()
        if head.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") {
            guard let data = FileManager.default.contents(atPath: path) else { throw GivenGATTError.unreadable(path) }
            return try GivenGATT(name: name, json: data)
        }
        // (A damaged capture gives the databases of the records before its fault.)
        let (collector, _) = GATTCollector.read(try AnalysisReader(path: path, air: air))
        let given = GivenGATT(name: name, databases: collector.entries.map { ($0.peer, $0.database) })
        guard !given.databases.isEmpty else { throw GivenGATTError.noDatabase(path) }
        return given
    }

    /// The document `bletrace gatt --format json` writes (Formats/json.md): each peer's
    /// `services`; names, values and `local_services` are not needed.
    public init(name: String, json: Data) throws {
        struct Document: Decodable {
            struct Descriptor: Decodable {
                var handle: UInt16
                var uuid: BluetoothUUID
            }
            struct Characteristic: Decodable {
                var declaration_handle: UInt16?
                var handle: UInt16
                var uuid: BluetoothUUID
                var properties: [String]
                var descriptors: [Descriptor]?
            }
            struct Service: Decodable {
                var start: UInt16
                var end: UInt16
                var uuid: BluetoothUUID
                var primary: Bool?
                var characteristics: [Characteristic]?
            }
            struct Peer: Decodable {
                var peer: BluetoothAddress?
                var services: [Service]
            }
            var peers: [Peer]
        }
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: json)
        } catch {
            throw GivenGATTError.badJSON(name, "\(error)")
        }
        var databases: [(peer: BluetoothAddress?, database: GATTDatabase)] = []
        for peer in document.peers {
            var database = GATTDatabase()
            for service in peer.services {
                var built = GATTDatabase.Service(
                    handle: service.start, endHandle: service.end, uuid: service.uuid,
                    isPrimary: service.primary ?? true)
                for c in service.characteristics ?? [] {
                    var properties = GATTDatabase.Properties()
                    for word in c.properties {
                        guard let bit = GATTDatabase.Properties.names.first(where: { $0.1 == word })?.0 else {
                            throw GivenGATTError.badJSON(
                                name, "characteristic \(hex(c.handle, digits: 4)): no property named \(word)")
                        }
                        properties.insert(bit)
                    }
                    built.characteristics.append(
                        GATTDatabase.Characteristic(
                            declarationHandle: c.declaration_handle ?? (c.handle > 1 ? c.handle - 1 : c.handle),
                            valueHandle: c.handle,
                            uuid: c.uuid, properties: properties,
                            descriptors: (c.descriptors ?? []).map {
                                GATTDatabase.Descriptor(handle: $0.handle, uuid: $0.uuid)
                            }))
                }
                database.services.append(built)
            }
            database.services.sort { $0.handle < $1.handle }
            databases.append((peer.peer, database))
        }
        self.init(name: name, databases: databases)
        guard !self.databases.isEmpty else { throw GivenGATTError.noDatabase(name) }
    }

    /// The database this file gives `peer`: the one of that address, else the file's only
    /// database (nil: a link whose peer the capture never names).
    public func database(for peer: BluetoothAddress?) -> GATTDatabase? {
        if let peer, let named = databases.first(where: { $0.peer == peer }) { return named.database }
        return databases.count == 1 ? databases[0].database : nil
    }
}

package enum GivenGATTError: Error, CustomStringConvertible {
    case unreadable(String)
    case badJSON(String, String)
    case noDatabase(String)

    package var description: String {
        switch self {
        case .unreadable(let path): "--gatt \(path): cannot be read"
        case .badJSON(let name, let why): "--gatt \(name): not the JSON of bletrace gatt --format json: \(why)"
        case .noDatabase(let name): "--gatt \(name): no peer's GATT database in it (no discovery)"
        }
    }
}

// MARK: Databases inferred from traffic

extension GATTDatabase {
    /// What the ATT tracker would have learned by discovering this database.
    public var attributes: [UInt16: AttributeInfo] {
        var table: [UInt16: AttributeInfo] = [:]
        for service in services {
            table[service.handle] = AttributeInfo(uuid: service.uuid, role: .service)
            for c in service.characteristics {
                if c.declarationHandle != c.valueHandle {
                    table[c.declarationHandle] = AttributeInfo(
                        uuid: .characteristicDeclaration, role: .characteristicDeclaration)
                }
                table[c.valueHandle] = AttributeInfo(uuid: c.uuid, role: .characteristicValue)
                for d in c.descriptors { table[d.handle] = AttributeInfo(uuid: d.uuid, role: .descriptor) }
            }
        }
        return table
    }
}

extension GATTDatabase {
    /// What the capture did with one handle of a peer's server that no discovery revealed.
    public struct HandleUse: Hashable, Sendable {
        /// The properties its use shows: read, write, write without response, notify, indicate.
        public var properties = Properties()
        /// Every value the captured host wrote to it, for telling a Client Characteristic
        /// Configuration descriptor apart.
        public var writes: [[UInt8]] = []
        /// Whether the writes were Write Requests (CoreBluetooth subscribes with one).
        public var writtenWithResponse = false
        public init() {}
    }

    /// The base of the UUIDs an inferred database gives: `B1E70000-0000-0000-0000-00000000HHHH`,
    /// HHHH the characteristic's value handle; the service is `…-000000000000`. Version 0 and
    /// variant 0 (the NCS range): no UUID generator makes it, and it is not the Bluetooth Base
    /// UUID, so it cannot be mistaken for a real one.
    public static let inferredHigh: UInt64 = 0xB1E7_0000_0000_0000

    /// The UUID an inferred database gives the characteristic whose value is at `handle` (0 for
    /// its one service).
    public static func inferredUUID(handle: UInt16) -> BluetoothUUID {
        BluetoothUUID(high: inferredHigh, low: UInt64(handle))
    }

    /// Whether `uuid` is one an inferred database made.
    public static func isInferred(_ uuid: BluetoothUUID) -> Bool { uuid.high == inferredHigh && uuid.low <= 0xFFFF }

    /// A database of one service holding a characteristic per handle the captured host read or
    /// wrote or the peer notified or indicated, its properties those its use shows, and a
    /// Client Characteristic Configuration descriptor (2902) where the captured host wrote one:
    /// a handle written only with 2 bytes of 0x0000-0x0003, just above a handle that is notified
    /// or indicated, or written with 0x0001-0x0003 by Write Requests and never read nor notified
    /// itself (the handle below it then notifies or indicates as the bits written say). UUIDs
    /// are ``inferredUUID(handle:)``'s. Empty when nothing was used.
    public static func inferred(from uses: [UInt16: HandleUse]) -> GATTDatabase {
        func isCCCDShaped(_ use: HandleUse) -> Bool {
            !use.writes.isEmpty && use.writes.allSatisfy { $0.count == 2 && $0[1] == 0 && $0[0] <= 3 }
                && use.properties.isDisjoint(with: [.read, .notify, .indicate])
        }
        var characteristics: [UInt16: Properties] = [:]
        var cccds: Set<UInt16> = []
        for (handle, use) in uses where handle > 1 && isCCCDShaped(use) {
            let below = uses[handle - 1]?.properties ?? []
            let enables = use.writes.reduce(UInt8(0)) { $0 | $1[0] }
            if !below.isDisjoint(with: [.notify, .indicate]) || (use.writtenWithResponse && enables != 0) {
                cccds.insert(handle)
            }
        }
        for (handle, use) in uses where !cccds.contains(handle) {
            characteristics[handle, default: []].formUnion(use.properties)
        }
        for cccd in cccds {
            let enables = uses[cccd]!.writes.reduce(UInt8(0)) { $0 | $1[0] }
            var added: Properties = []
            if enables & 1 != 0 { added.insert(.notify) }
            if enables & 2 != 0 { added.insert(.indicate) }
            characteristics[cccd - 1, default: []].formUnion(added)
        }
        // A CCCD below another CCCD's owner would make a characteristic of a descriptor.
        for cccd in cccds { characteristics[cccd] = nil }
        guard !characteristics.isEmpty else { return GATTDatabase() }
        let used = Set(characteristics.keys).union(cccds)
        var service = Service(handle: 1, endHandle: 0xFFFF, uuid: inferredUUID(handle: 0), isPrimary: true)
        for handle in characteristics.keys.sorted() {
            let declaration = handle > 1 && !used.contains(handle - 1) ? handle - 1 : handle
            var characteristic = Characteristic(
                declarationHandle: declaration, valueHandle: handle, uuid: inferredUUID(handle: handle),
                properties: characteristics[handle]!)
            if cccds.contains(handle + 1) {
                characteristic.descriptors = [Descriptor(handle: handle + 1, uuid: .clientCharacteristicConfiguration)]
            }
            service.characteristics.append(characteristic)
        }
        let first = service.characteristics.map(\.declarationHandle).min() ?? 1
        service.handle = max(1, first > 1 ? first - 1 : first)
        return GATTDatabase(services: [service])
    }
}
