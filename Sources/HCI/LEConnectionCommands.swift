import Wire

/// LE Extended Create Connection [v1], every field. Core 6.0, Vol 4, Part E, §7.8.66.
/// CoreBluetooth: `connect(_:options:)`.
public struct LEExtendedCreateConnection {
    /// 0: connect to `peerAddress`; 1: connect to any device on the Filter Accept List.
    public var initiatorFilterPolicy: UInt8
    public var ownAddressType: UInt8
    public var peerAddressType: UInt8
    public var peerAddress: BluetoothAddress
    /// Bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded; one entry of ``phys`` per bit set.
    public var initiatingPHYs: LEPHYSet
    /// Each initiating PHY's scan and connection parameters, lowest PHY bit first.
    public var phys: LEInitiatingPHYList

    public var usesFilterAcceptList: Bool { initiatorFilterPolicy & 0x01 != 0 }

    static let definedPHYs: UInt8 = 0b111

    /// Reads the fields, and checks the length is exactly 10 + 16 bytes per initiating PHY.
    init(_ reader: inout ByteReader) throws(DecodeError) {
        initiatorFilterPolicy = try reader.u8("Initiator_Filter_Policy")
        ownAddressType = try reader.u8("Own_Address_Type")
        peerAddressType = try reader.u8("Peer_Address_Type")
        peerAddress = try reader.deviceAddress("Peer_Address (6 bytes)")
        initiatingPHYs = LEPHYSet(rawValue: try reader.u8("Initiating_PHYs"))
        let count = entryCount(initiatingPHYs.rawValue, defined: Self.definedPHYs)
        guard count > 0 else {
            throw DecodeError(
                layer: reader.layer, offset: reader.offset - 1,
                expected: "at least one initiating PHY bit")
        }
        let start = reader.offset
        for _ in 0..<count { _ = try LEInitiatingParameters(&reader) }
        try reader.requireEnd("no parameters after the last initiating PHY's (10 + 16 bytes a PHY)")
        phys = LEInitiatingPHYList(entries: .since(start, in: reader, entryLength: 16), mask: initiatingPHYs)
    }

    /// The summary of the first PHY's parameters, as ``HCICommand/leExtendedCreateConnection(_:)``
    /// carries it.
    public var summary: LECreateConnection {
        let first = phys[0].parameters
        return LECreateConnection(
            initiatorFilterPolicy: initiatorFilterPolicy, ownAddressType: ownAddressType,
            peerAddressType: peerAddressType, peerAddress: peerAddress, first: first)
    }
}

/// One initiating PHY's parameters: the scan and connection parameters of LE Create Connection,
/// per PHY in LE Extended Create Connection. Core 6.0, Vol 4, Part E, §7.8.66.
public struct LEInitiatingParameters: Hashable, Sendable {
    /// In units of 0.625 ms.
    public var scanInterval: UInt16
    public var scanWindow: UInt16
    /// In units of 1.25 ms.
    public var connectionIntervalMin: UInt16
    public var connectionIntervalMax: UInt16
    public var maxLatency: UInt16
    /// In units of 10 ms.
    public var supervisionTimeout: UInt16
    /// In units of 0.625 ms.
    public var minCELength: UInt16
    public var maxCELength: UInt16

    init(_ reader: inout ByteReader) throws(DecodeError) {
        scanInterval = try reader.u16le("Scan_Interval[i]")
        scanWindow = try reader.u16le("Scan_Window[i]")
        connectionIntervalMin = try reader.u16le("Connection_Interval_Min[i]")
        connectionIntervalMax = try reader.u16le("Connection_Interval_Max[i]")
        maxLatency = try reader.u16le("Max_Latency[i]")
        supervisionTimeout = try reader.u16le("Supervision_Timeout[i]")
        minCELength = try reader.u16le("Min_CE_Length[i]")
        maxCELength = try reader.u16le("Max_CE_Length[i]")
    }
}

/// The per-PHY entries of LE Extended Create Connection: a lazy view, validated at decode.
public struct LEInitiatingPHYList: RandomAccessCollection {
    let entries: HCIEntryList
    let mask: LEPHYSet

    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }

    public subscript(position: Int) -> (phy: LEPHY, parameters: LEInitiatingParameters) {
        (
            mask.phy(ofEntry: position, defined: LEExtendedCreateConnection.definedPHYs),
            LEInitiatingParameters(entry: entries[position])
        )
    }
}

extension LEInitiatingParameters {
    /// From a 16-byte entry already read whole at decode.
    init(entry: UnsafeRawBufferPointer) {
        scanInterval = le16(entry, 0)
        scanWindow = le16(entry, 2)
        connectionIntervalMin = le16(entry, 4)
        connectionIntervalMax = le16(entry, 6)
        maxLatency = le16(entry, 8)
        supervisionTimeout = le16(entry, 10)
        minCELength = le16(entry, 12)
        maxCELength = le16(entry, 14)
    }
}

/// LE Connection Update. Core 6.0, Vol 4, Part E, §7.8.18.
public struct LEConnectionUpdate: Hashable, Sendable {
    public var handle: UInt16
    /// In units of 1.25 ms.
    public var connectionIntervalMin: UInt16
    public var connectionIntervalMax: UInt16
    public var maxLatency: UInt16
    /// In units of 10 ms.
    public var supervisionTimeout: UInt16
    /// In units of 0.625 ms.
    public var minCELength: UInt16
    public var maxCELength: UInt16

    init(_ reader: inout ByteReader) throws(DecodeError) {
        handle = try reader.handle("Connection_Handle")
        connectionIntervalMin = try reader.u16le("Connection_Interval_Min")
        connectionIntervalMax = try reader.u16le("Connection_Interval_Max")
        maxLatency = try reader.u16le("Max_Latency")
        supervisionTimeout = try reader.u16le("Supervision_Timeout")
        minCELength = try reader.u16le("Min_CE_Length")
        maxCELength = try reader.u16le("Max_CE_Length")
    }
}

/// LE Set PHY. Core 6.0, Vol 4, Part E, §7.8.49.
public struct LESetPHY: Hashable, Sendable {
    public var handle: UInt16
    /// Bit 0: no preference among transmitter PHYs; bit 1: none among receiver PHYs.
    public var allPHYs: UInt8
    public var txPHYs: LEPHYSet
    public var rxPHYs: LEPHYSet
    /// 0 no preferred coding on LE Coded, 1 prefers S=2, 2 prefers S=8.
    public var phyOptions: UInt16

    init(_ reader: inout ByteReader) throws(DecodeError) {
        handle = try reader.handle("Connection_Handle")
        allPHYs = try reader.u8("All_PHYs")
        txPHYs = LEPHYSet(rawValue: try reader.u8("TX_PHYs"))
        rxPHYs = LEPHYSet(rawValue: try reader.u8("RX_PHYs"))
        phyOptions = try reader.u16le("PHY_Options")
    }
}

/// LE Enable Encryption (LE Start Encryption). Core 6.0, Vol 4, Part E, §7.8.24.
public struct LEStartEncryption: Hashable, Sendable {
    public var handle: UInt16
    /// Rand: 0 for LE Secure Connections keys.
    public var randomNumber: UInt64
    /// EDIV: 0 for LE Secure Connections keys.
    public var encryptedDiversifier: UInt16
    /// The key, read least significant byte first.
    public var longTermKey: UInt128

    init(_ reader: inout ByteReader) throws(DecodeError) {
        handle = try reader.handle("Connection_Handle")
        randomNumber = try reader.u64le("Random_Number (8 bytes)")
        encryptedDiversifier = try reader.u16le("Encrypted_Diversifier")
        longTermKey = try reader.u128le("Long_Term_Key (16 bytes)")
    }
}

/// LE Add Device To Resolving List. Core 6.0, Vol 4, Part E, §7.8.38.
public struct LEResolvingListEntry: Hashable, Sendable {
    /// 0x00 public identity address, 0x01 random (static) identity address.
    public var peerIdentityAddressType: UInt8
    public var peerIdentityAddress: BluetoothAddress
    /// Identity resolving keys, read least significant byte first.
    public var peerIRK: UInt128
    public var localIRK: UInt128

    init(_ reader: inout ByteReader) throws(DecodeError) {
        peerIdentityAddressType = try reader.u8("Peer_Identity_Address_Type")
        peerIdentityAddress = try reader.deviceAddress("Peer_Identity_Address (6 bytes)")
        peerIRK = try reader.u128le("Peer_IRK (16 bytes)")
        localIRK = try reader.u128le("Local_IRK (16 bytes)")
    }
}
