import Wire

/// Advertising or scan response data as an HCI packet carries it, not yet parsed into AD
/// structures.
///
/// Core 6.0, Vol 3, Part C, §11 (the format); Core Specification Supplement, Part A, §1 (the
/// types). The bytes are a view into the packet. ``structures()`` parses and checks them once;
/// it is a separate step because the data is the advertiser's, not the controller's: a peer's
/// malformed advertisement is reported where it is, without losing the report that carried it.
/// Extended advertising data may also arrive in fragments that cut a structure in two.
public struct AdvertisingData {
    /// The data bytes (for LE Set Advertising Data: the significant part, Advertising_Data_Length
    /// bytes).
    public let bytes: UnsafeRawBufferPointer
    /// Where `bytes` begin in the packet that carried them, so errors point into that packet.
    public let offset: Int
    public let layer: DecodeError.Layer

    public init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0, layer: DecodeError.Layer = .hci) {
        self.bytes = bytes
        self.offset = offset
        self.layer = layer
    }

    /// The AD structures, checked: every length within the data, and every structure of a type
    /// with a fixed format (flags, UUID lists, Tx Power Level, service data, appearance,
    /// manufacturer data) of a length that format allows. The error names the offending byte.
    public func structures() throws(DecodeError) -> ADStructureList {
        var position = 0
        while position < bytes.count {
            let length = Int(bytes[position])
            if length == 0 { break }
            guard position + 1 + length <= bytes.count else {
                throw DecodeError(
                    layer: layer, offset: offset + position,
                    expected:
                        "an AD structure of \(length) bytes after its length byte, not \(bytes.count - position - 1)")
            }
            let type = ADType(rawValue: bytes[position + 1])
            let data = UnsafeRawBufferPointer(rebasing: bytes[position + 2..<position + 1 + length])
            if ADValue(type: type, data: data) == nil {
                throw DecodeError(
                    layer: layer, offset: offset + position + 2,
                    expected: "\(ADValue.format(of: type)) for \(type), not \(data.count) bytes")
            }
            position += 1 + length
        }
        return ADStructureList(
            significant: UnsafeRawBufferPointer(rebasing: bytes[..<position]),
            padding: UnsafeRawBufferPointer(rebasing: bytes[position...]), offset: offset)
    }
}

/// One AD structure: Length, AD Type, AD Data. Core 6.0, Vol 3, Part C, §11.
public struct ADStructure {
    public var type: ADType
    /// The AD data, without the length and type bytes.
    public var data: UnsafeRawBufferPointer
    /// Where the structure's length byte is in the packet.
    public var offset: Int

    /// The data decoded by its type; checked when the list was made, so this never fails.
    public var value: ADValue { ADValue(type: type, data: data) ?? .unknown(type: type, data: data) }
}

/// What an AD structure says, decoded for the types whose format the Supplement fixes.
/// Core Specification Supplement, Part A, §1.
public enum ADValue {
    /// §1.3. Zero or more bytes; the first holds the defined flags (none when empty).
    case flags(ADFlags)
    /// §1.1. A list of 16-, 32- or 128-bit service UUIDs; `complete` for the complete lists.
    case serviceUUIDs(ADUUIDList, complete: Bool)
    /// §1.2. UTF-8, possibly cut mid-character when shortened. See ``ADStructureList/localName``.
    case localName(UnsafeRawBufferPointer, complete: Bool)
    /// §1.5. In dBm.
    case txPowerLevel(Int8)
    /// §1.11. A service UUID (16, 32 or 128 bits) and its data.
    case serviceData(uuid: BluetoothUUID, data: UnsafeRawBufferPointer)
    /// §1.12. Category in bits 15-6, subcategory in bits 5-0 (Assigned Numbers, §2.6).
    case appearance(UInt16)
    /// §1.4. The company identifier (Assigned Numbers, §7) and the company's data.
    case manufacturerSpecificData(companyID: UInt16, data: UnsafeRawBufferPointer)
    /// Any other type, kept as it is.
    case unknown(type: ADType, data: UnsafeRawBufferPointer)

    /// Nil when the data's length does not fit the type's format.
    init?(type: ADType, data: UnsafeRawBufferPointer) {
        switch type.rawValue {
        case 0x01:
            self = .flags(ADFlags(rawValue: data.isEmpty ? 0 : data[0]))
        case 0x02...0x07:
            let width = Self.uuidWidth(type)
            guard data.count % width == 0 else { return nil }
            self = .serviceUUIDs(ADUUIDList(bytes: data, width: width), complete: type.rawValue & 1 == 1)
        case 0x08, 0x09:
            self = .localName(data, complete: type == .completeLocalName)
        case 0x0A:
            guard data.count == 1 else { return nil }
            self = .txPowerLevel(Int8(bitPattern: data[0]))
        case 0x16, 0x20, 0x21:
            let width = Self.uuidWidth(type)
            guard data.count >= width,
                let uuid = BluetoothUUID(littleEndian: UnsafeRawBufferPointer(rebasing: data[..<width]))
            else { return nil }
            self = .serviceData(uuid: uuid, data: UnsafeRawBufferPointer(rebasing: data[width...]))
        case 0x19:
            guard data.count == 2 else { return nil }
            self = .appearance(le16(data, 0))
        case 0xFF:
            guard data.count >= 2 else { return nil }
            self = .manufacturerSpecificData(
                companyID: le16(data, 0), data: UnsafeRawBufferPointer(rebasing: data[2...]))
        default:
            self = .unknown(type: type, data: data)
        }
    }

    /// The UUID size of a UUID list or service data type.
    static func uuidWidth(_ type: ADType) -> Int {
        switch type.rawValue {
        case 0x02, 0x03, 0x16: 2
        case 0x04, 0x05, 0x20: 4
        default: 16
        }
    }

    /// What a type's data must look like, for error messages.
    static func format(of type: ADType) -> String {
        switch type.rawValue {
        case 0x02...0x07: "a whole number of \(uuidWidth(type))-byte UUIDs"
        case 0x0A: "exactly 1 byte"
        case 0x16, 0x20, 0x21: "a \(uuidWidth(type))-byte UUID and then the data"
        case 0x19: "exactly 2 bytes"
        case 0xFF: "a 2-byte company identifier and then the data"
        default: "any bytes"
        }
    }
}

/// Service UUIDs of one size, from a UUID list AD structure: a lazy view.
public struct ADUUIDList: RandomAccessCollection {
    public let bytes: UnsafeRawBufferPointer
    /// 2, 4 or 16.
    public let width: Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { bytes.count / width }

    public subscript(position: Int) -> BluetoothUUID {
        let start = position * width
        // The width is 2, 4 or 16, so this always decodes.
        return BluetoothUUID(littleEndian: UnsafeRawBufferPointer(rebasing: bytes[start..<start + width]))
            ?? BluetoothUUID(high: 0, low: 0)
    }
}

/// The AD structures of some advertising data, checked once: iterating never fails and never
/// allocates. Core 6.0, Vol 3, Part C, §11.
///
/// A structure whose length byte is 0 ends the significant part; what follows it is padding
/// (Vol 3, Part C, §11), kept in ``padding`` and not parsed.
public struct ADStructureList: Sequence {
    /// The structures' bytes, up to (not including) a zero length byte.
    public let significant: UnsafeRawBufferPointer
    /// Everything from the first zero length byte on; empty when there is none.
    public let padding: UnsafeRawBufferPointer
    /// Where the data began in its packet.
    public let offset: Int

    /// Walks the AD structures in order, each a view of the data's bytes.
    public struct Iterator: IteratorProtocol {
        let bytes: UnsafeRawBufferPointer
        let base: Int
        var position = 0

        public mutating func next() -> ADStructure? {
            guard position < bytes.count else { return nil }
            let length = Int(bytes[position])
            defer { position += 1 + length }
            return ADStructure(
                type: ADType(rawValue: bytes[position + 1]),
                data: UnsafeRawBufferPointer(rebasing: bytes[position + 2..<position + 1 + length]),
                offset: base + position)
        }
    }

    public func makeIterator() -> Iterator { Iterator(bytes: significant, base: offset) }

    /// The first structure of `type`.
    public func first(_ type: ADType) -> ADStructure? { first { $0.type == type } }

    /// The Flags, when present.
    public var flags: ADFlags? {
        if case .flags(let flags)? = first(.flags)?.value { return flags }
        return nil
    }

    /// The complete local name, or else the shortened one, as text (invalid UTF-8 repaired).
    public var localName: String? {
        guard let name = first(.completeLocalName) ?? first(.shortenedLocalName) else { return nil }
        return String(decoding: name.data, as: UTF8.self)
    }

    /// The Tx Power Level, in dBm. CoreBluetooth: `CBAdvertisementDataTxPowerLevelKey`.
    public var txPowerLevel: Int8? {
        if case .txPowerLevel(let level)? = first(.txPowerLevel)?.value { return level }
        return nil
    }

    public var appearance: UInt16? {
        if case .appearance(let value)? = first(.appearance)?.value { return value }
        return nil
    }
}
