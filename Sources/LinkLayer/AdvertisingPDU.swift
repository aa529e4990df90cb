import HCI
import Wire

/// An advertising physical channel PDU: a 16-bit header, then a payload by PDU type.
/// Core 6.0, Vol 6, Part B, §2.3. Views borrow the record's bytes.
package struct AdvertisingPDU {
    /// The header's first byte: PDU type (bits 0-3), RFU (4), ChSel (5), TxAdd (6), RxAdd (7).
    package var header: UInt8
    package var length: Int
    /// True for a PDU heard on a secondary channel (index 0-36): AUX_ names.
    package var isAuxiliary: Bool
    /// Which auxiliary PDU a type 7 PDU on a secondary channel is, where the capture tells: the
    /// AuxPtr that led to it (``LinkLayerDecoder`` follows them), or the nRF Sniffer's AUX type.
    /// Nil on the primary channels, and where nothing tells (then named AUX_ADV_IND).
    package var auxiliaryKind: AuxiliaryKind?
    package var content: Content

    package var type: AdvertisingPDUType { AdvertisingPDUType(rawValue: header & 0x0F) }
    /// ChSel: the sender supports channel selection algorithm #2.
    package var channelSelection2: Bool { header & 0x20 != 0 }
    /// TxAdd: the sender's address (AdvA, InitA, ScanA) is random.
    package var txRandom: Bool { header & 0x40 != 0 }
    /// RxAdd: the receiver's address (TargetA, AdvA of a request) is random.
    package var rxRandom: Bool { header & 0x80 != 0 }

    /// The type's name on the channel it was heard on.
    package var name: String {
        if let auxiliaryKind, type.rawValue == 7, isAuxiliary { return auxiliaryKind.name }
        return type.name(auxiliary: isAuxiliary)
    }

    package enum Content {
        /// ADV_IND, ADV_NONCONN_IND, ADV_SCAN_IND, SCAN_RSP (§2.3.1.1-4, §2.3.2.2): AdvA, then
        /// AD structures.
        case advertisement(advertiser: BluetoothAddress, data: AdvertisingData)
        /// ADV_DIRECT_IND (§2.3.1.2).
        case directed(advertiser: BluetoothAddress, target: BluetoothAddress)
        /// SCAN_REQ, AUX_SCAN_REQ (§2.3.2.1).
        case scanRequest(scanner: BluetoothAddress, advertiser: BluetoothAddress)
        /// CONNECT_IND, AUX_CONNECT_REQ (§2.3.3.1).
        case connect(initiator: BluetoothAddress, advertiser: BluetoothAddress, ConnectionData)
        /// ADV_EXT_IND, the AUX_ PDUs and AUX_CONNECT_RSP (§2.3.4): the common extended
        /// advertising payload.
        case extended(ExtendedAdvertisingPayload)
        /// A reserved PDU type, kept with its payload.
        case unknown(payload: UnsafeRawBufferPointer)
    }

    /// The address of the device that sent the PDU, where the PDU carries it.
    package var sender: BluetoothAddress? {
        switch content {
        case .advertisement(let advertiser, _), .directed(let advertiser, _): advertiser
        case .scanRequest(let scanner, _): scanner
        case .connect(let initiator, _, _): initiator
        case .extended(let payload): payload.advertiser
        case .unknown: nil
        }
    }

    /// Decodes the payload of a PDU whose header's first byte is `header`. `payloadOffset` is
    /// where the payload starts in the link-layer packet, for errors and AD structure offsets.
    static func decode(header: UInt8, payload: UnsafeRawBufferPointer, payloadOffset: Int, channel: UInt8?)
        throws(DecodeError) -> AdvertisingPDU
    {
        var reader = ByteReader(payload, layer: .linkLayer)
        let content: Content
        do throws(DecodeError) {
            switch header & 0x0F {
            case 0x00, 0x02, 0x04, 0x06:
                let advertiser = try reader.address("AdvA (6 bytes)")
                content = .advertisement(
                    advertiser: advertiser,
                    data: AdvertisingData(reader.rest(), offset: payloadOffset + 6, layer: .linkLayer))
            case 0x01:
                content = .directed(
                    advertiser: try reader.address("AdvA (6 bytes)"), target: try reader.address("TargetA (6 bytes)"))
            case 0x03:
                content = .scanRequest(
                    scanner: try reader.address("ScanA (6 bytes)"), advertiser: try reader.address("AdvA (6 bytes)"))
            case 0x05:
                let initiator = try reader.address("InitA (6 bytes)")
                let advertiser = try reader.address("AdvA (6 bytes)")
                content = .connect(initiator: initiator, advertiser: advertiser, try ConnectionData.decode(&reader))
            case 0x07, 0x08:
                content = .extended(try ExtendedAdvertisingPayload.decode(&reader, payloadOffset: payloadOffset))
            default:
                content = .unknown(payload: payload)
            }
        } catch {
            var located = error
            located.offset += payloadOffset
            throw located
        }
        return AdvertisingPDU(
            header: header, length: payload.count, isAuxiliary: (channel ?? 37) < 37, content: content)
    }
}

/// The four PDUs that share type 7 on the secondary advertising channels (Core 6.0, Vol 6,
/// Part B, §2.3.4), numbered as the nRF Sniffer's AUX type flags number them.
package enum AuxiliaryKind: UInt8, Hashable, Sendable {
    /// AUX_ADV_IND: reached from an ADV_EXT_IND's AuxPtr.
    case advertising = 0
    /// AUX_CHAIN_IND: reached from the AuxPtr of an AUX_ADV_IND, AUX_SCAN_RSP, AUX_SYNC_IND or
    /// AUX_CHAIN_IND; it continues that PDU's data.
    case chain = 1
    /// AUX_SYNC_IND: a periodic advertising train's PDU.
    case sync = 2
    /// AUX_SCAN_RSP: the answer to an AUX_SCAN_REQ.
    case scanResponse = 3

    package var name: String {
        switch self {
        case .advertising: "AUX_ADV_IND"
        case .chain: "AUX_CHAIN_IND"
        case .sync: "AUX_SYNC_IND"
        case .scanResponse: "AUX_SCAN_RSP"
        }
    }
}

/// The PDU type of an advertising physical channel PDU. Core 6.0, Vol 6, Part B, §2.3, Table 2.3.
package struct AdvertisingPDUType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: UInt8
    @inlinable package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static var advInd: Self { .init(rawValue: 0) }
    package static var advDirectInd: Self { .init(rawValue: 1) }
    package static var advNonconnInd: Self { .init(rawValue: 2) }
    package static var scanReq: Self { .init(rawValue: 3) }
    package static var scanRsp: Self { .init(rawValue: 4) }
    package static var connectInd: Self { .init(rawValue: 5) }
    package static var advScanInd: Self { .init(rawValue: 6) }
    package static var advExtInd: Self { .init(rawValue: 7) }
    package static var auxConnectRsp: Self { .init(rawValue: 8) }

    /// The name on a primary channel, or (`auxiliary`) on a secondary one, where type 7 is any
    /// of AUX_ADV_IND, AUX_SCAN_RSP, AUX_SYNC_IND and AUX_CHAIN_IND (told apart only by context).
    package func name(auxiliary: Bool) -> String {
        switch (rawValue, auxiliary) {
        case (0, _): "ADV_IND"
        case (1, _): "ADV_DIRECT_IND"
        case (2, _): "ADV_NONCONN_IND"
        case (3, false): "SCAN_REQ"
        case (3, true): "AUX_SCAN_REQ"
        case (4, _): "SCAN_RSP"
        case (5, false): "CONNECT_IND"
        case (5, true): "AUX_CONNECT_REQ"
        case (6, _): "ADV_SCAN_IND"
        case (7, false): "ADV_EXT_IND"
        case (7, true): "AUX_ADV_IND"
        case (8, _): "AUX_CONNECT_RSP"
        default: "AdvertisingPDUType(" + hex(rawValue, digits: 1) + ")"
        }
    }

    package var description: String { name(auxiliary: false) }
}

/// The LLData of CONNECT_IND / AUX_CONNECT_REQ: the new connection's parameters.
/// Core 6.0, Vol 6, Part B, §2.3.3.1.
package struct ConnectionData: Hashable, Sendable {
    package var accessAddress: UInt32
    package var crcInit: UInt32
    /// 1.25 ms units.
    package var windowSize: UInt8
    /// 1.25 ms units.
    package var windowOffset: UInt16
    /// 1.25 ms units.
    package var interval: UInt16
    /// Connection events the peripheral may skip.
    package var latency: UInt16
    /// Supervision timeout, 10 ms units.
    package var timeout: UInt16
    /// 37 bits: bit n set when data channel n is used.
    package var channelMap: UInt64
    /// Hop increment (5 bits) for channel selection algorithm #1.
    package var hop: UInt8
    /// Sleep clock accuracy (3 bits), Table 2.15.
    package var sleepClockAccuracy: UInt8

    static let size = 22

    static func decode(_ reader: inout ByteReader) throws(DecodeError) -> ConnectionData {
        try reader.require(size, "LLData (22 bytes)")
        let accessAddress = try reader.u32le("AA")
        let crcInit = try reader.u24le("CRCInit")
        let windowSize = try reader.u8("WinSize")
        let windowOffset = try reader.u16le("WinOffset")
        let interval = try reader.u16le("Interval")
        let latency = try reader.u16le("Latency")
        let timeout = try reader.u16le("Timeout")
        let map = UInt64(try reader.u32le("ChM")) | UInt64(try reader.u8("ChM")) << 32
        let last = try reader.u8("Hop and SCA")
        return ConnectionData(
            accessAddress: accessAddress, crcInit: crcInit, windowSize: windowSize, windowOffset: windowOffset,
            interval: interval, latency: latency, timeout: timeout, channelMap: map, hop: last & 0x1F,
            sleepClockAccuracy: last >> 5)
    }
}
