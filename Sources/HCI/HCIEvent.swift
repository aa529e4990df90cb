import Wire

/// An HCI event packet (controller to host), summarized: the events the connection lifecycle
/// follows decoded, every other event kept raw. ``HCIEventParameters`` decodes every event
/// bletrace knows, field by field; ``HCIReturnParameters/decode(opcode:_:offset:)`` decodes the
/// return parameters of ``commandComplete(numPackets:opcode:returnParameters:)``.
///
/// Core 6.0, Vol 4, Part E, §5.4.4 (packet), §7.7 (events).
public enum HCIEvent {
    /// Core 6.0, Vol 4, Part E, §7.7.3. A BR/EDR link (ACL or SCO) came up or failed.
    case connectionComplete(status: HCIStatus, handle: UInt16, address: BluetoothAddress, linkType: UInt8)
    /// Core 6.0, Vol 4, Part E, §7.7.5.
    case disconnectionComplete(status: HCIStatus, handle: UInt16, reason: HCIStatus)
    /// Core 6.0, Vol 4, Part E, §7.7.14. `returnParameters` begin with the status for almost
    /// every command; see ``commandCompleteStatus``.
    case commandComplete(numPackets: UInt8, opcode: HCIOpcode, returnParameters: UnsafeRawBufferPointer)
    /// Core 6.0, Vol 4, Part E, §7.7.15.
    case commandStatus(status: HCIStatus, numPackets: UInt8, opcode: HCIOpcode)
    /// Core 6.0, Vol 4, Part E, §7.7.65.
    case le(LEMetaEvent)
    /// Any other event: its code and raw parameters, losslessly.
    case unknown(code: HCIEventCode, parameters: UnsafeRawBufferPointer)

    public var code: HCIEventCode {
        switch self {
        case .connectionComplete: .connectionComplete
        case .disconnectionComplete: .disconnectionComplete
        case .commandComplete: .commandComplete
        case .commandStatus: .commandStatus
        case .le: .leMeta
        case .unknown(let code, _): code
        }
    }

    /// The status of the event, where it has one (for Command Complete: the first return
    /// parameter, which is the status for every command bletrace decodes).
    public var status: HCIStatus? {
        switch self {
        case .disconnectionComplete(let status, _, _), .commandStatus(let status, _, _),
            .connectionComplete(let status, _, _, _):
            status
        case .commandComplete(_, let opcode, let parameters):
            opcode.rawValue != 0 && !parameters.isEmpty ? HCIStatus(rawValue: parameters[0]) : nil
        case .le(let meta): meta.status
        case .unknown: nil
        }
    }

    /// Decodes an event packet without its H4 indicator byte.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> HCIEvent {
        var reader = ByteReader(bytes, layer: .hci)
        let code = HCIEventCode(rawValue: try reader.u8("event code (1 byte)"))
        let length = Int(try reader.u8("parameter total length (1 byte)"))
        // The message is built only on failure: no allocation per packet.
        guard length <= reader.remaining else {
            throw reader.error("\(length) bytes of event parameters, not \(reader.remaining)")
        }
        let parameters = try reader.bytes(length, "event parameters")
        // Fields are read within the declared length, with offsets counted from the packet start.
        var fields = ByteReader(
            UnsafeRawBufferPointer(rebasing: bytes[..<reader.offset]), layer: .hci, offset: 2)
        switch code {
        case .connectionComplete:
            let status = HCIStatus(rawValue: try fields.u8("status"))
            let handle = try fields.u16le("connection handle") & 0x0FFF
            let address = try fields.deviceAddress("BD_ADDR (6 bytes)")
            let linkType = try fields.u8("link type")
            _ = try fields.u8("encryption enabled")
            return .connectionComplete(status: status, handle: handle, address: address, linkType: linkType)
        case .disconnectionComplete:
            let status = HCIStatus(rawValue: try fields.u8("status"))
            let handle = try fields.u16le("connection handle") & 0x0FFF
            let reason = HCIStatus(rawValue: try fields.u8("reason"))
            return .disconnectionComplete(status: status, handle: handle, reason: reason)
        case .commandComplete:
            let numPackets = try fields.u8("number of HCI command packets")
            let opcode = HCIOpcode(rawValue: try fields.u16le("command opcode"))
            return .commandComplete(numPackets: numPackets, opcode: opcode, returnParameters: fields.rest())
        case .commandStatus:
            let status = HCIStatus(rawValue: try fields.u8("status"))
            let numPackets = try fields.u8("number of HCI command packets")
            let opcode = HCIOpcode(rawValue: try fields.u16le("command opcode"))
            return .commandStatus(status: status, numPackets: numPackets, opcode: opcode)
        case .leMeta:
            return .le(try LEMetaEvent.decode(&fields))
        default:
            return .unknown(code: code, parameters: parameters)
        }
    }
}

/// An LE Meta event. Core 6.0, Vol 4, Part E, §7.7.65.
public enum LEMetaEvent {
    /// LE Connection Complete (§7.7.65.1) and LE Enhanced Connection Complete v1/v2 (§7.7.65.10).
    case connectionComplete(LEConnectionComplete)
    /// Any other subevent, kept raw (without the subevent code).
    case unknown(subevent: LESubeventCode, parameters: UnsafeRawBufferPointer)

    public var subevent: LESubeventCode {
        switch self {
        case .connectionComplete(let complete): complete.subevent
        case .unknown(let subevent, _): subevent
        }
    }

    public var status: HCIStatus? {
        switch self {
        case .connectionComplete(let complete): complete.status
        case .unknown: nil
        }
    }

    static func decode(_ reader: inout ByteReader) throws(DecodeError) -> LEMetaEvent {
        let subevent = LESubeventCode(rawValue: try reader.u8("LE subevent code"))
        switch subevent {
        case .connectionComplete, .enhancedConnectionComplete, .enhancedConnectionCompleteV2:
            return .connectionComplete(try LEConnectionComplete(subevent: subevent, reader: &reader))
        default:
            return .unknown(subevent: subevent, parameters: reader.rest())
        }
    }
}

/// The outcome of an LE connection attempt, or a connection a peer made to us.
/// Core 6.0, Vol 4, Part E, §7.7.65.1 and §7.7.65.10.
public struct LEConnectionComplete: Hashable, Sendable {
    public var subevent: LESubeventCode
    public var status: HCIStatus
    public var handle: UInt16
    /// 0: this device is the central; 1: the peripheral.
    public var role: UInt8
    public var peerAddressType: UInt8
    public var peerAddress: BluetoothAddress
    /// Enhanced only; nil for the legacy event.
    public var localResolvablePrivateAddress: BluetoothAddress?
    public var peerResolvablePrivateAddress: BluetoothAddress?
    /// In units of 1.25 ms.
    public var connectionInterval: UInt16
    public var peripheralLatency: UInt16
    /// In units of 10 ms.
    public var supervisionTimeout: UInt16
    /// 0x00 500 ppm, 0x01 250, 0x02 150, 0x03 100, 0x04 75, 0x05 50, 0x06 30, 0x07 20 ppm.
    public var centralClockAccuracy: UInt8
    /// Enhanced v2 only (nil otherwise): the advertising set that became this connection (0xFF:
    /// none), and the periodic advertising train it came from (0x0FFF: none).
    public var advertisingHandle: UInt8?
    public var syncHandle: UInt16?

    init(subevent: LESubeventCode, reader: inout ByteReader) throws(DecodeError) {
        self.subevent = subevent
        status = HCIStatus(rawValue: try reader.u8("status"))
        handle = try reader.u16le("connection handle") & 0x0FFF
        role = try reader.u8("role")
        peerAddressType = try reader.u8("peer address type")
        peerAddress = try reader.deviceAddress("peer address (6 bytes)")
        if subevent != .connectionComplete {
            localResolvablePrivateAddress = try reader.deviceAddress("local resolvable private address")
            peerResolvablePrivateAddress = try reader.deviceAddress("peer resolvable private address")
        }
        connectionInterval = try reader.u16le("connection interval")
        peripheralLatency = try reader.u16le("peripheral latency")
        supervisionTimeout = try reader.u16le("supervision timeout")
        centralClockAccuracy = try reader.u8("central clock accuracy")
        if subevent == .enhancedConnectionCompleteV2 {
            advertisingHandle = try reader.u8("advertising handle")
            syncHandle = try reader.u16le("sync handle")
        }
    }
}
