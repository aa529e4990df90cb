import Wire

/// An advertising data type (the AD Type byte of an AD structure).
///
/// Core Specification Supplement, Part A, §1 (the types and their formats); values from Assigned
/// Numbers, §2.3. Open: an unassigned type is kept with its data. CoreBluetooth shows some of these
/// in the `advertisementData` dictionary (`CBAdvertisementDataLocalNameKey`, ...ServiceUUIDsKey,
/// ...ServiceDataKey, ...ManufacturerDataKey, ...TxPowerLevelKey).
public struct ADType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// CSS Part A, §1.3.
    public static var flags: Self { .init(rawValue: 0x01) }
    /// CSS Part A, §1.1.
    public static var incompleteList16BitServiceUUIDs: Self { .init(rawValue: 0x02) }
    public static var completeList16BitServiceUUIDs: Self { .init(rawValue: 0x03) }
    public static var incompleteList32BitServiceUUIDs: Self { .init(rawValue: 0x04) }
    public static var completeList32BitServiceUUIDs: Self { .init(rawValue: 0x05) }
    public static var incompleteList128BitServiceUUIDs: Self { .init(rawValue: 0x06) }
    public static var completeList128BitServiceUUIDs: Self { .init(rawValue: 0x07) }
    /// CSS Part A, §1.2.
    public static var shortenedLocalName: Self { .init(rawValue: 0x08) }
    public static var completeLocalName: Self { .init(rawValue: 0x09) }
    /// CSS Part A, §1.5.
    public static var txPowerLevel: Self { .init(rawValue: 0x0A) }
    /// CSS Part A, §1.11.
    public static var serviceData16BitUUID: Self { .init(rawValue: 0x16) }
    /// CSS Part A, §1.12.
    public static var appearance: Self { .init(rawValue: 0x19) }
    public static var serviceData32BitUUID: Self { .init(rawValue: 0x20) }
    public static var serviceData128BitUUID: Self { .init(rawValue: 0x21) }
    /// CSS Part A, §1.4.
    public static var manufacturerSpecificData: Self { .init(rawValue: 0xFF) }

    public var name: String? {
        switch rawValue {
        case 0x01: "Flags"
        case 0x02: "Incomplete List of 16-bit Service UUIDs"
        case 0x03: "Complete List of 16-bit Service UUIDs"
        case 0x04: "Incomplete List of 32-bit Service UUIDs"
        case 0x05: "Complete List of 32-bit Service UUIDs"
        case 0x06: "Incomplete List of 128-bit Service UUIDs"
        case 0x07: "Complete List of 128-bit Service UUIDs"
        case 0x08: "Shortened Local Name"
        case 0x09: "Complete Local Name"
        case 0x0A: "Tx Power Level"
        case 0x0D: "Class of Device"
        case 0x0E: "Simple Pairing Hash C-192"
        case 0x0F: "Simple Pairing Randomizer R-192"
        case 0x10: "Device ID / Security Manager TK Value"
        case 0x11: "Security Manager Out of Band Flags"
        case 0x12: "Peripheral Connection Interval Range"
        case 0x14: "List of 16-bit Service Solicitation UUIDs"
        case 0x15: "List of 128-bit Service Solicitation UUIDs"
        case 0x16: "Service Data - 16-bit UUID"
        case 0x17: "Public Target Address"
        case 0x18: "Random Target Address"
        case 0x19: "Appearance"
        case 0x1A: "Advertising Interval"
        case 0x1B: "LE Bluetooth Device Address"
        case 0x1C: "LE Role"
        case 0x1D: "Simple Pairing Hash C-256"
        case 0x1E: "Simple Pairing Randomizer R-256"
        case 0x1F: "List of 32-bit Service Solicitation UUIDs"
        case 0x20: "Service Data - 32-bit UUID"
        case 0x21: "Service Data - 128-bit UUID"
        case 0x22: "LE Secure Connections Confirmation Value"
        case 0x23: "LE Secure Connections Random Value"
        case 0x24: "URI"
        case 0x27: "LE Supported Features"
        case 0x2E: "Resolvable Set Identifier"
        case 0xFF: "Manufacturer Specific Data"
        default: nil
        }
    }

    public var description: String { name ?? "ADType(" + hex(rawValue, digits: 1) + ")" }
}

/// The Flags AD type's bits. Core Specification Supplement, Part A, §1.3. Unassigned bits are kept.
public struct ADFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static var leLimitedDiscoverableMode: Self { .init(rawValue: 0x01) }
    public static var leGeneralDiscoverableMode: Self { .init(rawValue: 0x02) }
    public static var brEDRNotSupported: Self { .init(rawValue: 0x04) }
    /// Simultaneous LE and BR/EDR to the same device capable (controller).
    public static var simultaneousLEAndBREDRController: Self { .init(rawValue: 0x08) }
    /// Simultaneous LE and BR/EDR to the same device capable (host).
    public static var simultaneousLEAndBREDRHost: Self { .init(rawValue: 0x10) }
}
