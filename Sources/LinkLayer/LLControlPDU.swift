import HCI
import Wire

/// An LL control PDU (LLID 0b11): opcode and CtrData. Core 6.0, Vol 6, Part B, §2.4.2; the
/// procedures that use them, §5.1. Error codes are HCI's (Vol 1, Part F).
package enum LLControlPDU {
    /// §2.4.2.1. Window size (1.25 ms units), window offset (1.25 ms), interval (1.25 ms),
    /// latency (events), supervision timeout (10 ms), instant (event counter).
    case connectionUpdate(
        windowSize: UInt8, windowOffset: UInt16, interval: UInt16, latency: UInt16, timeout: UInt16, instant: UInt16)
    /// §2.4.2.2. The 37-bit channel map (bit n: data channel n used) and its instant.
    case channelMap(map: UInt64, instant: UInt16)
    /// §2.4.2.3. Why the sender ends the connection.
    case terminate(reason: HCIStatus)
    /// §2.4.2.4. Rand, EDIV, the central's session key diversifier and initialization vector.
    case encryptionRequest(random: UInt64, ediv: UInt16, skdCentral: UInt64, ivCentral: UInt32)
    /// §2.4.2.5.
    case encryptionResponse(skdPeripheral: UInt64, ivPeripheral: UInt32)
    case startEncryptionRequest
    case startEncryptionResponse
    /// §2.4.2.8. The opcode the sender did not understand.
    case unknownResponse(LLControlOpcode)
    /// §2.4.2.9-10 and 14: the sender's LL feature set (Vol 6, Part B, §4.6).
    case featureRequest(features: UInt64)
    case featureResponse(features: UInt64)
    case peripheralFeatureRequest(features: UInt64)
    case pauseEncryptionRequest
    case pauseEncryptionResponse
    /// §2.4.2.13. Version (Assigned Numbers), company identifier, subversion.
    case version(version: UInt8, company: UInt16, subversion: UInt16)
    /// §2.4.2.14.
    case reject(error: HCIStatus)
    /// §2.4.2.16-17.
    case connectionParameterRequest(ConnectionParameters)
    case connectionParameterResponse(ConnectionParameters)
    /// §2.4.2.18. The opcode rejected, and why.
    case rejectExtended(opcode: LLControlOpcode, error: HCIStatus)
    case pingRequest
    case pingResponse
    /// §2.4.2.21-22. Octets and µs.
    case lengthRequest(maxRxOctets: UInt16, maxRxTime: UInt16, maxTxOctets: UInt16, maxTxTime: UInt16)
    case lengthResponse(maxRxOctets: UInt16, maxRxTime: UInt16, maxTxOctets: UInt16, maxTxTime: UInt16)
    /// §2.4.2.23-24. PHY bit fields: bit 0 LE 1M, 1 LE 2M, 2 LE Coded.
    case phyRequest(txPHYs: UInt8, rxPHYs: UInt8)
    case phyResponse(txPHYs: UInt8, rxPHYs: UInt8)
    /// §2.4.2.25.
    case phyUpdate(centralToPeripheral: UInt8, peripheralToCentral: UInt8, instant: UInt16)
    /// §2.4.2.26.
    case minUsedChannels(phys: UInt8, minimum: UInt8)
    /// §2.4.2.33-35: connected isochronous stream set-up.
    case cisRequest(CISRequest)
    case cisResponse(offsetMin: UInt32, offsetMax: UInt32, eventCount: UInt16)
    case cisIndication(
        accessAddress: UInt32, offset: UInt32, cigSyncDelay: UInt32, cisSyncDelay: UInt32, eventCount: UInt16)
    /// §2.4.2.36.
    case cisTerminate(cigID: UInt8, cisID: UInt8, reason: HCIStatus)
    /// An assigned opcode whose fields are kept as bytes (CTE, periodic sync, clock accuracy,
    /// power control, subrating, channel classification).
    case other(LLControlOpcode, parameters: UnsafeRawBufferPointer)
    /// An unassigned opcode, kept with its bytes.
    case unknown(opcode: LLControlOpcode, parameters: UnsafeRawBufferPointer)

    /// Connection Parameters Request and Response fields (§2.4.2.16).
    package struct ConnectionParameters: Hashable, Sendable {
        package var intervalMin: UInt16
        package var intervalMax: UInt16
        package var latency: UInt16
        package var timeout: UInt16
        package var preferredPeriodicity: UInt8
        package var referenceEventCount: UInt16
        package var offsets: (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16)

        package static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.intervalMin == rhs.intervalMin && lhs.intervalMax == rhs.intervalMax && lhs.latency == rhs.latency
                && lhs.timeout == rhs.timeout && lhs.preferredPeriodicity == rhs.preferredPeriodicity
                && lhs.referenceEventCount == rhs.referenceEventCount && lhs.offsets == rhs.offsets
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(intervalMin)
            hasher.combine(intervalMax)
            hasher.combine(referenceEventCount)
        }
    }

    /// LL_CIS_REQ fields (§2.4.2.33). Times in µs; ISO interval in 1.25 ms.
    package struct CISRequest: Hashable, Sendable {
        package var cigID: UInt8
        package var cisID: UInt8
        package var phyCentralToPeripheral: UInt8
        package var phyPeripheralToCentral: UInt8
        package var maxSDUCentralToPeripheral: UInt16
        package var framed: Bool
        package var maxSDUPeripheralToCentral: UInt16
        package var sduIntervalCentralToPeripheral: UInt32
        package var sduIntervalPeripheralToCentral: UInt32
        package var maxPDUCentralToPeripheral: UInt16
        package var maxPDUPeripheralToCentral: UInt16
        package var subeventCount: UInt8
        package var subInterval: UInt32
        package var burstNumberCentralToPeripheral: UInt8
        package var burstNumberPeripheralToCentral: UInt8
        package var flushTimeoutCentralToPeripheral: UInt8
        package var flushTimeoutPeripheralToCentral: UInt8
        package var isoInterval: UInt16
        package var offsetMin: UInt32
        package var offsetMax: UInt32
        package var eventCount: UInt16
    }

    package var opcode: LLControlOpcode {
        switch self {
        case .connectionUpdate: .connectionUpdateInd
        case .channelMap: .channelMapInd
        case .terminate: .terminateInd
        case .encryptionRequest: .encReq
        case .encryptionResponse: .encRsp
        case .startEncryptionRequest: .startEncReq
        case .startEncryptionResponse: .startEncRsp
        case .unknownResponse: .unknownRsp
        case .featureRequest: .featureReq
        case .featureResponse: .featureRsp
        case .peripheralFeatureRequest: .peripheralFeatureReq
        case .pauseEncryptionRequest: .pauseEncReq
        case .pauseEncryptionResponse: .pauseEncRsp
        case .version: .versionInd
        case .reject: .rejectInd
        case .connectionParameterRequest: .connectionParamReq
        case .connectionParameterResponse: .connectionParamRsp
        case .rejectExtended: .rejectExtInd
        case .pingRequest: .pingReq
        case .pingResponse: .pingRsp
        case .lengthRequest: .lengthReq
        case .lengthResponse: .lengthRsp
        case .phyRequest: .phyReq
        case .phyResponse: .phyRsp
        case .phyUpdate: .phyUpdateInd
        case .minUsedChannels: .minUsedChannelsInd
        case .cisRequest: .cisReq
        case .cisResponse: .cisRsp
        case .cisIndication: .cisInd
        case .cisTerminate: .cisTerminateInd
        case .other(let opcode, _), .unknown(let opcode, _): opcode
        }
    }

    /// The HCI error code the PDU carries (terminate, reject, CIS terminate), if any.
    package var errorCode: HCIStatus? {
        switch self {
        case .terminate(let code), .reject(let code), .rejectExtended(_, let code), .cisTerminate(_, _, let code): code
        default: nil
        }
    }

    /// Decodes an LL control PDU's payload (opcode first). Its CtrData must be at least as long
    /// as the opcode's (bytes beyond it are ignored, as the specification has later versions
    /// extend a PDU at its end). Error offsets count from the start of `bytes`.
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> LLControlPDU {
        var reader = ByteReader(bytes, layer: .linkLayer)
        let opcode = LLControlOpcode(rawValue: try reader.u8("LL control opcode (1 byte)"))
        guard let length = opcode.parameterLength else { return .unknown(opcode: opcode, parameters: reader.rest()) }
        guard reader.remaining >= length else {
            throw reader.error("\(length) bytes of \(opcode) parameters, not \(reader.remaining)")
        }
        switch opcode.rawValue {
        case 0x00:
            return .connectionUpdate(
                windowSize: try reader.u8("WinSize"), windowOffset: try reader.u16le("WinOffset"),
                interval: try reader.u16le("Interval"), latency: try reader.u16le("Latency"),
                timeout: try reader.u16le("Timeout"), instant: try reader.u16le("Instant"))
        case 0x01:
            let low = UInt64(try reader.u32le("ChM"))
            let map = low | UInt64(try reader.u8("ChM")) << 32
            return .channelMap(map: map, instant: try reader.u16le("Instant"))
        case 0x02: return .terminate(reason: try status(&reader))
        case 0x03:
            return .encryptionRequest(
                random: try u64(&reader), ediv: try reader.u16le("EDIV"), skdCentral: try u64(&reader),
                ivCentral: try reader.u32le("IVm"))
        case 0x04: return .encryptionResponse(skdPeripheral: try u64(&reader), ivPeripheral: try reader.u32le("IVs"))
        case 0x05: return .startEncryptionRequest
        case 0x06: return .startEncryptionResponse
        case 0x07: return .unknownResponse(LLControlOpcode(rawValue: try reader.u8("UnknownType")))
        case 0x08: return .featureRequest(features: try u64(&reader))
        case 0x09: return .featureResponse(features: try u64(&reader))
        case 0x0A: return .pauseEncryptionRequest
        case 0x0B: return .pauseEncryptionResponse
        case 0x0C:
            return .version(
                version: try reader.u8("VersNr"), company: try reader.u16le("CompId"),
                subversion: try reader.u16le("SubVersNr"))
        case 0x0D: return .reject(error: try status(&reader))
        case 0x0E: return .peripheralFeatureRequest(features: try u64(&reader))
        case 0x0F, 0x10:
            let parameters = ConnectionParameters(
                intervalMin: try reader.u16le("Interval_Min"), intervalMax: try reader.u16le("Interval_Max"),
                latency: try reader.u16le("Latency"), timeout: try reader.u16le("Timeout"),
                preferredPeriodicity: try reader.u8("PreferredPeriodicity"),
                referenceEventCount: try reader.u16le("ReferenceConnEventCount"),
                offsets: (
                    try reader.u16le("Offset0"), try reader.u16le("Offset1"), try reader.u16le("Offset2"),
                    try reader.u16le("Offset3"), try reader.u16le("Offset4"), try reader.u16le("Offset5")
                ))
            return opcode.rawValue == 0x0F
                ? .connectionParameterRequest(parameters) : .connectionParameterResponse(parameters)
        case 0x11:
            return .rejectExtended(
                opcode: LLControlOpcode(rawValue: try reader.u8("RejectOpcode")), error: try status(&reader))
        case 0x12: return .pingRequest
        case 0x13: return .pingResponse
        case 0x14, 0x15:
            let (rxOctets, rxTime) = (try reader.u16le("MaxRxOctets"), try reader.u16le("MaxRxTime"))
            let (txOctets, txTime) = (try reader.u16le("MaxTxOctets"), try reader.u16le("MaxTxTime"))
            return opcode.rawValue == 0x14
                ? .lengthRequest(maxRxOctets: rxOctets, maxRxTime: rxTime, maxTxOctets: txOctets, maxTxTime: txTime)
                : .lengthResponse(maxRxOctets: rxOctets, maxRxTime: rxTime, maxTxOctets: txOctets, maxTxTime: txTime)
        case 0x16: return .phyRequest(txPHYs: try reader.u8("TX_PHYS"), rxPHYs: try reader.u8("RX_PHYS"))
        case 0x17: return .phyResponse(txPHYs: try reader.u8("TX_PHYS"), rxPHYs: try reader.u8("RX_PHYS"))
        case 0x18:
            return .phyUpdate(
                centralToPeripheral: try reader.u8("PHY_C_TO_P"), peripheralToCentral: try reader.u8("PHY_P_TO_C"),
                instant: try reader.u16le("Instant"))
        case 0x19: return .minUsedChannels(phys: try reader.u8("PHYS"), minimum: try reader.u8("MinUsedChannels"))
        case 0x1F:
            let cig = try reader.u8("CIG_ID")
            let cis = try reader.u8("CIS_ID")
            let phyCP = try reader.u8("PHY_C_To_P")
            let phyPC = try reader.u8("PHY_P_To_C")
            let sduCP = try reader.u16le("Max_SDU_C_To_P")
            let sduPC = try reader.u16le("Max_SDU_P_To_C")
            let intervalCP = try reader.u24le("SDU_Interval_C_To_P")
            let intervalPC = try reader.u24le("SDU_Interval_P_To_C")
            let pduCP = try reader.u16le("Max_PDU_C_To_P")
            let pduPC = try reader.u16le("Max_PDU_P_To_C")
            let nse = try reader.u8("NSE")
            let subInterval = try reader.u24le("Sub_Interval")
            let burst = try reader.u8("BN")
            let ftCP = try reader.u8("FT_C_To_P")
            let ftPC = try reader.u8("FT_P_To_C")
            let isoInterval = try reader.u16le("ISO_Interval")
            let offsetMin = try reader.u24le("CIS_Offset_Min")
            let offsetMax = try reader.u24le("CIS_Offset_Max")
            let count = try reader.u16le("connEventCount")
            return .cisRequest(
                CISRequest(
                    cigID: cig, cisID: cis, phyCentralToPeripheral: phyCP, phyPeripheralToCentral: phyPC,
                    maxSDUCentralToPeripheral: sduCP & 0x0FFF, framed: sduCP & 0x8000 != 0,
                    maxSDUPeripheralToCentral: sduPC & 0x0FFF, sduIntervalCentralToPeripheral: intervalCP & 0xF_FFFF,
                    sduIntervalPeripheralToCentral: intervalPC & 0xF_FFFF, maxPDUCentralToPeripheral: pduCP,
                    maxPDUPeripheralToCentral: pduPC, subeventCount: nse, subInterval: subInterval,
                    burstNumberCentralToPeripheral: burst & 0x0F, burstNumberPeripheralToCentral: burst >> 4,
                    flushTimeoutCentralToPeripheral: ftCP, flushTimeoutPeripheralToCentral: ftPC,
                    isoInterval: isoInterval,
                    offsetMin: offsetMin, offsetMax: offsetMax, eventCount: count))
        case 0x20:
            return .cisResponse(
                offsetMin: try reader.u24le("CIS_Offset_Min"), offsetMax: try reader.u24le("CIS_Offset_Max"),
                eventCount: try reader.u16le("connEventCount"))
        case 0x21:
            return .cisIndication(
                accessAddress: try reader.u32le("AA"), offset: try reader.u24le("CIS_Offset"),
                cigSyncDelay: try reader.u24le("CIG_Sync_Delay"), cisSyncDelay: try reader.u24le("CIS_Sync_Delay"),
                eventCount: try reader.u16le("connEventCount"))
        case 0x22:
            return .cisTerminate(
                cigID: try reader.u8("CIG_ID"), cisID: try reader.u8("CIS_ID"), reason: try status(&reader))
        default: return .other(opcode, parameters: reader.rest())
        }
    }

    // (Helpers taking the reader, not nested functions capturing it: those box it.)
    private static func status(_ reader: inout ByteReader) throws(DecodeError) -> HCIStatus {
        HCIStatus(rawValue: try reader.u8("error code"))
    }

    private static func u64(_ reader: inout ByteReader) throws(DecodeError) -> UInt64 {
        let low = UInt64(try reader.u32le("8-byte field"))
        return low | UInt64(try reader.u32le("8-byte field")) << 32
    }
}
