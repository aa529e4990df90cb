import Wire

/// An HCI command packet (host to controller), summarized: the commands the connection
/// lifecycle follows decoded, every other command kept raw. ``HCICommandParameters`` decodes every
/// command bletrace knows, field by field.
///
/// Core 6.0, Vol 4, Part E, §5.4.1 (packet), §7 (commands).
public enum HCICommand {
    /// Core 6.0, Vol 4, Part E, §7.1.6.
    case disconnect(handle: UInt16, reason: HCIStatus)
    /// Core 6.0, Vol 4, Part E, §7.8.12.
    case leCreateConnection(LECreateConnection)
    /// Core 6.0, Vol 4, Part E, §7.8.66. The first initiating PHY's parameters; the length is
    /// checked against the PHY count (10 + 16 bytes a PHY). ``LEExtendedCreateConnection`` has
    /// every PHY's.
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
        guard length <= reader.remaining else {
            throw reader.error("\(length) bytes of command parameters, not \(reader.remaining)")
        }
        let parameters = try reader.bytes(length, "command parameters")
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
            return .leExtendedCreateConnection(try LEExtendedCreateConnection(&fields).summary)
        case .leCreateConnectionCancel:
            return .leCreateConnectionCancel
        default:
            return .unknown(opcode: opcode, parameters: parameters)
        }
    }
}

/// The parameters of LE Create Connection and LE Extended Create Connection that say whom the
/// host is trying to reach. Core 6.0, Vol 4, Part E, §7.8.12 and §7.8.66 (for the extended
/// command: the first initiating PHY's values; ``LEExtendedCreateConnection`` has every PHY's).
public struct LECreateConnection: Hashable, Sendable {
    /// 0: connect to `peerAddress`; 1: connect to any device on the Filter Accept List.
    public var initiatorFilterPolicy: UInt8
    public var ownAddressType: UInt8
    /// 0 public, 1 random, 2 public identity, 3 random static identity.
    public var peerAddressType: UInt8
    public var peerAddress: BluetoothAddress
    /// Scan interval and window while initiating, in units of 0.625 ms.
    public var scanInterval: UInt16
    public var scanWindow: UInt16
    /// Connection interval bounds, latency and supervision timeout of the first (or only) PHY.
    public var connectionIntervalMin: UInt16
    public var connectionIntervalMax: UInt16
    public var maxLatency: UInt16
    /// In units of 10 ms.
    public var supervisionTimeout: UInt16
    /// Connection event length bounds, in units of 0.625 ms.
    public var minCELength: UInt16
    public var maxCELength: UInt16

    /// True when the controller connects to whichever Filter Accept List device it sees first.
    public var usesFilterAcceptList: Bool { initiatorFilterPolicy & 0x01 != 0 }

    init(legacy reader: inout ByteReader) throws(DecodeError) {
        scanInterval = try reader.u16le("LE_Scan_Interval")
        scanWindow = try reader.u16le("LE_Scan_Window")
        initiatorFilterPolicy = try reader.u8("initiator filter policy")
        peerAddressType = try reader.u8("peer address type")
        peerAddress = try reader.deviceAddress("peer address (6 bytes)")
        ownAddressType = try reader.u8("own address type")
        connectionIntervalMin = try reader.u16le("connection interval min")
        connectionIntervalMax = try reader.u16le("connection interval max")
        maxLatency = try reader.u16le("max latency")
        supervisionTimeout = try reader.u16le("supervision timeout")
        minCELength = try reader.u16le("Min_CE_Length")
        maxCELength = try reader.u16le("Max_CE_Length")
    }

    init(
        initiatorFilterPolicy: UInt8, ownAddressType: UInt8, peerAddressType: UInt8,
        peerAddress: BluetoothAddress, first: LEInitiatingParameters
    ) {
        self.initiatorFilterPolicy = initiatorFilterPolicy
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        scanInterval = first.scanInterval
        scanWindow = first.scanWindow
        connectionIntervalMin = first.connectionIntervalMin
        connectionIntervalMax = first.connectionIntervalMax
        maxLatency = first.maxLatency
        supervisionTimeout = first.supervisionTimeout
        minCELength = first.minCELength
        maxCELength = first.maxCELength
    }
}
