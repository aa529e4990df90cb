import ATT
import Wire

/// A peer's GATT database as the capture's discovery traffic revealed it.
///
/// Core 6.0, Vol 3, Part G, §3 (service, characteristic and descriptor declarations) and §4
/// (the discovery procedures that read them). What the capture did not discover is absent.
public struct GATTDatabase: Hashable, Sendable, Codable {
    public var services: [Service] = []
    /// What discovery found outside every service it found (Find Information, or a
    /// characteristic search, over handles no discovered service holds): kept as found, and
    /// placed in its service if discovery finds that later.
    public var outside: [Attribute] = []

    public init(services: [Service] = []) { self.services = services }

    /// Nothing discovered.
    public var isEmpty: Bool { services.isEmpty && outside.isEmpty }

    /// An attribute discovery found outside every service it found.
    public struct Attribute: Hashable, Sendable, Codable {
        public var handle: UInt16
        /// Its type; for a characteristic declaration, the characteristic's UUID.
        public var uuid: BluetoothUUID
        /// For a characteristic declaration: its value's handle and properties.
        public var valueHandle: UInt16?
        public var properties: Properties?
        public var name: String? { GATTNames.name(for: uuid) }
    }

    /// A service: its handle range, its UUID, and its characteristics.
    public struct Service: Hashable, Sendable, Codable {
        public var handle: UInt16
        public var endHandle: UInt16
        public var uuid: BluetoothUUID
        public var isPrimary: Bool
        public var characteristics: [Characteristic] = []
        public var name: String? { GATTNames.name(for: uuid) }
    }

    /// A characteristic: its declaration and value handles, UUID, properties and descriptors.
    public struct Characteristic: Hashable, Sendable, Codable {
        public var declarationHandle: UInt16
        public var valueHandle: UInt16
        public var uuid: BluetoothUUID
        public var properties: Properties
        public var descriptors: [Descriptor] = []
        public var lastValue: Value?
        public var name: String? { GATTNames.name(for: uuid) }
    }

    /// A descriptor: its handle, its UUID, and the last value the capture shows.
    public struct Descriptor: Hashable, Sendable, Codable {
        public var handle: UInt16
        public var uuid: BluetoothUUID
        public var lastValue: Value?
        public var name: String? { GATTNames.name(for: uuid) }
    }

    /// The last value seen for an attribute, and how it was seen.
    public struct Value: Hashable, Sendable, Codable {
        /// How the value was seen.
        public enum Source: String, Hashable, Sendable, Codable { case read, write, notification, indication }
        public var bytes: [UInt8]
        public var source: Source
        public var record: Int
    }

    /// Characteristic properties, Core 6.0, Vol 3, Part G, §3.3.1.1. CoreBluetooth:
    /// `CBCharacteristicProperties`, same bits.
    public struct Properties: OptionSet, Hashable, Sendable, Codable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let broadcast = Properties(rawValue: 0x01)
        public static let read = Properties(rawValue: 0x02)
        public static let writeWithoutResponse = Properties(rawValue: 0x04)
        public static let write = Properties(rawValue: 0x08)
        public static let notify = Properties(rawValue: 0x10)
        public static let indicate = Properties(rawValue: 0x20)
        public static let authenticatedSignedWrites = Properties(rawValue: 0x40)
        public static let extendedProperties = Properties(rawValue: 0x80)

        static let names: [(Properties, String)] = [
            (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "writeWithoutResponse"),
            (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
            (.authenticatedSignedWrites, "authenticatedSignedWrites"), (.extendedProperties, "extendedProperties"),
        ]
        /// CoreBluetooth's names of the bits set.
        public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
    }

    // MARK: Building

    mutating func addService(handle: UInt16, end: UInt16, uuid: BluetoothUUID, primary: Bool) {
        if let index = services.firstIndex(where: { $0.handle == handle }) {
            services[index].endHandle = end
            services[index].uuid = uuid
            return
        }
        services.append(Service(handle: handle, endHandle: end, uuid: uuid, isPrimary: primary))
        services.sort { $0.handle < $1.handle }
        // What was found outside before: in this service now.
        let inside = outside.filter { (handle...max(handle, end)).contains($0.handle) }
        guard !inside.isEmpty else { return }
        outside.removeAll { (handle...max(handle, end)).contains($0.handle) }
        for attribute in inside {
            if let value = attribute.valueHandle {
                addCharacteristic(
                    declaration: attribute.handle, value: value, uuid: attribute.uuid,
                    properties: attribute.properties?.rawValue ?? 0)
            } else {
                addDescriptor(handle: attribute.handle, uuid: attribute.uuid)
            }
        }
    }

    /// Keeps an attribute found outside every service found so far.
    private mutating func addOutside(_ attribute: Attribute) {
        if let index = outside.firstIndex(where: { $0.handle == attribute.handle }) {
            return outside[index] = attribute
        }
        outside.append(attribute)
        outside.sort { $0.handle < $1.handle }
    }

    mutating func addCharacteristic(declaration: UInt16, value: UInt16, uuid: BluetoothUUID, properties: UInt8) {
        guard let s = serviceIndex(containing: declaration) else {
            return addOutside(
                Attribute(
                    handle: declaration, uuid: uuid, valueHandle: value, properties: Properties(rawValue: properties)))
        }
        let characteristic = Characteristic(
            declarationHandle: declaration, valueHandle: value, uuid: uuid, properties: Properties(rawValue: properties)
        )
        if let c = services[s].characteristics.firstIndex(where: { $0.declarationHandle == declaration }) {
            services[s].characteristics[c].uuid = uuid
            services[s].characteristics[c].valueHandle = value
            services[s].characteristics[c].properties = Properties(rawValue: properties)
            return
        }
        services[s].characteristics.append(characteristic)
        services[s].characteristics.sort { $0.declarationHandle < $1.declarationHandle }
    }

    /// A handle found by Find Information: a descriptor when it lies after a characteristic's
    /// value handle and is not a declaration.
    mutating func addDescriptor(handle: UInt16, uuid: BluetoothUUID) {
        guard serviceIndex(containing: handle) != nil else { return addOutside(Attribute(handle: handle, uuid: uuid)) }
        if uuid.isDeclaration { return }
        guard let (s, c) = characteristicIndex(owning: handle), services[s].characteristics[c].valueHandle != handle,
            !services[s].characteristics[c].descriptors.contains(where: { $0.handle == handle })
        else { return }
        services[s].characteristics[c].descriptors.append(Descriptor(handle: handle, uuid: uuid))
        services[s].characteristics[c].descriptors.sort { $0.handle < $1.handle }
    }

    /// Records a value seen for `handle` (a characteristic value or a descriptor).
    mutating func setValue(_ value: Value, for handle: UInt16) {
        guard let (s, c) = characteristicIndex(owning: handle) else { return }
        if services[s].characteristics[c].valueHandle == handle {
            services[s].characteristics[c].lastValue = value
        } else if let d = services[s].characteristics[c].descriptors.firstIndex(where: { $0.handle == handle }) {
            services[s].characteristics[c].descriptors[d].lastValue = value
        }
    }

    /// Continues a long read of `handle`: `bytes` read from `offset` follow the value read so far
    /// when it is that long (a read from offset 0 starts it again); a gap is not filled.
    mutating func continueRead(_ bytes: UnsafeRawBufferPointer, at offset: UInt16, record: Int, for handle: UInt16) {
        guard offset > 0 else { return setValue(bytes, source: .read, record: record, for: handle) }
        guard let (s, c) = characteristicIndex(owning: handle) else { return }
        func extend(_ value: inout Value?) {
            guard value?.source == .read, value?.bytes.count == Int(offset) else { return }
            value!.bytes.append(contentsOf: bytes)
            value!.record = record
        }
        if services[s].characteristics[c].valueHandle == handle {
            extend(&services[s].characteristics[c].lastValue)
        } else if let d = services[s].characteristics[c].descriptors.firstIndex(where: { $0.handle == handle }) {
            extend(&services[s].characteristics[c].descriptors[d].lastValue)
        }
    }

    /// Records `bytes` seen for `handle`, in the storage of the value seen before where there is
    /// one: a characteristic notified over and over costs no allocation a value.
    mutating func setValue(_ bytes: UnsafeRawBufferPointer, source: Value.Source, record: Int, for handle: UInt16) {
        guard let (s, c) = characteristicIndex(owning: handle) else { return }
        func update(_ value: inout Value?) {
            guard value != nil else { return value = Value(bytes: Array(bytes), source: source, record: record) }
            value!.bytes.replaceSubrange(value!.bytes.indices, with: bytes)
            value!.source = source
            value!.record = record
        }
        if services[s].characteristics[c].valueHandle == handle {
            update(&services[s].characteristics[c].lastValue)
        } else if let d = services[s].characteristics[c].descriptors.firstIndex(where: { $0.handle == handle }) {
            update(&services[s].characteristics[c].descriptors[d].lastValue)
        }
    }

    /// Drops what discovery found in `range`, which a Service Changed indication declared changed
    /// (Core 6.0, Vol 3, Part G, §7.1): services declared in it, and characteristics and
    /// descriptors in it of a service declared before it. What the rediscovery then finds is added
    /// again; what it does not find stays absent. The Service Changed characteristic itself (and
    /// the service holding it) stays: its handle does not change while a client relies on it
    /// (§7.1), and a range of 0x0001-0xFFFF names it too.
    mutating func forget(_ range: ClosedRange<UInt16>) {
        services.removeAll { range.contains($0.handle) && !$0.characteristics.contains { $0.uuid == .serviceChanged } }
        for s in services.indices {
            services[s].characteristics.removeAll { range.contains($0.declarationHandle) && $0.uuid != .serviceChanged }
            for c in services[s].characteristics.indices {
                guard services[s].characteristics[c].uuid != .serviceChanged else { continue }
                services[s].characteristics[c].descriptors.removeAll { range.contains($0.handle) }
                if range.contains(services[s].characteristics[c].valueHandle) {
                    services[s].characteristics[c].lastValue = nil
                }
            }
        }
    }

    private func serviceIndex(containing handle: UInt16) -> Int? {
        services.lastIndex { $0.handle <= handle && handle <= $0.endHandle }
    }

    /// The characteristic whose range (its declaration up to the next declaration or the end of
    /// its service) holds `handle`.
    private func characteristicIndex(owning handle: UInt16) -> (Int, Int)? {
        guard let s = serviceIndex(containing: handle),
            let c = services[s].characteristics.lastIndex(where: { $0.declarationHandle < handle })
        else { return nil }
        return (s, c)
    }
}
