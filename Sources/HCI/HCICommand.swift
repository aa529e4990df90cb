import Wire

/// An HCI command packet (host to controller), with the parameters of the commands bletrace
/// understands decoded and every other command kept raw.
///
/// Core 6.0, Vol 4, Part E, §5.4.1 (packet), §7 (commands).
public enum HCICommand {
    /// Core 6.0, Vol 4, Part E, §7.1.6.
    case disconnect(handle: UInt16, reason: HCIStatus)
    /// Core 6.0, Vol 4, Part E, §7.8.12.
    case leCreateConnection(LECreateConnection)
    /// Core 6.0, Vol 4, Part E, §7.8.66. Only the fields common to every initiating PHY.
    case leExtendedCreateConnection(LECreateConnection)
    /// Core 6.0, Vol 4, Part E, §7.8.13.
    case leCreateConnectionCancel
    /// Any other command: its opcode and raw parameters, losslessly.
    case unknown(opcode: HCIOpcode, parameters: UnsafeRawBufferPointer)

    public var opcode: HCIOpcode {
        switch self {
        case .disconnect: .disconnect
        case .leCreateConnection: .leCreateConnection
        case .leExtendedCreateConnection: .leExtendedCreateConnection
        case .leCreateConnectionCancel: .leCreateConnectionCancel
        case .unknown(let opcode, _): opcode
        }
    }

    /// Decodes a command packet without its H4 indicator byte.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> HCICommand {
        var reader = ByteReader(bytes, layer: .hci)
        let opcode = HCIOpcode(rawValue: try reader.u16le("command opcode (2 bytes)"))
        let length = Int(try reader.u8("parameter total length (1 byte)"))
        let parameters = try reader.bytes(length, "\(length) bytes of command parameters")
        // Fields are read within the declared length, with offsets counted from the packet start.
        var fields = ByteReader(
            UnsafeRawBufferPointer(rebasing: bytes[..<reader.offset]), layer: .hci, offset: 3)
        switch opcode {
        case .disconnect:
            let handle = try fields.u16le("connection handle") & 0x0FFF
            return .disconnect(handle: handle, reason: HCIStatus(rawValue: try fields.u8("reason")))
        case .leCreateConnection:
            return .leCreateConnection(try LECreateConnection(legacy: &fields))
        case .leExtendedCreateConnection:
            return .leExtendedCreateConnection(try LECreateConnection(extended: &fields))
        case .leCreateConnectionCancel:
            return .leCreateConnectionCancel
        default:
            return .unknown(opcode: opcode, parameters: parameters)
        }
    }
}

/// The parameters of LE Create Connection and LE Extended Create Connection that say whom the
/// host is trying to reach.
public struct LECreateConnection: Hashable, Sendable {
    /// 0: connect to `peerAddress`; 1: connect to any device on the Filter Accept List.
    public var initiatorFilterPolicy: UInt8
    public var ownAddressType: UInt8
    /// 0 public, 1 random, 2 public identity, 3 random static identity.
    public var peerAddressType: UInt8
    public var peerAddress: BluetoothAddress
    /// Connection interval bounds, latency and supervision timeout of the first (or only) PHY.
    public var connectionIntervalMin: UInt16
    public var connectionIntervalMax: UInt16
    public var maxLatency: UInt16
    /// In units of 10 ms.
    public var supervisionTimeout: UInt16

    /// True when the controller connects to whichever Filter Accept List device it sees first.
    public var usesFilterAcceptList: Bool { initiatorFilterPolicy & 0x01 != 0 }

    init(legacy reader: inout ByteReader) throws(DecodeError) {
        try reader.skip(4, "LE scan interval and window (4 bytes)")
        initiatorFilterPolicy = try reader.u8("initiator filter policy")
        peerAddressType = try reader.u8("peer address type")
        peerAddress = try reader.address("peer address (6 bytes)")
        ownAddressType = try reader.u8("own address type")
        connectionIntervalMin = try reader.u16le("connection interval min")
        connectionIntervalMax = try reader.u16le("connection interval max")
        maxLatency = try reader.u16le("max latency")
        supervisionTimeout = try reader.u16le("supervision timeout")
        try reader.skip(4, "minimum and maximum CE length (4 bytes)")
    }

    init(extended reader: inout ByteReader) throws(DecodeError) {
        initiatorFilterPolicy = try reader.u8("initiator filter policy")
        ownAddressType = try reader.u8("own address type")
        peerAddressType = try reader.u8("peer address type")
        peerAddress = try reader.address("peer address (6 bytes)")
        let phys = try reader.u8("initiating PHYs")
        guard phys & 0x07 != 0 else {
            throw DecodeError(
                layer: reader.layer, offset: reader.offset - 1,
                expected: "at least one initiating PHY bit")
        }
        try reader.skip(4, "scan interval and window of the first PHY (4 bytes)")
        connectionIntervalMin = try reader.u16le("connection interval min")
        connectionIntervalMax = try reader.u16le("connection interval max")
        maxLatency = try reader.u16le("max latency")
        supervisionTimeout = try reader.u16le("supervision timeout")
        // The minimum/maximum CE length and the other PHYs' parameters follow; not needed here.
    }
}
