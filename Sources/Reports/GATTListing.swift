import ATT
import Lifecycle
import Wire

/// Each peer's GATT databases for people (`bletrace gatt`): the peer's server (what this host's
/// client discovered) and this host's server as the peer's client discovered it, each labelled,
/// with services and their handle ranges, characteristics with their properties, descriptors,
/// and the last value the capture saw of each, with where it came from.
public struct GATTListing {
    /// The databases, one entry a peer; entries with no services on either server are left out.
    public var entries: [GATTCollector.Entry]
    /// The `--gatt` file, and the entries (by their first connection) whose peer's server it
    /// gave, the capture never having discovered it.
    public var given: (file: String, connections: Set<Int>)?

    /// A listing of the databases in `entries` that have services.
    public init(_ entries: [GATTCollector.Entry]) {
        self.entries = entries.filter { !$0.isEmpty }
    }

    /// Writes the listing, a line at a time (without line ends), to `emit`.
    public func write(_ emit: (String) -> Void) {
        if entries.isEmpty {
            emit("no GATT discovery in this capture")
        } else {
            for entry in entries {
                Self.write(
                    entry, emit, given: given.flatMap { $0.connections.contains(entry.connections[0]) ? $0.file : nil })
            }
        }
    }

    /// The whole listing, each line ended by a line feed.
    public var text: String {
        var text = ""
        write { text += $0 + "\n" }
        return text
    }

    static func write(_ entry: GATTCollector.Entry, _ emit: (String) -> Void, given: String? = nil) {
        let connections = entry.connections.map { "\($0 + 1)" }.joined(separator: ", ")
        emit(
            "peer \(entry.peer.map { "\($0)" } ?? "(not named in the capture)") — \(Wording.noun("connection", count: entry.connections.count)) \(connections)"
        )
        func named(_ uuid: BluetoothUUID, _ name: String?) -> String { "\(uuid)" + (name.map { " \($0)" } ?? "") }
        func shown(_ value: GATTDatabase.Value?) -> String {
            guard let value else { return "" }
            let bytes = value.bytes
            let text =
                bytes.allSatisfy { (0x20..<0x7F).contains($0) } && !bytes.isEmpty
                ? " \"\(String(decoding: bytes, as: UTF8.self))\"" : ""
            return
                "  = \(bytes.isEmpty ? "empty" : bytes.withUnsafeBytes(\.hexString))\(text) (\(value.source.rawValue), frame \(value.record + 1))"
        }
        for server in [GATTServer.peer, .local] where !entry[server].isEmpty {
            if server == .peer, let given {
                emit("  its server, as --gatt \(given) gives it (the capture never discovered it):")
            } else {
                emit(
                    server == .peer
                        ? "  its server, as this host's client discovered it:"
                        : "  this host's server, as the peer's client discovered it:")
            }
            write(entry[server], emit, named: named, shown: shown)
        }
        emit("")
    }

    private static func write(
        _ database: GATTDatabase, _ emit: (String) -> Void, named: (BluetoothUUID, String?) -> String,
        shown: (GATTDatabase.Value?) -> String
    ) {
        for service in database.services {
            emit(
                "  \(service.isPrimary ? "service" : "secondary service") \(hex(service.handle, digits: 4))-\(hex(service.endHandle, digits: 4)) \(named(service.uuid, service.name))"
            )
            for characteristic in service.characteristics {
                emit(
                    "    characteristic \(hex(characteristic.valueHandle, digits: 4)) \(named(characteristic.uuid, characteristic.name)) [\(characteristic.properties.names.joined(separator: ", "))]\(shown(characteristic.lastValue))"
                )
                for descriptor in characteristic.descriptors {
                    emit(
                        "      descriptor \(hex(descriptor.handle, digits: 4)) \(named(descriptor.uuid, descriptor.name))\(shown(descriptor.lastValue))"
                    )
                }
            }
        }
        guard !database.outside.isEmpty else { return }
        emit("  outside any service discovery found:")
        for attribute in database.outside {
            if let value = attribute.valueHandle {
                emit(
                    "    characteristic \(hex(value, digits: 4)) \(named(attribute.uuid, attribute.name)) [\((attribute.properties?.names ?? []).joined(separator: ", "))] (declared at \(hex(attribute.handle, digits: 4)))"
                )
            } else {
                emit("    attribute \(hex(attribute.handle, digits: 4)) \(named(attribute.uuid, attribute.name))")
            }
        }
    }
}
