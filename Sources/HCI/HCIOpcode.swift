import Wire

/// An HCI command opcode: OGF in the top 6 bits, OCF in the low 10.
///
/// Core 6.0, Vol 4, Part E, §5.4.1. Open: vendor and unknown opcodes are kept as they are.
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(ogf: UInt8, ocf: UInt16) { rawValue = UInt16(ogf) << 10 | (ocf & 0x3FF) }

    public var ogf: UInt8 { UInt8(rawValue >> 10) }
    public var ocf: UInt16 { rawValue & 0x3FF }

    /// Core 6.0, Vol 4, Part E, §7.1.6.
    public static var disconnect: Self { .init(rawValue: 0x0406) }
    /// Core 6.0, Vol 4, Part E, §7.8.12.
    public static var leCreateConnection: Self { .init(rawValue: 0x200D) }
    /// Core 6.0, Vol 4, Part E, §7.8.13.
    public static var leCreateConnectionCancel: Self { .init(rawValue: 0x200E) }
    /// Core 6.0, Vol 4, Part E, §7.8.66.
    public static var leExtendedCreateConnection: Self { .init(rawValue: 0x2043) }

    public var name: String? {
        switch rawValue {
        case 0x0406: "Disconnect"
        case 0x0C01: "Set Event Mask"
        case 0x0C03: "Reset"
        case 0x0C63: "Set Event Mask Page 2"
        case 0x0C6D: "Write LE Host Support"
        case 0x1001: "Read Local Version Information"
        case 0x1002: "Read Local Supported Commands"
        case 0x1003: "Read Local Supported Features"
        case 0x1009: "Read BD_ADDR"
        case 0x1405: "Read RSSI"
        case 0x2001: "LE Set Event Mask"
        case 0x2002: "LE Read Buffer Size"
        case 0x2003: "LE Read Local Supported Features"
        case 0x2005: "LE Set Random Address"
        case 0x2006: "LE Set Advertising Parameters"
        case 0x2008: "LE Set Advertising Data"
        case 0x2009: "LE Set Scan Response Data"
        case 0x200A: "LE Set Advertising Enable"
        case 0x200B: "LE Set Scan Parameters"
        case 0x200C: "LE Set Scan Enable"
        case 0x200D: "LE Create Connection"
        case 0x200E: "LE Create Connection Cancel"
        case 0x200F: "LE Read Filter Accept List Size"
        case 0x2010: "LE Clear Filter Accept List"
        case 0x2011: "LE Add Device To Filter Accept List"
        case 0x2013: "LE Connection Update"
        case 0x2016: "LE Read Remote Features"
        case 0x2019: "LE Start Encryption"
        case 0x201C: "LE Read Supported States"
        case 0x2022: "LE Set Data Length"
        case 0x2023: "LE Read Suggested Default Data Length"
        case 0x2027: "LE Add Device To Resolving List"
        case 0x202F: "LE Read Maximum Data Length"
        case 0x2031: "LE Set Default PHY"
        case 0x2032: "LE Set PHY"
        case 0x2041: "LE Set Extended Scan Parameters"
        case 0x2042: "LE Set Extended Scan Enable"
        case 0x2043: "LE Extended Create Connection"
        case 0x2060: "LE Read Buffer Size v2"
        default: nil
        }
    }

    public var description: String {
        name ?? "HCIOpcode(0x" + String(rawValue, radix: 16) + ")"
    }
}
