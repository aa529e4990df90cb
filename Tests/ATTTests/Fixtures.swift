import ATT
import TestSupport
import Testing
import Wire


/// An ATT PDU as plain values, to compare a decoded ``ATTPDU`` with what the test expects.
enum PDUSummary: Equatable, Sendable {
    case errorResponse(requestOpcode: UInt8, handle: UInt16, error: UInt8)
    case exchangeMTURequest(clientMTU: UInt16)
    case exchangeMTUResponse(serverMTU: UInt16)
    case readRequest(handle: UInt16)
    case readResponse(value: [UInt8])
    case writeRequest(handle: UInt16, value: [UInt8])
    case writeResponse
    case writeCommand(handle: UInt16, value: [UInt8])
    case handleValueNotification(handle: UInt16, value: [UInt8])
    case handleValueIndication(handle: UInt16, value: [UInt8])
    case handleValueConfirmation
    case unknown(opcode: UInt8, parameters: [UInt8])

    init(_ pdu: ATTPDU) {
        switch pdu {
        case .errorResponse(let request, let handle, let error):
            self = .errorResponse(requestOpcode: request.rawValue, handle: handle, error: error.rawValue)
        case .exchangeMTURequest(let mtu): self = .exchangeMTURequest(clientMTU: mtu)
        case .exchangeMTUResponse(let mtu): self = .exchangeMTUResponse(serverMTU: mtu)
        case .readRequest(let handle): self = .readRequest(handle: handle)
        case .readResponse(let value): self = .readResponse(value: Array(value))
        case .writeRequest(let handle, let value): self = .writeRequest(handle: handle, value: Array(value))
        case .writeResponse: self = .writeResponse
        case .writeCommand(let handle, let value): self = .writeCommand(handle: handle, value: Array(value))
        case .handleValueNotification(let handle, let value):
            self = .handleValueNotification(handle: handle, value: Array(value))
        case .handleValueIndication(let handle, let value):
            self = .handleValueIndication(handle: handle, value: Array(value))
        case .handleValueConfirmation: self = .handleValueConfirmation
        case .unknown(let opcode, let parameters):
            self = .unknown(opcode: opcode.rawValue, parameters: Array(parameters))
        }
    }
}

func decodePDU(_ bytes: [UInt8]) throws -> PDUSummary {
    try bytes.withUnsafeBytes { raw throws in PDUSummary(try ATTPDU.decode(raw)) }
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
