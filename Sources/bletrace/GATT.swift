import ArgumentParser
import BLETrace

/// `bletrace gatt FILE`: each peer's GATT database, rebuilt from the capture's discovery.
struct GATT: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Rebuild each peer's GATT database from the discovery in the capture: services, characteristics with properties, descriptors, last values.")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, or jsonl (the JSON document on one line).") var format: OutputFormat = .text
    @OptionGroup var output: OutputOptions

    func run() throws {
        try output.apply(input: capture.file)
        let reader = try openCapture(try capture.path)
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        var collector = GATTCollector()
        var fault: (any Error)?
        do {
            while let record = try reader.next() {
                let decoded = decoder.decode(record)
                analyzer.add(record, decoded)
                collector.add(record, decoded, analyzer: analyzer)
            }
        } catch { fault = error }
        let entries = collector.entries.filter { !$0.database.services.isEmpty }
        if format != .text {
            try Output.json(JSONGATT(entries), pretty: format == .json)
        } else if entries.isEmpty {
            Output.line("no GATT discovery in this capture")
        } else {
            for entry in entries { printDatabase(entry) }
        }
        try finish(fault)
    }

    private func printDatabase(_ entry: GATTCollector.Entry) {
        let connections = entry.connections.map { "\($0 + 1)" }.joined(separator: ", ")
        Output.line("peer \(entry.peer.map { "\($0)" } ?? "(not named in the capture)") — connection\(entry.connections.count == 1 ? "" : "s") \(connections)")
        func named(_ uuid: BluetoothUUID, _ name: String?) -> String { "\(uuid)" + (name.map { " \($0)" } ?? "") }
        func shown(_ value: GATTDatabase.Value?) -> String {
            guard let value else { return "" }
            let bytes = value.bytes
            let text = bytes.allSatisfy { (0x20..<0x7F).contains($0) } && !bytes.isEmpty
                ? " \"\(String(decoding: bytes, as: UTF8.self))\"" : ""
            return "  = \(bytes.isEmpty ? "empty" : bytes.withUnsafeBytes(\.hexString))\(text) (\(value.source.rawValue), frame \(value.record + 1))"
        }
        for service in entry.database.services {
            Output.line("  \(service.isPrimary ? "service" : "secondary service") \(hex(service.handle, digits: 4))-\(hex(service.endHandle, digits: 4)) \(named(service.uuid, service.name))")
            for characteristic in service.characteristics {
                Output.line("    characteristic \(hex(characteristic.valueHandle, digits: 4)) \(named(characteristic.uuid, characteristic.name)) [\(characteristic.properties.names.joined(separator: ", "))]\(shown(characteristic.lastValue))")
                for descriptor in characteristic.descriptors {
                    Output.line("      descriptor \(hex(descriptor.handle, digits: 4)) \(named(descriptor.uuid, descriptor.name))\(shown(descriptor.lastValue))")
                }
            }
        }
        Output.line("")
    }
}

/// The JSON contract of `bletrace gatt --format json` (Formats/json.md).
struct JSONGATT: Encodable {
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
    struct Peer: Encodable {
        var peer: String?
        var connections: [Int]
        var services: [Service]
    }
    var version = jsonVersion
    var peers: [Peer]

    init(_ entries: [GATTCollector.Entry]) {
        peers = entries.map { entry in
            Peer(
                peer: entry.peer.map { "\($0)" }, connections: entry.connections,
                services: entry.database.services.map { service in
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
                })
        }
    }
}
