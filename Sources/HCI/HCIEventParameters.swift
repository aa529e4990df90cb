import Wire

/// An HCI event with every field of its parameters decoded, for the events a Bluetooth LE trace
/// is made of and the BR/EDR link events phones' logs show beside them; any other event (vendor
/// events, 0xFF, included) keeps its code and raw parameters.
///
/// Core 6.0, Vol 4, Part E, §5.4.4 (packet), §7.7 (events). Decoded from borrowed bytes with no
/// allocation: lists are lazy views, checked once at decode so that iterating never fails. A short
/// packet fails at the first missing field, with its offset from the packet's start. Bytes after
/// a fixed-size event's fields are ignored; an event whose length follows from a count must have
/// exactly that length.
///
/// ``HCIEvent`` is the summary that the connection lifecycle switches over; this is the whole.
/// (The summary keeps the BR/EDR-only events raw: the lifecycle reads the few bytes it needs of
/// them itself. This decodes them for `bletrace decode`.)
public enum HCIEventParameters {
    /// §7.7.1. The inquiry (BR/EDR device discovery) ended.
    case inquiryComplete(status: HCIStatus)
    /// §7.7.3. A BR/EDR link (ACL or SCO) came up or failed.
    case connectionComplete(HCIConnectionComplete)
    /// §7.7.4. A BR/EDR device asks to connect.
    case connectionRequest(HCIConnectionRequest)
    /// §7.7.5. CoreBluetooth: `centralManager(_:didDisconnectPeripheral:error:)`.
    case disconnectionComplete(status: HCIStatus, handle: UInt16, reason: HCIStatus)
    /// §7.7.6. BR/EDR authentication (pairing or a stored link key) finished.
    case authenticationComplete(status: HCIStatus, handle: UInt16)
    /// §7.7.7. A BR/EDR device's name, as its Remote Name Request asked.
    case remoteNameRequestComplete(HCIRemoteNameRequestComplete)
    /// §7.7.8, [v1] (event 0x08) and [v2] (event 0x59, with the key size).
    case encryptionChange(HCIEncryptionChange)
    /// §7.7.11. The peer's LMP features page 0 bit mask.
    case readRemoteSupportedFeaturesComplete(status: HCIStatus, handle: UInt16, lmpFeatures: UInt64)
    /// §7.7.14.
    case commandComplete(HCICommandComplete)
    /// §7.7.15.
    case commandStatus(status: HCIStatus, numPackets: UInt8, opcode: HCIOpcode)
    /// §7.7.16. A vendor-specific hardware code.
    case hardwareError(hardwareCode: UInt8)
    /// §7.7.19. How many ACL packets the controller has finished with, per handle.
    case numberOfCompletedPackets(HCICompletedPacketsList)
    /// §7.7.20. A BR/EDR link went to active, hold or sniff mode.
    case modeChange(HCIModeChange)
    /// §7.7.23. The controller asks the host for the link key of a BR/EDR device.
    case linkKeyRequest(address: BluetoothAddress)
    /// §7.7.26. 0x00 synchronous (SCO), 0x01 ACL.
    case dataBufferOverflow(linkType: UInt8)
    /// §7.7.27. The most slots a BR/EDR baseband packet may now take on the link (1, 3 or 5).
    case maxSlotsChange(handle: UInt16, lmpMaxSlots: UInt8)
    /// §7.7.28. The peer's clock offset (bits 16-2 of the difference of the clocks).
    case readClockOffsetComplete(status: HCIStatus, handle: UInt16, clockOffset: UInt16)
    /// §7.7.29. The BR/EDR packet types the link may now use (a bit mask, as in Create Connection).
    case connectionPacketTypeChanged(status: HCIStatus, handle: UInt16, packetType: UInt16)
    /// §7.7.34. A page of the peer's extended LMP features.
    case readRemoteExtendedFeaturesComplete(HCIRemoteExtendedFeatures)
    /// §7.7.37. Sniff subrating on a BR/EDR link, and its latencies and timeouts.
    case sniffSubrating(HCISniffSubrating)
    /// §7.7.39.
    case encryptionKeyRefreshComplete(status: HCIStatus, handle: UInt16)
    /// Core 6.0, Vol 4, Part E, §7.7.12. The peer's link-layer version, company and subversion.
    case readRemoteVersionInformationComplete(
        status: HCIStatus, handle: UInt16, version: UInt8, companyIdentifier: UInt16, subversion: UInt16)
    /// §7.7.65.
    case le(LEMetaEventParameters)
    /// Any other event: its code and raw parameters, losslessly.
    case unknown(code: HCIEventCode, parameters: UnsafeRawBufferPointer)

    public var code: HCIEventCode {
        switch self {
        case .inquiryComplete: HCIEventCode(rawValue: 0x01)
        case .connectionComplete: .connectionComplete
        case .connectionRequest: HCIEventCode(rawValue: 0x04)
        case .disconnectionComplete: .disconnectionComplete
        case .authenticationComplete: HCIEventCode(rawValue: 0x06)
        case .remoteNameRequestComplete: HCIEventCode(rawValue: 0x07)
        case .encryptionChange(let change): change.keySize == nil ? .encryptionChange : .encryptionChangeV2
        case .readRemoteSupportedFeaturesComplete: HCIEventCode(rawValue: 0x0B)
        case .commandComplete: .commandComplete
        case .commandStatus: .commandStatus
        case .hardwareError: .hardwareError
        case .numberOfCompletedPackets: .numberOfCompletedPackets
        case .modeChange: HCIEventCode(rawValue: 0x14)
        case .linkKeyRequest: HCIEventCode(rawValue: 0x17)
        case .dataBufferOverflow: .dataBufferOverflow
        case .maxSlotsChange: HCIEventCode(rawValue: 0x1B)
        case .readClockOffsetComplete: HCIEventCode(rawValue: 0x1C)
        case .connectionPacketTypeChanged: HCIEventCode(rawValue: 0x1D)
        case .readRemoteExtendedFeaturesComplete: HCIEventCode(rawValue: 0x23)
        case .sniffSubrating: HCIEventCode(rawValue: 0x2E)
        case .encryptionKeyRefreshComplete: .encryptionKeyRefreshComplete
        case .readRemoteVersionInformationComplete: HCIEventCode(rawValue: 0x0C)
        case .le: .leMeta
        case .unknown(let code, _): code
        }
    }

    /// The event's Status parameter (for Command Complete: the return parameters' status), where
    /// it has one.
    public var status: HCIStatus? {
        switch self {
        case .connectionComplete(let complete): complete.status
        case .disconnectionComplete(let status, _, _), .commandStatus(let status, _, _),
            .encryptionKeyRefreshComplete(let status, _), .readRemoteVersionInformationComplete(let status, _, _, _, _),
            .inquiryComplete(let status), .authenticationComplete(let status, _),
            .readRemoteSupportedFeaturesComplete(let status, _, _), .readClockOffsetComplete(let status, _, _),
            .connectionPacketTypeChanged(let status, _, _):
            status
        case .remoteNameRequestComplete(let complete): complete.status
        case .modeChange(let change): change.status
        case .readRemoteExtendedFeaturesComplete(let complete): complete.status
        case .sniffSubrating(let subrating): subrating.status
        case .encryptionChange(let change): change.status
        case .commandComplete(let complete): complete.returnParameters.status
        case .le(let meta): meta.status
        case .hardwareError, .numberOfCompletedPackets, .dataBufferOverflow, .connectionRequest, .linkKeyRequest,
            .maxSlotsChange, .unknown:
            nil
        }
    }

    /// The connection handle the event is about, where it names one.
    public var handle: UInt16? {
        switch self {
        case .connectionComplete(let complete): complete.handle
        case .disconnectionComplete(_, let handle, _), .encryptionKeyRefreshComplete(_, let handle),
            .readRemoteVersionInformationComplete(_, let handle, _, _, _), .authenticationComplete(_, let handle),
            .readRemoteSupportedFeaturesComplete(_, let handle, _), .maxSlotsChange(let handle, _),
            .readClockOffsetComplete(_, let handle, _), .connectionPacketTypeChanged(_, let handle, _):
            handle
        case .modeChange(let change): change.handle
        case .readRemoteExtendedFeaturesComplete(let complete): complete.handle
        case .sniffSubrating(let subrating): subrating.handle
        // The first entry's, as Wireshark's bthci_evt.connection_handle.
        case .numberOfCompletedPackets(let list): list.first?.handle
        case .encryptionChange(let change): change.handle
        case .commandComplete(let complete):
            switch complete.returnParameters {
            case .readRSSI(_, let handle, _), .connectionHandle(_, let handle),
                .readEncryptionKeySize(_, let handle, _):
                handle
            default: nil
            }
        case .le(let meta): meta.handle
        default: nil
        }
    }

    /// The BR/EDR device address (BD_ADDR) the event is about, where it names one: Connection
    /// Complete, Connection Request, Remote Name Request Complete, Link Key Request. (Not an LE
    /// peer's address: LE connection completions have theirs, with its type.)
    public var address: BluetoothAddress? {
        switch self {
        case .connectionComplete(let complete): complete.address
        case .connectionRequest(let request): request.address
        case .remoteNameRequestComplete(let complete): complete.address
        case .linkKeyRequest(let address): address
        default: nil
        }
    }

    /// Decodes an event packet without its H4 indicator byte.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> HCIEventParameters {
        var reader = ByteReader(bytes, layer: .hci)
        let code = HCIEventCode(rawValue: try reader.u8("event code (1 byte)"))
        let length = Int(try reader.u8("parameter total length (1 byte)"))
        guard length <= reader.remaining else {
            throw reader.error("\(length) bytes of event parameters, not \(reader.remaining)")
        }
        // Fields are read within the declared length, with offsets counted from the packet start.
        var r = ByteReader(UnsafeRawBufferPointer(rebasing: bytes[..<(2 + length)]), layer: .hci, offset: 2)
        switch code.rawValue {
        case 0x01:
            return .inquiryComplete(status: HCIStatus(rawValue: try r.u8("Status")))
        case 0x03:
            return .connectionComplete(try HCIConnectionComplete(&r))
        case 0x04:
            return .connectionRequest(try HCIConnectionRequest(&r))
        case 0x05:
            let status = HCIStatus(rawValue: try r.u8("Status"))
            let handle = try r.handle("Connection_Handle")
            return .disconnectionComplete(
                status: status, handle: handle, reason: HCIStatus(rawValue: try r.u8("Reason")))
        case 0x06:
            let status = HCIStatus(rawValue: try r.u8("Status"))
            return .authenticationComplete(status: status, handle: try r.handle("Connection_Handle"))
        case 0x07:
            return .remoteNameRequestComplete(try HCIRemoteNameRequestComplete(&r))
        case 0x08, 0x59:
            return .encryptionChange(try HCIEncryptionChange(v2: code.rawValue == 0x59, &r))
        case 0x0B:
            let status = HCIStatus(rawValue: try r.u8("Status"))
            let handle = try r.handle("Connection_Handle")
            return .readRemoteSupportedFeaturesComplete(
                status: status, handle: handle, lmpFeatures: try r.u64le("LMP_Features (8 bytes)"))
        case 0x0C:
            let status = HCIStatus(rawValue: try r.u8("Status"))
            let handle = try r.handle("Connection_Handle")
            return .readRemoteVersionInformationComplete(
                status: status, handle: handle, version: try r.u8("Version"),
                companyIdentifier: try r.u16le("Company_Identifier"), subversion: try r.u16le("Subversion"))
        case 0x0E:
            return .commandComplete(try HCICommandComplete(&r))
        case 0x0F:
            let status = HCIStatus(rawValue: try r.u8("Status"))
            let numPackets = try r.u8("Num_HCI_Command_Packets")
            return .commandStatus(
                status: status, numPackets: numPackets, opcode: HCIOpcode(rawValue: try r.u16le("Command_Opcode")))
        case 0x10:
            return .hardwareError(hardwareCode: try r.u8("Hardware_Code"))
        case 0x13:
            return .numberOfCompletedPackets(try HCICompletedPacketsList(&r))
        case 0x14:
            return .modeChange(try HCIModeChange(&r))
        case 0x17:
            return .linkKeyRequest(address: try r.deviceAddress("BD_ADDR (6 bytes)"))
        case 0x1A:
            return .dataBufferOverflow(linkType: try r.u8("Link_Type"))
        case 0x1B:
            let handle = try r.handle("Connection_Handle")
            return .maxSlotsChange(handle: handle, lmpMaxSlots: try r.u8("LMP_Max_Slots"))
        case 0x1C:
            let status = HCIStatus(rawValue: try r.u8("Status"))
            let handle = try r.handle("Connection_Handle")
            return .readClockOffsetComplete(status: status, handle: handle, clockOffset: try r.u16le("Clock_Offset"))
        case 0x1D:
            let status = HCIStatus(rawValue: try r.u8("Status"))
            let handle = try r.handle("Connection_Handle")
            return .connectionPacketTypeChanged(status: status, handle: handle, packetType: try r.u16le("Packet_Type"))
        case 0x23:
            return .readRemoteExtendedFeaturesComplete(try HCIRemoteExtendedFeatures(&r))
        case 0x2E:
            return .sniffSubrating(try HCISniffSubrating(&r))
        case 0x30:
            let status = HCIStatus(rawValue: try r.u8("Status"))
            return .encryptionKeyRefreshComplete(status: status, handle: try r.handle("Connection_Handle"))
        case 0x3E:
            return .le(try LEMetaEventParameters.decode(&r))
        default:
            return .unknown(code: code, parameters: r.rest())
        }
    }
}

/// Connection Complete (BR/EDR). Core 6.0, Vol 4, Part E, §7.7.3.
public struct HCIConnectionComplete: Hashable, Sendable {
    public var status: HCIStatus
    public var handle: UInt16
    public var address: BluetoothAddress
    /// 0x00 SCO, 0x01 ACL.
    public var linkType: UInt8
    /// 0x00 off, 0x01 on.
    public var encryptionEnabled: UInt8

    init(_ reader: inout ByteReader) throws(DecodeError) {
        status = HCIStatus(rawValue: try reader.u8("Status"))
        handle = try reader.handle("Connection_Handle")
        address = try reader.deviceAddress("BD_ADDR (6 bytes)")
        linkType = try reader.u8("Link_Type")
        encryptionEnabled = try reader.u8("Encryption_Enabled")
    }
}

/// Encryption Change [v1] and [v2]. Core 6.0, Vol 4, Part E, §7.7.8.
/// CoreBluetooth: a failure here fails the GATT request that needed encryption.
public struct HCIEncryptionChange: Hashable, Sendable {
    public var status: HCIStatus
    public var handle: UInt16
    /// 0x00 off; on LE, 0x01 on with AES-CCM.
    public var encryptionEnabled: UInt8
    /// [v2] only: the key size in octets.
    public var keySize: UInt8?

    public var isEncrypted: Bool { encryptionEnabled != 0 }

    init(v2: Bool, _ reader: inout ByteReader) throws(DecodeError) {
        status = HCIStatus(rawValue: try reader.u8("Status"))
        handle = try reader.handle("Connection_Handle")
        encryptionEnabled = try reader.u8("Encryption_Enabled")
        if v2 { keySize = try reader.u8("Encryption_Key_Size") } else { keySize = nil }
    }
}

/// Command Complete, with its return parameters decoded for the command. Core 6.0, Vol 4, Part E,
/// §7.7.14.
public struct HCICommandComplete {
    /// How many commands the host may now send.
    public var numPackets: UInt8
    /// 0x0000 when the event only returns credits.
    public var opcode: HCIOpcode
    public var returnParameters: HCIReturnParameters
    /// The return parameters as they were on the wire.
    public var rawReturnParameters: UnsafeRawBufferPointer

    init(_ reader: inout ByteReader) throws(DecodeError) {
        numPackets = try reader.u8("Num_HCI_Command_Packets")
        opcode = HCIOpcode(rawValue: try reader.u16le("Command_Opcode"))
        rawReturnParameters = UnsafeRawBufferPointer(rebasing: reader.buffer[reader.offset...])
        returnParameters = try HCIReturnParameters.decode(opcode: opcode, &reader)
    }
}

/// Number Of Completed Packets: (handle, count) pairs, a lazy view checked at decode.
/// Core 6.0, Vol 4, Part E, §7.7.19.
public struct HCICompletedPacketsList: RandomAccessCollection {
    let entries: HCIEntryList

    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }

    public subscript(position: Int) -> (handle: UInt16, completedPackets: UInt16) {
        let entry = entries[position]
        return (le16(entry, 0) & 0x0FFF, le16(entry, 2))
    }

    init(_ reader: inout ByteReader) throws(DecodeError) {
        let count = Int(try reader.u8("Num_Handles"))
        let start = reader.offset
        for _ in 0..<count {
            _ = try reader.u16le("Connection_Handle[i]")
            _ = try reader.u16le("Num_Completed_Packets[i]")
        }
        try reader.requireEnd("no parameters after the last handle's (1 + 4 bytes a handle)")
        entries = .since(start, in: reader, entryLength: 4)
    }
}
