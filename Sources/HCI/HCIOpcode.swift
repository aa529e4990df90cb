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
    /// Core 6.0, Vol 4, Part E, §7.3.1.
    public static var setEventMask: Self { .init(rawValue: 0x0C01) }
    /// Core 6.0, Vol 4, Part E, §7.3.2.
    public static var reset: Self { .init(rawValue: 0x0C03) }
    /// Core 6.0, Vol 4, Part E, §7.4.1.
    public static var readLocalVersionInformation: Self { .init(rawValue: 0x1001) }
    /// Core 6.0, Vol 4, Part E, §7.4.3.
    public static var readLocalSupportedFeatures: Self { .init(rawValue: 0x1003) }
    /// Core 6.0, Vol 4, Part E, §7.4.6.
    public static var readBDADDR: Self { .init(rawValue: 0x1009) }
    /// Core 6.0, Vol 4, Part E, §7.5.4.
    public static var readRSSI: Self { .init(rawValue: 0x1405) }
    /// Core 6.0, Vol 4, Part E, §7.8.1.
    public static var leSetEventMask: Self { .init(rawValue: 0x2001) }
    /// Core 6.0, Vol 4, Part E, §7.8.2 [v1].
    public static var leReadBufferSize: Self { .init(rawValue: 0x2002) }
    /// Core 6.0, Vol 4, Part E, §7.8.2 [v2].
    public static var leReadBufferSizeV2: Self { .init(rawValue: 0x2060) }
    /// Core 6.0, Vol 4, Part E, §7.8.5.
    public static var leSetAdvertisingParameters: Self { .init(rawValue: 0x2006) }
    /// Core 6.0, Vol 4, Part E, §7.8.7.
    public static var leSetAdvertisingData: Self { .init(rawValue: 0x2008) }
    /// Core 6.0, Vol 4, Part E, §7.8.8.
    public static var leSetScanResponseData: Self { .init(rawValue: 0x2009) }
    /// Core 6.0, Vol 4, Part E, §7.8.9.
    public static var leSetAdvertisingEnable: Self { .init(rawValue: 0x200A) }
    /// Core 6.0, Vol 4, Part E, §7.8.10.
    public static var leSetScanParameters: Self { .init(rawValue: 0x200B) }
    /// Core 6.0, Vol 4, Part E, §7.8.11.
    public static var leSetScanEnable: Self { .init(rawValue: 0x200C) }
    /// Core 6.0, Vol 4, Part E, §7.8.12.
    public static var leCreateConnection: Self { .init(rawValue: 0x200D) }
    /// Core 6.0, Vol 4, Part E, §7.8.13.
    public static var leCreateConnectionCancel: Self { .init(rawValue: 0x200E) }
    /// Core 6.0, Vol 4, Part E, §7.8.16.
    public static var leAddDeviceToFilterAcceptList: Self { .init(rawValue: 0x2011) }
    /// Core 6.0, Vol 4, Part E, §7.8.18.
    public static var leConnectionUpdate: Self { .init(rawValue: 0x2013) }
    /// Core 6.0, Vol 4, Part E, §7.8.21.
    public static var leReadRemoteFeatures: Self { .init(rawValue: 0x2016) }
    /// Core 6.0, Vol 4, Part E, §7.8.24 (LE Enable Encryption).
    public static var leStartEncryption: Self { .init(rawValue: 0x2019) }
    /// Core 6.0, Vol 4, Part E, §7.8.25.
    public static var leLongTermKeyRequestReply: Self { .init(rawValue: 0x201A) }
    /// Core 6.0, Vol 4, Part E, §7.8.26.
    public static var leLongTermKeyRequestNegativeReply: Self { .init(rawValue: 0x201B) }
    /// Core 6.0, Vol 4, Part E, §7.8.33.
    public static var leSetDataLength: Self { .init(rawValue: 0x2022) }
    /// Core 6.0, Vol 4, Part E, §7.8.38.
    public static var leAddDeviceToResolvingList: Self { .init(rawValue: 0x2027) }
    /// Core 6.0, Vol 4, Part E, §7.8.49.
    public static var leSetPHY: Self { .init(rawValue: 0x2032) }
    /// Core 6.0, Vol 4, Part E, §7.8.53 [v1].
    public static var leSetExtendedAdvertisingParameters: Self { .init(rawValue: 0x2036) }
    /// Core 6.0, Vol 4, Part E, §7.8.54.
    public static var leSetExtendedAdvertisingData: Self { .init(rawValue: 0x2037) }
    /// Core 6.0, Vol 4, Part E, §7.8.55.
    public static var leSetExtendedScanResponseData: Self { .init(rawValue: 0x2038) }
    /// Core 6.0, Vol 4, Part E, §7.8.56.
    public static var leSetExtendedAdvertisingEnable: Self { .init(rawValue: 0x2039) }
    /// Core 6.0, Vol 4, Part E, §7.8.64.
    public static var leSetExtendedScanParameters: Self { .init(rawValue: 0x2041) }
    /// Core 6.0, Vol 4, Part E, §7.8.65.
    public static var leSetExtendedScanEnable: Self { .init(rawValue: 0x2042) }
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
        case 0x1408: "Read Encryption Key Size"
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
        case 0x2012: "LE Remove Device From Filter Accept List"
        case 0x2017: "LE Encrypt"
        case 0x2018: "LE Rand"
        case 0x2019: "LE Start Encryption"
        case 0x201A: "LE Long Term Key Request Reply"
        case 0x201B: "LE Long Term Key Request Negative Reply"
        case 0x201C: "LE Read Supported States"
        case 0x2022: "LE Set Data Length"
        case 0x2020: "LE Remote Connection Parameter Request Reply"
        case 0x2021: "LE Remote Connection Parameter Request Negative Reply"
        case 0x2023: "LE Read Suggested Default Data Length"
        case 0x2024: "LE Write Suggested Default Data Length"
        case 0x2027: "LE Add Device To Resolving List"
        case 0x2028: "LE Remove Device From Resolving List"
        case 0x2029: "LE Clear Resolving List"
        case 0x202D: "LE Set Address Resolution Enable"
        case 0x202F: "LE Read Maximum Data Length"
        case 0x2030: "LE Read PHY"
        case 0x2031: "LE Set Default PHY"
        case 0x2032: "LE Set PHY"
        case 0x2035: "LE Set Advertising Set Random Address"
        case 0x2036: "LE Set Extended Advertising Parameters"
        case 0x2037: "LE Set Extended Advertising Data"
        case 0x2038: "LE Set Extended Scan Response Data"
        case 0x2039: "LE Set Extended Advertising Enable"
        case 0x203A: "LE Read Maximum Advertising Data Length"
        case 0x203B: "LE Read Number of Supported Advertising Sets"
        case 0x203C: "LE Remove Advertising Set"
        case 0x203D: "LE Clear Advertising Sets"
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
