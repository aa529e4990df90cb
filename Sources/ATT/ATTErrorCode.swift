import Wire

/// An Attribute Protocol error code, as carried by an Error Response.
///
/// Core 6.0, Vol 3, Part F, §3.4.1.1; 0xE0-0xFF: Core Specification Supplement, Part B.
/// CoreBluetooth: `CBATTError.Code` (same raw values for 0x01-0x11). Open: any value is kept.
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static var invalidHandle: Self { .init(rawValue: 0x01) }
    public static var readNotPermitted: Self { .init(rawValue: 0x02) }
    public static var writeNotPermitted: Self { .init(rawValue: 0x03) }
    public static var invalidPDU: Self { .init(rawValue: 0x04) }
    public static var insufficientAuthentication: Self { .init(rawValue: 0x05) }
    public static var requestNotSupported: Self { .init(rawValue: 0x06) }
    public static var invalidOffset: Self { .init(rawValue: 0x07) }
    public static var insufficientAuthorization: Self { .init(rawValue: 0x08) }
    public static var prepareQueueFull: Self { .init(rawValue: 0x09) }
    public static var attributeNotFound: Self { .init(rawValue: 0x0A) }
    public static var attributeNotLong: Self { .init(rawValue: 0x0B) }
    public static var encryptionKeySizeTooShort: Self { .init(rawValue: 0x0C) }
    public static var invalidAttributeValueLength: Self { .init(rawValue: 0x0D) }
    public static var unlikelyError: Self { .init(rawValue: 0x0E) }
    public static var insufficientEncryption: Self { .init(rawValue: 0x0F) }
    public static var unsupportedGroupType: Self { .init(rawValue: 0x10) }
    public static var insufficientResources: Self { .init(rawValue: 0x11) }
    public static var databaseOutOfSync: Self { .init(rawValue: 0x12) }
    public static var valueNotAllowed: Self { .init(rawValue: 0x13) }

    /// 0x80-0x9F: defined by the application (the service's own specification).
    public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }
    /// 0xE0-0xFF: common profile and service error codes.
    public var isCommonProfileError: Bool { rawValue >= 0xE0 }

    public var name: String? {
        switch rawValue {
        case 0x01: "Invalid Handle"
        case 0x02: "Read Not Permitted"
        case 0x03: "Write Not Permitted"
        case 0x04: "Invalid PDU"
        case 0x05: "Insufficient Authentication"
        case 0x06: "Request Not Supported"
        case 0x07: "Invalid Offset"
        case 0x08: "Insufficient Authorization"
        case 0x09: "Prepare Queue Full"
        case 0x0A: "Attribute Not Found"
        case 0x0B: "Attribute Not Long"
        case 0x0C: "Encryption Key Size Too Short"
        case 0x0D: "Invalid Attribute Value Length"
        case 0x0E: "Unlikely Error"
        case 0x0F: "Insufficient Encryption"
        case 0x10: "Unsupported Group Type"
        case 0x11: "Insufficient Resources"
        case 0x12: "Database Out Of Sync"
        case 0x13: "Value Not Allowed"
        case 0x80...0x9F: "Application Error"
        case 0xFC: "Write Request Rejected"
        case 0xFD: "Client Characteristic Configuration Descriptor Improperly Configured"
        case 0xFE: "Procedure Already in Progress"
        case 0xFF: "Out of Range"
        case 0xE0...0xFB: "Common Profile Error"
        default: nil
        }
    }

    public var description: String {
        name ?? "ATTErrorCode(" + hex(rawValue, digits: 1) + ")"
    }
}
