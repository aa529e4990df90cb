import Wire

/// An Attribute Protocol PDU, decoded from borrowed bytes.
///
/// Core 6.0, Vol 3, Part F, §3.4: every PDU of the protocol. Values and lists are views into the
/// caller's buffer (lists are lazy and validated at decode): no copy, no allocation. An opcode
/// with no case here (0x22, for one, is unassigned) decodes to ``unknown(opcode:parameters:)``;
/// every PDU encodes back to exactly the bytes it was decoded from.
public enum ATTPDU {
    /// §3.4.1.1. CoreBluetooth reports `error` as a `CBATTError`.
    case errorResponse(requestOpcode: ATTOpcode, handle: UInt16, error: ATTErrorCode)
    /// §3.4.2.1.
    case exchangeMTURequest(clientMTU: UInt16)
    /// §3.4.2.2.
    case exchangeMTUResponse(serverMTU: UInt16)
    /// §3.4.3.1.
    case findInformationRequest(start: UInt16, end: UInt16)
    /// §3.4.3.2.
    case findInformationResponse(ATTInformationList)
    /// §3.4.3.3. `type` is a 16-bit UUID; `value` the value to match.
    case findByTypeValueRequest(start: UInt16, end: UInt16, type: UInt16, value: UnsafeRawBufferPointer)
    /// §3.4.3.4.
    case findByTypeValueResponse(ATTHandleRangeList)
    /// §3.4.4.1.
    case readByTypeRequest(start: UInt16, end: UInt16, type: ATTUUIDField)
    /// §3.4.4.2.
    case readByTypeResponse(ATTHandleValueList)
    /// §3.4.4.3.
    case readRequest(handle: UInt16)
    /// §3.4.4.4.
    case readResponse(value: UnsafeRawBufferPointer)
    /// §3.4.4.5.
    case readBlobRequest(handle: UInt16, offset: UInt16)
    /// §3.4.4.6.
    case readBlobResponse(value: UnsafeRawBufferPointer)
    /// §3.4.4.7.
    case readMultipleRequest(ATTHandleList)
    /// §3.4.4.8. The values, concatenated (their lengths are known only to the client).
    case readMultipleResponse(values: UnsafeRawBufferPointer)
    /// §3.4.4.9.
    case readByGroupTypeRequest(start: UInt16, end: UInt16, type: ATTUUIDField)
    /// §3.4.4.10.
    case readByGroupTypeResponse(ATTGroupList)
    /// §3.4.4.11.
    case readMultipleVariableRequest(ATTHandleList)
    /// §3.4.4.12.
    case readMultipleVariableResponse(ATTLengthPrefixedList)
    /// §3.4.5.1.
    case writeRequest(handle: UInt16, value: UnsafeRawBufferPointer)
    /// §3.4.5.2.
    case writeResponse
    /// §3.4.5.3.
    case writeCommand(handle: UInt16, value: UnsafeRawBufferPointer)
    /// §3.4.5.4. `signature` is the 12-byte authentication signature.
    case signedWriteCommand(handle: UInt16, value: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer)
    /// §3.4.6.1.
    case prepareWriteRequest(handle: UInt16, offset: UInt16, value: UnsafeRawBufferPointer)
    /// §3.4.6.2.
    case prepareWriteResponse(handle: UInt16, offset: UInt16, value: UnsafeRawBufferPointer)
    /// §3.4.6.3. `flags` 0x00 cancels the prepared writes, 0x01 writes them.
    case executeWriteRequest(flags: UInt8)
    /// §3.4.6.4.
    case executeWriteResponse
    /// §3.4.7.1. CoreBluetooth: `peripheral(_:didUpdateValueFor:error:)`.
    case handleValueNotification(handle: UInt16, value: UnsafeRawBufferPointer)
    /// §3.4.7.2.
    case handleValueIndication(handle: UInt16, value: UnsafeRawBufferPointer)
    /// §3.4.7.3.
    case handleValueConfirmation
    /// §3.4.7.4.
    case multipleHandleValueNotification(ATTLengthPrefixedList)
    /// Any other opcode, with its parameters kept as they were.
    case unknown(opcode: ATTOpcode, parameters: UnsafeRawBufferPointer)

    @inlinable
    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: .errorResponse
        case .exchangeMTURequest: .exchangeMTURequest
        case .exchangeMTUResponse: .exchangeMTUResponse
        case .findInformationRequest: .findInformationRequest
        case .findInformationResponse: .findInformationResponse
        case .findByTypeValueRequest: .findByTypeValueRequest
        case .findByTypeValueResponse: .findByTypeValueResponse
        case .readByTypeRequest: .readByTypeRequest
        case .readByTypeResponse: .readByTypeResponse
        case .readRequest: .readRequest
        case .readResponse: .readResponse
        case .readBlobRequest: .readBlobRequest
        case .readBlobResponse: .readBlobResponse
        case .readMultipleRequest: .readMultipleRequest
        case .readMultipleResponse: .readMultipleResponse
        case .readByGroupTypeRequest: .readByGroupTypeRequest
        case .readByGroupTypeResponse: .readByGroupTypeResponse
        case .readMultipleVariableRequest: .readMultipleVariableRequest
        case .readMultipleVariableResponse: .readMultipleVariableResponse
        case .writeRequest: .writeRequest
        case .writeResponse: .writeResponse
        case .writeCommand: .writeCommand
        case .signedWriteCommand: .signedWriteCommand
        case .prepareWriteRequest: .prepareWriteRequest
        case .prepareWriteResponse: .prepareWriteResponse
        case .executeWriteRequest: .executeWriteRequest
        case .executeWriteResponse: .executeWriteResponse
        case .handleValueNotification: .handleValueNotification
        case .handleValueIndication: .handleValueIndication
        case .handleValueConfirmation: .handleValueConfirmation
        case .multipleHandleValueNotification: .multipleHandleValueNotification
        case .unknown(let opcode, _): opcode
        }
    }

    /// The attribute handle the PDU is about, where it names one (for a range: its start).
    @inlinable
    public var handle: UInt16? {
        switch self {
        case .errorResponse(_, let handle, _), .readRequest(let handle),
            .readBlobRequest(let handle, _), .writeRequest(let handle, _),
            .writeCommand(let handle, _), .signedWriteCommand(let handle, _, _),
            .prepareWriteRequest(let handle, _, _), .prepareWriteResponse(let handle, _, _),
            .handleValueNotification(let handle, _), .handleValueIndication(let handle, _),
            .findInformationRequest(let handle, _), .findByTypeValueRequest(let handle, _, _, _),
            .readByTypeRequest(let handle, _, _), .readByGroupTypeRequest(let handle, _, _):
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
        case .findInformationRequest:
            pdu = .findInformationRequest(
                start: try reader.u16le("starting handle"), end: try reader.u16le("ending handle"))
        case .findInformationResponse:
            let format = try reader.u8("format")
            guard format == 1 || format == 2 else {
                throw DecodeError(
                    layer: .att, offset: 1,
                    expected: "format 0x01 (16-bit UUIDs) or 0x02 (128-bit UUIDs), not \(format)")
            }
            let entries = try ATTFixedEntries.validated(
                reader.rest(), entryLength: format == 1 ? 4 : 18, minimum: 1, offset: 2, what: "handle-UUID pairs")
            pdu = .findInformationResponse(ATTInformationList(format: format, entries: entries))
        case .findByTypeValueRequest:
            pdu = .findByTypeValueRequest(
                start: try reader.u16le("starting handle"), end: try reader.u16le("ending handle"),
                type: try reader.u16le("attribute type (16-bit UUID)"), value: reader.rest())
        case .findByTypeValueResponse:
            pdu = .findByTypeValueResponse(
                ATTHandleRangeList(
                    entries: try ATTFixedEntries.validated(
                        reader.rest(), entryLength: 4, minimum: 1, offset: 1, what: "handle ranges")))
        case .readByTypeRequest, .readByGroupTypeRequest:
            let start = try reader.u16le("starting handle")
            let end = try reader.u16le("ending handle")
            let type = try ATTUUIDField.decode(reader.rest(), offset: 5)
            pdu =
                opcode == .readByTypeRequest
                ? .readByTypeRequest(start: start, end: end, type: type)
                : .readByGroupTypeRequest(start: start, end: end, type: type)
        case .readByTypeResponse:
            let length = Int(try reader.u8("length of each handle-value pair"))
            guard length >= 2 else {
                throw DecodeError(layer: .att, offset: 1, expected: "a pair length of at least 2, not \(length)")
            }
            pdu = .readByTypeResponse(
                ATTHandleValueList(
                    entries: try ATTFixedEntries.validated(
                        reader.rest(), entryLength: length, minimum: 1, offset: 2, what: "handle-value pairs")))
        case .readByGroupTypeResponse:
            let length = Int(try reader.u8("length of each attribute data"))
            guard length >= 4 else {
                throw DecodeError(
                    layer: .att, offset: 1, expected: "an attribute data length of at least 4, not \(length)")
            }
            pdu = .readByGroupTypeResponse(
                ATTGroupList(
                    entries: try ATTFixedEntries.validated(
                        reader.rest(), entryLength: length, minimum: 1, offset: 2, what: "attribute data entries")))
        case .readRequest:
            pdu = .readRequest(handle: try reader.u16le("attribute handle"))
        case .readResponse:
            pdu = .readResponse(value: reader.rest())
        case .readBlobRequest:
            pdu = .readBlobRequest(
                handle: try reader.u16le("attribute handle"), offset: try reader.u16le("value offset"))
        case .readBlobResponse:
            pdu = .readBlobResponse(value: reader.rest())
        case .readMultipleRequest, .readMultipleVariableRequest:
            let handles = ATTHandleList(
                entries: try ATTFixedEntries.validated(
                    reader.rest(), entryLength: 2, minimum: 2, offset: 1, what: "attribute handles"))
            pdu = opcode == .readMultipleRequest ? .readMultipleRequest(handles) : .readMultipleVariableRequest(handles)
        case .readMultipleResponse:
            pdu = .readMultipleResponse(values: reader.rest())
        case .readMultipleVariableResponse:
            // The list is 4 to (ATT_MTU-1) bytes (§3.4.4.12, Table 3.28).
            try reader.require(4, "a length-value tuple list of 4 or more bytes")
            pdu = .readMultipleVariableResponse(
                try ATTLengthPrefixedList.validated(
                    reader.rest(), handleLength: 0, lastMayBeShort: true, offset: 1, what: "length-value"))
        case .multipleHandleValueNotification:
            // Two or more attributes' values (§3.4.7.4), never truncated.
            pdu = .multipleHandleValueNotification(
                try ATTLengthPrefixedList.validated(
                    reader.rest(), handleLength: 2, lastMayBeShort: false, minimum: 2, offset: 1,
                    what: "handle-length-value"))
        case .writeRequest:
            pdu = .writeRequest(handle: try reader.u16le("attribute handle"), value: reader.rest())
        case .writeResponse:
            pdu = .writeResponse
        case .writeCommand:
            pdu = .writeCommand(handle: try reader.u16le("attribute handle"), value: reader.rest())
        case .signedWriteCommand:
            let handle = try reader.u16le("attribute handle")
            try reader.require(12, "a 12-byte authentication signature at the end")
            let value = try reader.bytes(reader.remaining - 12, "attribute value")
            pdu = .signedWriteCommand(handle: handle, value: value, signature: reader.rest())
        case .prepareWriteRequest, .prepareWriteResponse:
            let handle = try reader.u16le("attribute handle")
            let offset = try reader.u16le("value offset")
            let value = reader.rest()
            pdu =
                opcode == .prepareWriteRequest
                ? .prepareWriteRequest(handle: handle, offset: offset, value: value)
                : .prepareWriteResponse(handle: handle, offset: offset, value: value)
        case .executeWriteRequest:
            pdu = .executeWriteRequest(flags: try reader.u8("flags"))
        case .executeWriteResponse:
            pdu = .executeWriteResponse
        case .handleValueNotification:
            pdu = .handleValueNotification(handle: try reader.u16le("attribute handle"), value: reader.rest())
        case .handleValueIndication:
            pdu = .handleValueIndication(handle: try reader.u16le("attribute handle"), value: reader.rest())
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
        case .findInformationRequest(let start, let end):
            try writer.u16le(start)
            try writer.u16le(end)
        case .findInformationResponse(let list):
            try writer.u8(list.format)
            try writer.bytes(list.entries.bytes)
        case .findByTypeValueRequest(let start, let end, let type, let value):
            try writer.u16le(start)
            try writer.u16le(end)
            try writer.u16le(type)
            try writer.bytes(value)
        case .findByTypeValueResponse(let list):
            try writer.bytes(list.entries.bytes)
        case .readByTypeRequest(let start, let end, let type), .readByGroupTypeRequest(let start, let end, let type):
            try writer.u16le(start)
            try writer.u16le(end)
            try writer.bytes(type.bytes)
        case .readByTypeResponse(let list):
            try writer.u8(UInt8(list.entries.entryLength))
            try writer.bytes(list.entries.bytes)
        case .readByGroupTypeResponse(let list):
            try writer.u8(UInt8(list.entries.entryLength))
            try writer.bytes(list.entries.bytes)
        case .readRequest(let handle):
            try writer.u16le(handle)
        case .readBlobRequest(let handle, let offset):
            try writer.u16le(handle)
            try writer.u16le(offset)
        case .readResponse(let value), .readBlobResponse(let value), .readMultipleResponse(let value):
            try writer.bytes(value)
        case .readMultipleRequest(let handles), .readMultipleVariableRequest(let handles):
            try writer.bytes(handles.entries.bytes)
        case .readMultipleVariableResponse(let list), .multipleHandleValueNotification(let list):
            try writer.bytes(list.bytes)
        case .writeRequest(let handle, let value), .writeCommand(let handle, let value),
            .handleValueNotification(let handle, let value),
            .handleValueIndication(let handle, let value):
            try writer.u16le(handle)
            try writer.bytes(value)
        case .signedWriteCommand(let handle, let value, let signature):
            try writer.u16le(handle)
            try writer.bytes(value)
            try writer.bytes(signature)
        case .prepareWriteRequest(let handle, let offset, let value),
            .prepareWriteResponse(let handle, let offset, let value):
            try writer.u16le(handle)
            try writer.u16le(offset)
            try writer.bytes(value)
        case .executeWriteRequest(let flags):
            try writer.u8(flags)
        case .writeResponse, .executeWriteResponse, .handleValueConfirmation:
            break
        case .unknown(_, let parameters):
            try writer.bytes(parameters)
        }
    }
}
