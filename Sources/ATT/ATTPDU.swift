import Wire

/// An Attribute Protocol PDU, decoded from borrowed bytes.
///
/// Core 6.0, Vol 3, Part F, §3.4. Values are views into the caller's buffer: no copy, no
/// allocation. An opcode without a case here decodes to ``unknown(opcode:parameters:)`` and
/// encodes back to the same bytes.
public enum ATTPDU {
    /// §3.4.1.1. CoreBluetooth reports `error` as a `CBATTError`.
    case errorResponse(requestOpcode: ATTOpcode, handle: UInt16, error: ATTErrorCode)
    /// §3.4.2.1.
    case exchangeMTURequest(clientMTU: UInt16)
    /// §3.4.2.2.
    case exchangeMTUResponse(serverMTU: UInt16)
    /// §3.4.4.3.
    case readRequest(handle: UInt16)
    /// §3.4.4.4.
    case readResponse(value: UnsafeRawBufferPointer)
    /// §3.4.5.1.
    case writeRequest(handle: UInt16, value: UnsafeRawBufferPointer)
    /// §3.4.5.2.
    case writeResponse
    /// §3.4.5.3.
    case writeCommand(handle: UInt16, value: UnsafeRawBufferPointer)
    /// §3.4.7.1. CoreBluetooth: `peripheral(_:didUpdateValueFor:error:)`.
    case handleValueNotification(handle: UInt16, value: UnsafeRawBufferPointer)
    /// §3.4.7.2.
    case handleValueIndication(handle: UInt16, value: UnsafeRawBufferPointer)
    /// §3.4.7.3.
    case handleValueConfirmation
    /// Any other opcode, with its parameters kept as they were.
    case unknown(opcode: ATTOpcode, parameters: UnsafeRawBufferPointer)

    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: .errorResponse
        case .exchangeMTURequest: .exchangeMTURequest
        case .exchangeMTUResponse: .exchangeMTUResponse
        case .readRequest: .readRequest
        case .readResponse: .readResponse
        case .writeRequest: .writeRequest
        case .writeResponse: .writeResponse
        case .writeCommand: .writeCommand
        case .handleValueNotification: .handleValueNotification
        case .handleValueIndication: .handleValueIndication
        case .handleValueConfirmation: .handleValueConfirmation
        case .unknown(let opcode, _): opcode
        }
    }

    /// The attribute handle the PDU is about, where it names one.
    public var handle: UInt16? {
        switch self {
        case .errorResponse(_, let handle, _), .readRequest(let handle),
            .writeRequest(let handle, _), .writeCommand(let handle, _),
            .handleValueNotification(let handle, _), .handleValueIndication(let handle, _):
            handle
        default: nil
        }
    }

    /// Decodes one PDU: `bytes` is the whole L2CAP payload on the ATT channel.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> ATTPDU {
        var reader = ByteReader(bytes, layer: .att)
        let opcode = ATTOpcode(rawValue: try reader.u8("ATT opcode (1 byte)"))
        let pdu: ATTPDU
        switch opcode {
        case .errorResponse:
            pdu = .errorResponse(
                requestOpcode: ATTOpcode(rawValue: try reader.u8("request opcode in error")),
                handle: try reader.u16le("attribute handle in error"),
                error: ATTErrorCode(rawValue: try reader.u8("error code")))
        case .exchangeMTURequest:
            pdu = .exchangeMTURequest(clientMTU: try reader.u16le("client Rx MTU"))
        case .exchangeMTUResponse:
            pdu = .exchangeMTUResponse(serverMTU: try reader.u16le("server Rx MTU"))
        case .readRequest:
            pdu = .readRequest(handle: try reader.u16le("attribute handle"))
        case .readResponse:
            pdu = .readResponse(value: reader.rest())
        case .writeRequest:
            pdu = .writeRequest(handle: try reader.u16le("attribute handle"), value: reader.rest())
        case .writeResponse:
            pdu = .writeResponse
        case .writeCommand:
            pdu = .writeCommand(handle: try reader.u16le("attribute handle"), value: reader.rest())
        case .handleValueNotification:
            pdu = .handleValueNotification(
                handle: try reader.u16le("attribute handle"), value: reader.rest())
        case .handleValueIndication:
            pdu = .handleValueIndication(
                handle: try reader.u16le("attribute handle"), value: reader.rest())
        case .handleValueConfirmation:
            pdu = .handleValueConfirmation
        default:
            return .unknown(opcode: opcode, parameters: reader.rest())
        }
        guard reader.isAtEnd else {
            throw reader.error("the end of the \(opcode) (\(reader.offset) bytes), not \(bytes.count) bytes")
        }
        return pdu
    }

    /// Writes the PDU's bytes, opcode first; the exact inverse of ``decode(_:)``.
    public func encode(into writer: inout ByteWriter) throws(ByteWriter.Overflow) {
        try writer.u8(opcode.rawValue)
        switch self {
        case .errorResponse(let request, let handle, let error):
            try writer.u8(request.rawValue)
            try writer.u16le(handle)
            try writer.u8(error.rawValue)
        case .exchangeMTURequest(let mtu), .exchangeMTUResponse(let mtu):
            try writer.u16le(mtu)
        case .readRequest(let handle):
            try writer.u16le(handle)
        case .readResponse(let value):
            try writer.bytes(value)
        case .writeRequest(let handle, let value), .writeCommand(let handle, let value),
            .handleValueNotification(let handle, let value),
            .handleValueIndication(let handle, let value):
            try writer.u16le(handle)
            try writer.bytes(value)
        case .writeResponse, .handleValueConfirmation:
            break
        case .unknown(_, let parameters):
            try writer.bytes(parameters)
        }
    }
}
