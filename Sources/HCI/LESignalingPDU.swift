import Wire

/// An L2CAP signaling command code. Core 6.0, Vol 3, Part A, §4. Open.
public struct L2CAPSignalingCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// §4.1.
    public static var commandReject: Self { .init(rawValue: 0x01) }
    /// §4.6.
    public static var disconnectionRequest: Self { .init(rawValue: 0x06) }
    /// §4.7.
    public static var disconnectionResponse: Self { .init(rawValue: 0x07) }
    public static var connectionParameterUpdateRequest: Self { .init(rawValue: 0x12) }
    public static var connectionParameterUpdateResponse: Self { .init(rawValue: 0x13) }
    public static var leCreditBasedConnectionRequest: Self { .init(rawValue: 0x14) }
    public static var leCreditBasedConnectionResponse: Self { .init(rawValue: 0x15) }
    public static var flowControlCreditIndication: Self { .init(rawValue: 0x16) }
    public static var creditBasedConnectionRequest: Self { .init(rawValue: 0x17) }
    public static var creditBasedConnectionResponse: Self { .init(rawValue: 0x18) }
    public static var creditBasedReconfigureRequest: Self { .init(rawValue: 0x19) }
    public static var creditBasedReconfigureResponse: Self { .init(rawValue: 0x1A) }

    public var name: String? {
        switch rawValue {
        case 0x01: "Command Reject"
        case 0x02: "Connection Request"
        case 0x03: "Connection Response"
        case 0x04: "Configuration Request"
        case 0x05: "Configuration Response"
        case 0x06: "Disconnection Request"
        case 0x07: "Disconnection Response"
        case 0x08: "Echo Request"
        case 0x09: "Echo Response"
        case 0x0A: "Information Request"
        case 0x0B: "Information Response"
        case 0x0C: "Create Channel Request"
        case 0x0D: "Create Channel Response"
        case 0x0E: "Move Channel Request"
        case 0x0F: "Move Channel Response"
        case 0x10: "Move Channel Confirmation Request"
        case 0x11: "Move Channel Confirmation Response"
        case 0x12: "Connection Parameter Update Request"
        case 0x13: "Connection Parameter Update Response"
        case 0x14: "LE Credit Based Connection Request"
        case 0x15: "LE Credit Based Connection Response"
        case 0x16: "Flow Control Credit Indication"
        case 0x17: "Credit Based Connection Request"
        case 0x18: "Credit Based Connection Response"
        case 0x19: "Credit Based Reconfigure Request"
        case 0x1A: "Credit Based Reconfigure Response"
        default: nil
        }
    }

    public var description: String {
        name ?? "L2CAPSignalingCode(" + hex(rawValue, digits: 1) + ")"
    }
}

/// Why a signaling command was rejected. Core 6.0, Vol 3, Part A, §4.1. Open.
public struct L2CAPCommandRejectReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static var commandNotUnderstood: Self { .init(rawValue: 0x0000) }
    public static var signalingMTUExceeded: Self { .init(rawValue: 0x0001) }
    public static var invalidCIDInRequest: Self { .init(rawValue: 0x0002) }

    public var name: String? {
        switch rawValue {
        case 0x0000: "Command not understood"
        case 0x0001: "Signaling MTU exceeded"
        case 0x0002: "Invalid CID in request"
        default: nil
        }
    }

    public var description: String {
        name ?? "L2CAPCommandRejectReason(" + hex(rawValue, digits: 1) + ")"
    }
}

/// The result of an LE Credit Based Connection Request, as its response gives it.
/// Core 6.0, Vol 3, Part A, §4 (LE Credit Based Connection Response). Open.
/// CoreBluetooth: the error of `peripheral(_:didOpen:error:)`.
public struct L2CAPLECreditBasedConnectionResult: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static var successful: Self { .init(rawValue: 0x0000) }

    public var name: String? {
        switch rawValue {
        case 0x0000: "Connection successful"
        case 0x0002: "Connection refused - SPSM not supported"
        case 0x0004: "Connection refused - no resources available"
        case 0x0005: "Connection refused - insufficient authentication"
        case 0x0006: "Connection refused - insufficient authorization"
        case 0x0007: "Connection refused - encryption key size too short"
        case 0x0008: "Connection refused - insufficient encryption"
        case 0x0009: "Connection refused - invalid Source CID"
        case 0x000A: "Connection refused - Source CID already allocated"
        case 0x000B: "Connection refused - unacceptable parameters"
        default: nil
        }
    }

    public var description: String {
        name ?? "L2CAPLECreditBasedConnectionResult(" + hex(rawValue, digits: 1) + ")"
    }
}

/// A command on the LE signaling channel (CID 5): Code, Identifier, Length, Data.
/// Core 6.0, Vol 3, Part A, §4.
///
/// On LE, a signaling frame carries exactly one command (§4), so bytes after the command's
/// declared length are an error. Within the declared length, a command's defined fields must be
/// present; bytes after them are ignored. Offsets count from the start of the L2CAP payload.
public struct LESignalingPDU {
    public var code: L2CAPSignalingCode
    /// Matches a response to its request.
    public var identifier: UInt8
    /// The command's data, as on the wire.
    public var data: UnsafeRawBufferPointer
    public var command: LESignalingCommand

    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> LESignalingPDU {
        var reader = ByteReader(bytes, layer: .l2cap)
        let code = L2CAPSignalingCode(rawValue: try reader.u8("signaling command code"))
        let identifier = try reader.u8("signaling command identifier")
        let length = Int(try reader.u16le("signaling command data length (2 bytes)"))
        guard length <= reader.remaining else {
            throw reader.error("\(length) bytes of signaling command data, not \(reader.remaining)")
        }
        let data = try reader.bytes(length, "signaling command data")
        try reader.requireEnd("no bytes after the command (an LE signaling frame carries one command)")
        var fields = ByteReader(UnsafeRawBufferPointer(rebasing: bytes[..<(4 + length)]), layer: .l2cap, offset: 4)
        let command = try LESignalingCommand(code: code, &fields)
        return LESignalingPDU(code: code, identifier: identifier, data: data, command: command)
    }
}

/// What an LE signaling command says. Core 6.0, Vol 3, Part A, §4.
public enum LESignalingCommand {
    /// §4.1.
    case commandReject(L2CAPCommandReject)
    /// §4.6. CIDs as seen by the side receiving the request.
    case disconnectionRequest(destinationCID: UInt16, sourceCID: UInt16)
    /// §4.7.
    case disconnectionResponse(destinationCID: UInt16, sourceCID: UInt16)
    /// Sent by the peripheral. Intervals in units of 1.25 ms, timeout in units of 10 ms.
    case connectionParameterUpdateRequest(
        intervalMin: UInt16, intervalMax: UInt16, peripheralLatency: UInt16, timeoutMultiplier: UInt16)
    /// 0x0000 accepted, 0x0001 rejected.
    case connectionParameterUpdateResponse(result: UInt16)
    /// CoreBluetooth: `openL2CAPChannel(_:)`.
    case leCreditBasedConnectionRequest(
        spsm: UInt16, sourceCID: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16)
    case leCreditBasedConnectionResponse(
        destinationCID: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16,
        result: L2CAPLECreditBasedConnectionResult)
    case flowControlCreditIndication(cid: UInt16, credits: UInt16)
    /// Any other code (the enhanced credit based commands 0x17-0x1A among them, which are named
    /// by ``L2CAPSignalingCode``), with its data kept raw.
    case unknown(code: L2CAPSignalingCode, data: UnsafeRawBufferPointer)

    init(code: L2CAPSignalingCode, _ r: inout ByteReader) throws(DecodeError) {
        switch code.rawValue {
        case 0x01:
            self = .commandReject(try L2CAPCommandReject(&r))
        case 0x06, 0x07:
            let destination = try r.u16le("Destination CID")
            let source = try r.u16le("Source CID")
            self =
                code.rawValue == 0x06
                ? .disconnectionRequest(destinationCID: destination, sourceCID: source)
                : .disconnectionResponse(destinationCID: destination, sourceCID: source)
        case 0x12:
            let min = try r.u16le("Interval Min")
            let max = try r.u16le("Interval Max")
            let latency = try r.u16le("Peripheral Latency")
            self = .connectionParameterUpdateRequest(
                intervalMin: min, intervalMax: max, peripheralLatency: latency,
                timeoutMultiplier: try r.u16le("Timeout Multiplier"))
        case 0x13:
            self = .connectionParameterUpdateResponse(result: try r.u16le("Result"))
        case 0x14:
            let spsm = try r.u16le("SPSM")
            let source = try r.u16le("Source CID")
            let mtu = try r.u16le("MTU")
            let mps = try r.u16le("MPS")
            self = .leCreditBasedConnectionRequest(
                spsm: spsm, sourceCID: source, mtu: mtu, mps: mps, initialCredits: try r.u16le("Initial Credits"))
        case 0x15:
            let destination = try r.u16le("Destination CID")
            let mtu = try r.u16le("MTU")
            let mps = try r.u16le("MPS")
            let credits = try r.u16le("Initial Credits")
            self = .leCreditBasedConnectionResponse(
                destinationCID: destination, mtu: mtu, mps: mps, initialCredits: credits,
                result: L2CAPLECreditBasedConnectionResult(rawValue: try r.u16le("Result")))
        case 0x16:
            let cid = try r.u16le("CID")
            self = .flowControlCreditIndication(cid: cid, credits: try r.u16le("Credits"))
        default:
            self = .unknown(code: code, data: r.rest())
        }
    }
}

/// Command Reject, with the data its reason defines. Core 6.0, Vol 3, Part A, §4.1.
public struct L2CAPCommandReject: Hashable, Sendable {
    public var reason: L2CAPCommandRejectReason
    /// Signaling MTU exceeded: the largest signaling packet the rejecting side accepts.
    public var actualMTU: UInt16?
    /// Invalid CID in request: the CIDs of the request, as the rejecting side sees them.
    public var localCID: UInt16?
    public var remoteCID: UInt16?

    init(_ reader: inout ByteReader) throws(DecodeError) {
        reason = L2CAPCommandRejectReason(rawValue: try reader.u16le("Reason"))
        switch reason.rawValue {
        case 0x0001:
            actualMTU = try reader.u16le("Actual signaling MTU")
        case 0x0002:
            localCID = try reader.u16le("Local Endpoint (CID)")
            remoteCID = try reader.u16le("Remote Endpoint (CID)")
        default:
            break
        }
    }
}
