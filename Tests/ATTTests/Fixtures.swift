import ATT
import TestSupport
import Testing
import Wire

/// An ATT PDU as plain values, to compare a decoded ``ATTPDU`` with what the test expects.
/// Values are copied out of the input; lists become arrays of small structs.
enum PDUSummary: Equatable, Sendable {
    case errorResponse(requestOpcode: UInt8, handle: UInt16, error: UInt8)
    case exchangeMTURequest(clientMTU: UInt16)
    case exchangeMTUResponse(serverMTU: UInt16)
    case findInformationRequest(start: UInt16, end: UInt16)
    case findInformationResponse(format: UInt8, [HandleUUID])
    case findByTypeValueRequest(start: UInt16, end: UInt16, type: UInt16, value: [UInt8])
    case findByTypeValueResponse([HandleRange])
    case readByTypeRequest(start: UInt16, end: UInt16, type: UUIDSummary)
    case readByTypeResponse(length: Int, [HandleValue])
    case readRequest(handle: UInt16)
    case readResponse(value: [UInt8])
    case readBlobRequest(handle: UInt16, offset: UInt16)
    case readBlobResponse(value: [UInt8])
    case readMultipleRequest(handles: [UInt16])
    case readMultipleResponse(values: [UInt8])
    case readByGroupTypeRequest(start: UInt16, end: UInt16, type: UUIDSummary)
    case readByGroupTypeResponse(length: Int, [Group])
    case readMultipleVariableRequest(handles: [UInt16])
    /// The values as far as they are in the PDU (the last may be cut short).
    case readMultipleVariableResponse(values: [[UInt8]])
    case writeRequest(handle: UInt16, value: [UInt8])
    case writeResponse
    case writeCommand(handle: UInt16, value: [UInt8])
    case signedWriteCommand(handle: UInt16, value: [UInt8], signature: [UInt8])
    case prepareWriteRequest(handle: UInt16, offset: UInt16, value: [UInt8])
    case prepareWriteResponse(handle: UInt16, offset: UInt16, value: [UInt8])
    case executeWriteRequest(flags: UInt8)
    case executeWriteResponse
    case handleValueNotification(handle: UInt16, value: [UInt8])
    case handleValueIndication(handle: UInt16, value: [UInt8])
    case handleValueConfirmation
    case multipleHandleValueNotification([HandleValue])
    case unknown(opcode: UInt8, parameters: [UInt8])

    /// Find Information Response entry.
    struct HandleUUID: Equatable, Sendable {
        var handle: UInt16
        var type: BluetoothUUID
        init(_ handle: UInt16, _ type: BluetoothUUID) { (self.handle, self.type) = (handle, type) }
    }

    /// Find By Type Value Response entry.
    struct HandleRange: Equatable, Sendable {
        var found: UInt16
        var groupEnd: UInt16
        init(_ found: UInt16, _ groupEnd: UInt16) { (self.found, self.groupEnd) = (found, groupEnd) }
    }

    /// Read By Type Response pair; Multiple Handle Value Notification tuple.
    struct HandleValue: Equatable, Sendable {
        var handle: UInt16
        var value: [UInt8]
        init(_ handle: UInt16, _ value: [UInt8]) { (self.handle, self.value) = (handle, value) }
    }

    /// Read By Group Type Response attribute data.
    struct Group: Equatable, Sendable {
        var handle: UInt16
        var groupEnd: UInt16
        var value: [UInt8]
        init(_ handle: UInt16, _ groupEnd: UInt16, _ value: [UInt8]) {
            (self.handle, self.groupEnd, self.value) = (handle, groupEnd, value)
        }
    }

    /// A UUID field as sent: its size on the wire (2 or 16) and what it means.
    struct UUIDSummary: Equatable, Sendable {
        var size: Int
        var uuid: BluetoothUUID
        static func short(_ value: UInt16) -> Self { .init(size: 2, uuid: BluetoothUUID(value)) }
        static func long(_ uuid: BluetoothUUID) -> Self { .init(size: 16, uuid: uuid) }
    }

    init(_ pdu: ATTPDU) {
        switch pdu {
        case .errorResponse(let request, let handle, let error):
            self = .errorResponse(requestOpcode: request.rawValue, handle: handle, error: error.rawValue)
        case .exchangeMTURequest(let mtu): self = .exchangeMTURequest(clientMTU: mtu)
        case .exchangeMTUResponse(let mtu): self = .exchangeMTUResponse(serverMTU: mtu)
        case .findInformationRequest(let start, let end): self = .findInformationRequest(start: start, end: end)
        case .findInformationResponse(let list):
            self = .findInformationResponse(format: list.format, list.map { HandleUUID($0.handle, $0.type) })
        case .findByTypeValueRequest(let start, let end, let type, let value):
            self = .findByTypeValueRequest(start: start, end: end, type: type, value: Array(value))
        case .findByTypeValueResponse(let list):
            self = .findByTypeValueResponse(list.map { HandleRange($0.found, $0.groupEnd) })
        case .readByTypeRequest(let start, let end, let type):
            self = .readByTypeRequest(
                start: start, end: end, type: UUIDSummary(size: type.bytes.count, uuid: type.uuid))
        case .readByTypeResponse(let list):
            self = .readByTypeResponse(
                length: list.entries.entryLength, list.map { HandleValue($0.handle, Array($0.value)) })
        case .readRequest(let handle): self = .readRequest(handle: handle)
        case .readResponse(let value): self = .readResponse(value: Array(value))
        case .readBlobRequest(let handle, let offset): self = .readBlobRequest(handle: handle, offset: offset)
        case .readBlobResponse(let value): self = .readBlobResponse(value: Array(value))
        case .readMultipleRequest(let handles): self = .readMultipleRequest(handles: Array(handles))
        case .readMultipleResponse(let values): self = .readMultipleResponse(values: Array(values))
        case .readByGroupTypeRequest(let start, let end, let type):
            self = .readByGroupTypeRequest(
                start: start, end: end, type: UUIDSummary(size: type.bytes.count, uuid: type.uuid))
        case .readByGroupTypeResponse(let list):
            self = .readByGroupTypeResponse(
                length: list.entries.entryLength, list.map { Group($0.handle, $0.groupEnd, Array($0.value)) })
        case .readMultipleVariableRequest(let handles): self = .readMultipleVariableRequest(handles: Array(handles))
        case .readMultipleVariableResponse(let list):
            self = .readMultipleVariableResponse(values: list.map { Array($0.value) })
        case .writeRequest(let handle, let value): self = .writeRequest(handle: handle, value: Array(value))
        case .writeResponse: self = .writeResponse
        case .writeCommand(let handle, let value): self = .writeCommand(handle: handle, value: Array(value))
        case .signedWriteCommand(let handle, let value, let signature):
            self = .signedWriteCommand(handle: handle, value: Array(value), signature: Array(signature))
        case .prepareWriteRequest(let handle, let offset, let value):
            self = .prepareWriteRequest(handle: handle, offset: offset, value: Array(value))
        case .prepareWriteResponse(let handle, let offset, let value):
            self = .prepareWriteResponse(handle: handle, offset: offset, value: Array(value))
        case .executeWriteRequest(let flags): self = .executeWriteRequest(flags: flags)
        case .executeWriteResponse: self = .executeWriteResponse
        case .handleValueNotification(let handle, let value):
            self = .handleValueNotification(handle: handle, value: Array(value))
        case .handleValueIndication(let handle, let value):
            self = .handleValueIndication(handle: handle, value: Array(value))
        case .handleValueConfirmation: self = .handleValueConfirmation
        case .multipleHandleValueNotification(let list):
            self = .multipleHandleValueNotification(
                list.map { entry in
                    guard let handle = entry.handle else {
                        Issue.record("a Multiple Handle Value Notification tuple without its handle")
                        return HandleValue(0, Array(entry.value))
                    }
                    return HandleValue(handle, Array(entry.value))
                })
        case .unknown(let opcode, let parameters):
            self = .unknown(opcode: opcode.rawValue, parameters: Array(parameters))
        }
    }
}

/// The value of a characteristic declaration (Core 6.0, Vol 3, Part G, §3.3.1): properties,
/// value handle, and a 16-bit UUID, little-endian; written from its meaning, not from the hex.
func declaration(properties: UInt8, valueHandle: UInt16, uuid: UInt16) -> [UInt8] {
    [properties, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8), UInt8(uuid & 0xFF), UInt8(uuid >> 8)]
}

/// Nordic UART Service UUIDs, `6E40000x-B5A3-F393-E0A9-E50E24DCCA9E`, as 128-bit values.
func nordicUART(_ short: UInt64) -> BluetoothUUID {
    BluetoothUUID(high: 0x6E40_0000_B5A3_F393 | short << 32, low: 0xE0A9_E50E_24DC_CA9E)
}

func decodePDU(_ bytes: [UInt8]) throws -> PDUSummary {
    try bytes.withUnsafeBytes { raw throws in PDUSummary(try ATTPDU.decode(raw)) }
}

/// The `DecodeError` decoding `bytes` throws, or nil (and an issue recorded) if none.
func decodeError(
    _ bytes: [UInt8], _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
) -> DecodeError? {
    #expect(throws: DecodeError.self, comment, sourceLocation: sourceLocation) { try decodePDU(bytes) }
}

/// Decodes `bytes`, encodes the result into a buffer of `capacity` bytes, and returns what was
/// written.
func reencode(_ bytes: [UInt8], capacity: Int) throws -> [UInt8] {
    try bytes.withUnsafeBytes { raw throws in
        let pdu = try ATTPDU.decode(raw)
        return try encode(pdu, capacity: capacity)
    }
}

func encode(_ pdu: ATTPDU, capacity: Int) throws -> [UInt8] {
    var output = [UInt8](repeating: 0xEE, count: capacity)
    let count = try output.withUnsafeMutableBytes { buffer throws in
        var writer = ByteWriter(buffer)
        try pdu.encode(into: &writer)
        return writer.count
    }
    return Array(output.prefix(count))
}
