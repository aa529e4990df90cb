import Wire

/// An Attribute Protocol opcode: method in bits 0-5, command flag in bit 6, authentication
/// signature flag in bit 7.
///
/// Core 6.0, Vol 3, Part F, §3.3.1 and §3.4.8. Open: an unassigned opcode is kept and printed
/// as `ATTOpcode(0x9c)`.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static var errorResponse: Self { .init(rawValue: 0x01) }
    public static var exchangeMTURequest: Self { .init(rawValue: 0x02) }
    public static var exchangeMTUResponse: Self { .init(rawValue: 0x03) }
    public static var findInformationRequest: Self { .init(rawValue: 0x04) }
    public static var findInformationResponse: Self { .init(rawValue: 0x05) }
    public static var findByTypeValueRequest: Self { .init(rawValue: 0x06) }
    public static var findByTypeValueResponse: Self { .init(rawValue: 0x07) }
    public static var readByTypeRequest: Self { .init(rawValue: 0x08) }
    public static var readByTypeResponse: Self { .init(rawValue: 0x09) }
    public static var readRequest: Self { .init(rawValue: 0x0A) }
    public static var readResponse: Self { .init(rawValue: 0x0B) }
    public static var readBlobRequest: Self { .init(rawValue: 0x0C) }
    public static var readBlobResponse: Self { .init(rawValue: 0x0D) }
    public static var readMultipleRequest: Self { .init(rawValue: 0x0E) }
    public static var readMultipleResponse: Self { .init(rawValue: 0x0F) }
    public static var readByGroupTypeRequest: Self { .init(rawValue: 0x10) }
    public static var readByGroupTypeResponse: Self { .init(rawValue: 0x11) }
    public static var writeRequest: Self { .init(rawValue: 0x12) }
    public static var writeResponse: Self { .init(rawValue: 0x13) }
    public static var prepareWriteRequest: Self { .init(rawValue: 0x16) }
    public static var prepareWriteResponse: Self { .init(rawValue: 0x17) }
    public static var executeWriteRequest: Self { .init(rawValue: 0x18) }
    public static var executeWriteResponse: Self { .init(rawValue: 0x19) }
    public static var handleValueNotification: Self { .init(rawValue: 0x1B) }
    public static var handleValueIndication: Self { .init(rawValue: 0x1D) }
    public static var handleValueConfirmation: Self { .init(rawValue: 0x1E) }
    public static var readMultipleVariableRequest: Self { .init(rawValue: 0x20) }
    public static var readMultipleVariableResponse: Self { .init(rawValue: 0x21) }
    public static var multipleHandleValueNotification: Self { .init(rawValue: 0x23) }
    public static var writeCommand: Self { .init(rawValue: 0x52) }
    public static var signedWriteCommand: Self { .init(rawValue: 0xD2) }

    /// What a PDU is in the protocol's exchanges (§3.3): requests get one response (or an Error
    /// Response), indications one confirmation; commands and notifications get nothing.
    public enum Method: Hashable, Sendable {
        case request, response, command, notification, indication, confirmation, unknown
    }

    @inlinable
    public var method: Method {
        switch rawValue {
        case 0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20: .request
        case 0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21: .response
        case 0x52, 0xD2: .command
        case 0x1B, 0x23: .notification
        case 0x1D: .indication
        case 0x1E: .confirmation
        default: .unknown
        }
    }

    /// For a request, the opcode of its successful response (an Error Response may come instead).
    public var responseOpcode: ATTOpcode? {
        method == .request ? ATTOpcode(rawValue: rawValue + 1) : nil
    }

    /// Bit 6: the PDU is a command (no response).
    public var isCommand: Bool { rawValue & 0x40 != 0 }
    /// Bit 7: a 12-byte authentication signature ends the PDU.
    public var hasAuthenticationSignature: Bool { rawValue & 0x80 != 0 }

    public var name: String? {
        switch rawValue {
        case 0x01: "Error Response"
        case 0x02: "Exchange MTU Request"
        case 0x03: "Exchange MTU Response"
        case 0x04: "Find Information Request"
        case 0x05: "Find Information Response"
        case 0x06: "Find By Type Value Request"
        case 0x07: "Find By Type Value Response"
        case 0x08: "Read By Type Request"
        case 0x09: "Read By Type Response"
        case 0x0A: "Read Request"
        case 0x0B: "Read Response"
        case 0x0C: "Read Blob Request"
        case 0x0D: "Read Blob Response"
        case 0x0E: "Read Multiple Request"
        case 0x0F: "Read Multiple Response"
        case 0x10: "Read By Group Type Request"
        case 0x11: "Read By Group Type Response"
        case 0x12: "Write Request"
        case 0x13: "Write Response"
        case 0x16: "Prepare Write Request"
        case 0x17: "Prepare Write Response"
        case 0x18: "Execute Write Request"
        case 0x19: "Execute Write Response"
        case 0x1B: "Handle Value Notification"
        case 0x1D: "Handle Value Indication"
        case 0x1E: "Handle Value Confirmation"
        case 0x20: "Read Multiple Variable Request"
        case 0x21: "Read Multiple Variable Response"
        case 0x23: "Multiple Handle Value Notification"
        case 0x52: "Write Command"
        case 0xD2: "Signed Write Command"
        default: nil
        }
    }

    public var description: String {
        name ?? "ATTOpcode(" + hex(rawValue, digits: 1) + ")"
    }
}
