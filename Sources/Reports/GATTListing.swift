import ATT
import Lifecycle
import Wire

/// Each peer's GATT database for people (`bletrace gatt`): its services with their handle
/// ranges, characteristics with their properties, descriptors, and the last value the capture
/// saw of each, with where it came from.
public struct GATTListing {
    /// The databases, one a peer; those with no services are left out.
    public var entries: [GATTCollector.Entry]

    /// A listing of the databases in `entries` that have services.
    public init(_ entries: [GATTCollector.Entry]) {
        self.entries = entries.filter { !$0.database.services.isEmpty }
    }

    /// Writes the listing, a line at a time (without line ends), to `emit`.
    public func write(_ emit: (String) -> Void) {
        if entries.isEmpty {
            emit("no GATT discovery in this capture")
        } else {
            for entry in entries { Self.write(entry, emit) }
        }
    }

    /// The whole listing, each line ended by a line feed.
    public var text: String {
        var text = ""
        write { text += $0 + "\n" }
        return text
    }

    static func write(_ entry: GATTCollector.Entry, _ emit: (String) -> Void) {
        let connections = entry.connections.map { "\($0 + 1)" }.joined(separator: ", ")
        emit("peer \(entry.peer.map { "\($0)" } ?? "(not named in the capture)") — connection\(entry.connections.count == 1 ? "" : "s") \(connections)")
        func named(_ uuid: BluetoothUUID, _ name: String?) -> String { "\(uuid)" + (name.map { " \($0)" } ?? "") }
        func shown(_ value: GATTDatabase.Value?) -> String {
            guard let value else { return "" }
            let bytes = value.bytes
            let text = bytes.allSatisfy { (0x20..<0x7F).contains($0) } && !bytes.isEmpty
                ? " \"\(String(decoding: bytes, as: UTF8.self))\"" : ""
            return "  = \(bytes.isEmpty ? "empty" : bytes.withUnsafeBytes(\.hexString))\(text) (\(value.source.rawValue), frame \(value.record + 1))"
        }
        for service in entry.database.services {
            emit("  \(service.isPrimary ? "service" : "secondary service") \(hex(service.handle, digits: 4))-\(hex(service.endHandle, digits: 4)) \(named(service.uuid, service.name))")
            for characteristic in service.characteristics {
                emit("    characteristic \(hex(characteristic.valueHandle, digits: 4)) \(named(characteristic.uuid, characteristic.name)) [\(characteristic.properties.names.joined(separator: ", "))]\(shown(characteristic.lastValue))")
                for descriptor in characteristic.descriptors {
                    emit("      descriptor \(hex(descriptor.handle, digits: 4)) \(named(descriptor.uuid, descriptor.name))\(shown(descriptor.lastValue))")
                }
            }
        }
        emit("")
    }
}
