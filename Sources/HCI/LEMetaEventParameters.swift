import Wire

/// An LE Meta event with every field of its subevent decoded. Core 6.0, Vol 4, Part E, §7.7.65.
///
/// ``LEMetaEvent`` is the summary the connection lifecycle switches over; this is the whole.
public enum LEMetaEventParameters {
    /// LE Connection Complete (§7.7.65.1) and LE Enhanced Connection Complete [v1]/[v2]
    /// (§7.7.65.10). CoreBluetooth: `centralManager(_:didConnect:)` or `didFailToConnect`.
    case connectionComplete(LEConnectionComplete)
    /// §7.7.65.2. CoreBluetooth: `centralManager(_:didDiscover:advertisementData:rssi:)`.
    case advertisingReport(LEAdvertisingReportList)
    /// §7.7.65.3.
    case connectionUpdateComplete(LEConnectionUpdateComplete)
    /// §7.7.65.4. The peer's LE features page 0 bit mask.
    case readRemoteFeaturesComplete(status: HCIStatus, handle: UInt16, features: UInt64)
    /// §7.7.65.5. The peer (central) asks to encrypt with the key identified by Rand and EDIV.
    case longTermKeyRequest(handle: UInt16, randomNumber: UInt64, encryptedDiversifier: UInt16)
    /// §7.7.65.6.
    case remoteConnectionParameterRequest(LERemoteConnectionParameterRequest)
    /// §7.7.65.7.
    case dataLengthChange(LEDataLengthChange)
    /// §7.7.65.12.
    case phyUpdateComplete(status: HCIStatus, handle: UInt16, txPHY: LEPHY, rxPHY: LEPHY)
    /// §7.7.65.13. CoreBluetooth: `centralManager(_:didDiscover:advertisementData:rssi:)`.
    case extendedAdvertisingReport(LEExtendedAdvertisingReportList)
    /// §7.7.65.18. An advertising set stopped: its duration or event count ran out, or it became
    /// a connection (status 0x00, with the connection's handle).
    case advertisingSetTerminated(LEAdvertisingSetTerminated)
    /// §7.7.65.20. 0x00: algorithm #1; 0x01: algorithm #2.
    case channelSelectionAlgorithm(handle: UInt16, algorithm: UInt8)
    /// Any other subevent, kept raw (without the subevent code).
    case unknown(subevent: LESubeventCode, parameters: UnsafeRawBufferPointer)

    public var subevent: LESubeventCode {
        switch self {
        case .connectionComplete(let complete): complete.subevent
        case .advertisingReport: .advertisingReport
        case .connectionUpdateComplete: .connectionUpdateComplete
        case .readRemoteFeaturesComplete: .readRemoteFeaturesComplete
        case .longTermKeyRequest: .longTermKeyRequest
        case .remoteConnectionParameterRequest: .remoteConnectionParameterRequest
        case .dataLengthChange: .dataLengthChange
        case .phyUpdateComplete: .phyUpdateComplete
        case .extendedAdvertisingReport: .extendedAdvertisingReport
        case .advertisingSetTerminated: LESubeventCode(rawValue: 0x12)
        case .channelSelectionAlgorithm: .channelSelectionAlgorithm
        case .unknown(let subevent, _): subevent
        }
    }

    public var status: HCIStatus? {
        switch self {
        case .connectionComplete(let complete): complete.status
        case .connectionUpdateComplete(let complete): complete.status
        case .readRemoteFeaturesComplete(let status, _, _), .phyUpdateComplete(let status, _, _, _): status
        case .advertisingSetTerminated(let terminated): terminated.status
        default: nil
        }
    }

    /// The connection handle the subevent is about, where it names one.
    public var handle: UInt16? {
        switch self {
        case .connectionComplete(let complete): complete.handle
        case .connectionUpdateComplete(let complete): complete.handle
        case .readRemoteFeaturesComplete(_, let handle, _), .longTermKeyRequest(let handle, _, _),
            .phyUpdateComplete(_, let handle, _, _), .channelSelectionAlgorithm(let handle, _):
            handle
        case .remoteConnectionParameterRequest(let request): request.handle
        case .dataLengthChange(let change): change.handle
        // Also when the set ended without a connection: the field is there, not valid (as
        // Wireshark's bthci_evt.connection_handle).
        case .advertisingSetTerminated(let terminated): terminated.handle
        case .advertisingReport, .extendedAdvertisingReport, .unknown: nil
        }
    }

    /// Decodes the subevent at `reader` (positioned on the subevent code).
    static func decode(_ r: inout ByteReader) throws(DecodeError) -> LEMetaEventParameters {
        let subevent = LESubeventCode(rawValue: try r.u8("Subevent_Code"))
        switch subevent.rawValue {
        case 0x01, 0x0A, 0x29:
            return .connectionComplete(try LEConnectionComplete(subevent: subevent, reader: &r))
        case 0x02:
            return .advertisingReport(try LEAdvertisingReportList(&r))
        case 0x03:
            return .connectionUpdateComplete(try LEConnectionUpdateComplete(&r))
        case 0x04:
            let status = HCIStatus(rawValue: try r.u8("Status"))
            let handle = try r.handle("Connection_Handle")
            return .readRemoteFeaturesComplete(
                status: status, handle: handle, features: try r.u64le("LE_Features (8 bytes)"))
        case 0x05:
            let handle = try r.handle("Connection_Handle")
            let random = try r.u64le("Random_Number (8 bytes)")
            return .longTermKeyRequest(
                handle: handle, randomNumber: random, encryptedDiversifier: try r.u16le("Encrypted_Diversifier"))
        case 0x06:
            return .remoteConnectionParameterRequest(try LERemoteConnectionParameterRequest(&r))
        case 0x07:
            return .dataLengthChange(try LEDataLengthChange(&r))
        case 0x0C:
            let status = HCIStatus(rawValue: try r.u8("Status"))
            let handle = try r.handle("Connection_Handle")
            let tx = LEPHY(rawValue: try r.u8("TX_PHY"))
            return .phyUpdateComplete(
                status: status, handle: handle, txPHY: tx, rxPHY: LEPHY(rawValue: try r.u8("RX_PHY")))
        case 0x0D:
            return .extendedAdvertisingReport(try LEExtendedAdvertisingReportList(&r))
        case 0x12:
            return .advertisingSetTerminated(try LEAdvertisingSetTerminated(&r))
        case 0x14:
            let handle = try r.handle("Connection_Handle")
            return .channelSelectionAlgorithm(handle: handle, algorithm: try r.u8("Channel_Selection_Algorithm"))
        default:
            return .unknown(subevent: subevent, parameters: r.rest())
        }
    }
}

/// LE Connection Update Complete. Core 6.0, Vol 4, Part E, §7.7.65.3.
public struct LEConnectionUpdateComplete: Hashable, Sendable {
    public var status: HCIStatus
    public var handle: UInt16
    /// In units of 1.25 ms.
    public var connectionInterval: UInt16
    public var peripheralLatency: UInt16
    /// In units of 10 ms.
    public var supervisionTimeout: UInt16

    init(_ reader: inout ByteReader) throws(DecodeError) {
        status = HCIStatus(rawValue: try reader.u8("Status"))
        handle = try reader.handle("Connection_Handle")
        connectionInterval = try reader.u16le("Connection_Interval")
        peripheralLatency = try reader.u16le("Peripheral_Latency")
        supervisionTimeout = try reader.u16le("Supervision_Timeout")
    }
}

/// LE Remote Connection Parameter Request: the peer asks for new connection parameters.
/// Core 6.0, Vol 4, Part E, §7.7.65.6.
public struct LERemoteConnectionParameterRequest: Hashable, Sendable {
    public var handle: UInt16
    /// In units of 1.25 ms.
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    public var maxLatency: UInt16
    /// In units of 10 ms.
    public var timeout: UInt16

    init(_ reader: inout ByteReader) throws(DecodeError) {
        handle = try reader.handle("Connection_Handle")
        intervalMin = try reader.u16le("Interval_Min")
        intervalMax = try reader.u16le("Interval_Max")
        maxLatency = try reader.u16le("Max_Latency")
        timeout = try reader.u16le("Timeout")
    }
}

/// LE Data Length Change: the new maximum payload sizes and times on a connection.
/// Core 6.0, Vol 4, Part E, §7.7.65.7.
public struct LEDataLengthChange: Hashable, Sendable {
    public var handle: UInt16
    /// Octets of link-layer payload.
    public var maxTxOctets: UInt16
    /// Microseconds.
    public var maxTxTime: UInt16
    public var maxRxOctets: UInt16
    public var maxRxTime: UInt16

    init(_ reader: inout ByteReader) throws(DecodeError) {
        handle = try reader.handle("Connection_Handle")
        maxTxOctets = try reader.u16le("Max_TX_Octets")
        maxTxTime = try reader.u16le("Max_TX_Time")
        maxRxOctets = try reader.u16le("Max_RX_Octets")
        maxRxTime = try reader.u16le("Max_RX_Time")
    }
}

/// LE Advertising Set Terminated. Core 6.0, Vol 4, Part E, §7.7.65.18.
public struct LEAdvertisingSetTerminated: Hashable, Sendable {
    /// 0x00: the set became a connection; otherwise why it stopped (0x3C Advertising Timeout,
    /// 0x43 Limit Reached).
    public var status: HCIStatus
    public var advertisingHandle: UInt8
    /// The connection the set became; valid only with status 0x00.
    public var handle: UInt16
    /// How many extended advertising events the set completed (when it had a maximum).
    public var numCompletedExtendedAdvertisingEvents: UInt8

    init(_ reader: inout ByteReader) throws(DecodeError) {
        status = HCIStatus(rawValue: try reader.u8("Status"))
        advertisingHandle = try reader.u8("Advertising_Handle")
        handle = try reader.handle("Connection_Handle")
        numCompletedExtendedAdvertisingEvents = try reader.u8("Num_Completed_Extended_Advertising_Events")
    }
}
