import HCI
import LinkLayer
import TestSupport
import Testing
import Wire

/// A link-layer packet: access address, PDU (header and payload), and a CRC made with `crcInit`.
func airPacket(
    accessAddress: UInt32 = LinkLayerPacket.advertisingAccessAddress, _ pdu: [UInt8], crcInit: UInt32 = 0x55_5555
) -> [UInt8] {
    let crc = pdu.withUnsafeBytes { LinkLayerPacket.crc(of: $0, initial: crcInit) }
    return (0..<4).map { UInt8(truncatingIfNeeded: accessAddress >> (8 * $0)) } + pdu
        + (0..<3).map { UInt8(truncatingIfNeeded: crc >> (8 * UInt32($0))) }
}

@Suite struct AdvertisingPDUTests {
    @Test func decodesAnAdvIndWithItsADStructures() throws {
        let pdu = packet(
            "40 0f",  // ADV_IND, TxAdd random, length 15
            "16 23 42 82 43 7d",  // AdvA 7D:43:82:42:23:16
            "02 01 06",  // Flags
            "05 09 41 42 43 44")  // Complete Local Name "ABCD"
        let bytes = airPacket(pdu)
        let packet = try withBytes(bytes) { try LinkLayerPacket.decode($0) }
        guard case .advertising(let adv) = packet.pdu, case .advertisement(let advertiser, let data) = adv.content
        else {
            Issue.record("decoded as \(packet.pdu)")
            return
        }
        #expect(adv.name == "ADV_IND" && adv.txRandom && !adv.rxRandom && adv.length == 15)
        #expect(advertiser == BluetoothAddress("7D:43:82:42:23:16"))
        let list = try data.structures()
        #expect(list.localName == "ABCD")
        #expect(list.flags?.rawValue == 0x06)
        #expect(try withBytes(bytes) { try LinkLayerPacket.decode($0) }.crcMatches(initial: 0x55_5555) == true)
    }

    @Test func decodesAConnectIndAndItsLLData() throws {
        let pdu = packet(
            "85 22",  // CONNECT_IND, RxAdd random, length 34
            "f4 3e 73 70 f3 5c",  // InitA
            "16 23 42 82 43 7d",  // AdvA
            "27 4a 65 50",  // AA 0x50654a27
            "5d d4 2e",  // CRCInit 0x2ed45d
            "03", "26 00", "36 00", "00 00", "2a 00",  // WinSize, WinOffset, Interval 54, Latency, Timeout 42
            "ff ff ff ff 1f",  // ChM
            "a5")  // Hop 5, SCA 5
        let packet = try withBytes(airPacket(pdu)) { try LinkLayerPacket.decode($0) }
        guard case .advertising(let adv) = packet.pdu,
            case .connect(let initiator, let advertiser, let data) = adv.content
        else {
            Issue.record("decoded as \(packet.pdu)")
            return
        }
        #expect(
            initiator == BluetoothAddress("5C:F3:70:73:3E:F4") && advertiser == BluetoothAddress("7D:43:82:42:23:16"))
        #expect(adv.rxRandom && !adv.txRandom)
        #expect(data.accessAddress == 0x5065_4A27 && data.crcInit == 0x2E_D45D)
        #expect(data.interval == 54 && data.timeout == 42 && data.windowSize == 3 && data.windowOffset == 38)
        #expect(data.channelMap == 0x1F_FFFF_FFFF && data.hop == 5 && data.sleepClockAccuracy == 5)
    }

    @Test func decodesScanRequestAndDirectedAdvertising() throws {
        let scan = try withBytes(airPacket(packet("c3 0c", "0c b2 f0 de f5 14", "16 23 42 82 43 7d"))) {
            try LinkLayerPacket.decode($0)
        }
        guard case .advertising(let request) = scan.pdu,
            case .scanRequest(let scanner, let advertiser) = request.content
        else {
            Issue.record("decoded as \(scan.pdu)")
            return
        }
        #expect(request.name == "SCAN_REQ")
        #expect(scanner == BluetoothAddress("14:F5:DE:F0:B2:0C") && advertiser == BluetoothAddress("7D:43:82:42:23:16"))
        let direct = try withBytes(airPacket(packet("01 0c", "01 02 03 04 05 06", "0a 0b 0c 0d 0e 0f"))) {
            try LinkLayerPacket.decode($0)
        }
        guard case .advertising(let adv) = direct.pdu, case .directed(_, let target) = adv.content else {
            Issue.record("decoded as \(direct.pdu)")
            return
        }
        #expect(adv.name == "ADV_DIRECT_IND" && target == BluetoothAddress("0F:0E:0D:0C:0B:0A"))
    }

    @Test func decodesAnExtendedHeaderFieldByField() throws {
        let pdu = packet(
            "47 11",  // ADV_EXT_IND, TxAdd random, length 17
            "4d",  // extended header length 13, AdvMode 1 (connectable)
            "59",  // flags: AdvA, ADI, AuxPtr, TxPower
            "01 02 03 04 05 06",  // AdvA
            "34 12",  // ADI: DID 0x234, SID 1
            "05 2c 21",  // AuxPtr: channel 5, offset units 30 µs, offset 0x12c, PHY 1 (2M)
            "f8",  // TxPower -8 dBm
            "02 01 06")  // AdvData: Flags (in AUX_ADV_IND it would be; here to test the split)
        let packet = try withBytes(airPacket(pdu)) { try LinkLayerPacket.decode($0) }
        guard case .advertising(let adv) = packet.pdu, case .extended(let payload) = adv.content else {
            Issue.record("decoded as \(packet.pdu)")
            return
        }
        #expect(adv.name == "ADV_EXT_IND")
        #expect(payload.advMode == 1 && payload.headerLength == 13 && payload.flags == 0x59)
        #expect(payload.advertiser == BluetoothAddress("06:05:04:03:02:01"))
        #expect(payload.dataID == 0x234 && payload.setID == 1)
        let aux = try #require(payload.auxPointer)
        #expect(aux.channel == 5 && !aux.clockAccuracy && !aux.offsetUnits300 && aux.offset == 0x12C && aux.phy == 1)
        #expect(payload.txPower == -8)
        #expect(Array(payload.data.bytes) == [0x02, 0x01, 0x06])
        #expect(payload.acad.isEmpty)
        // On a secondary channel the same type is AUX_ADV_IND.
        let secondary = try withBytes(airPacket(pdu)) { try LinkLayerPacket.decode($0, channel: 5) }
        guard case .advertising(let auxiliary) = secondary.pdu else { return }
        #expect(auxiliary.name == "AUX_ADV_IND")
    }

    @Test func anExtendedHeaderFieldPastTheHeaderLengthThrows() {
        // Flags announce AdvA (6 bytes) in a header of 3.
        let pdu = packet("07 05", "03", "01", "01 02", "00")
        #expect(throws: DecodeError.self) { try withBytes(airPacket(pdu)) { try LinkLayerPacket.decode($0) } }
    }

    @Test func everyTruncationOfAConnectIndThrowsANamedError() {
        let pdu = packet(
            "05 22", "f4 3e 73 70 f3 5c", "16 23 42 82 43 7d", "27 4a 65 50", "5d d4 2e", "03 26 00 36 00 00 00 2a 00",
            "ff ff ff ff 1f", "a5")
        let bytes = airPacket(pdu)
        // Without the CRC the packet still decodes (a capture may cut it); shorter, it must not.
        for cut in 0..<(bytes.count - 3) {
            #expect(throws: DecodeError.self, "cut to \(cut)") {
                try withBytes(Array(bytes[..<cut])) { try LinkLayerPacket.decode($0) }
            }
        }
        #expect(throws: Never.self) { try withBytes(Array(bytes.dropLast(3))) { try LinkLayerPacket.decode($0) } }
        do {
            _ = try withBytes(Array(bytes[..<20])) { try LinkLayerPacket.decode($0) }
        } catch let error as DecodeError {
            #expect(error.layer == .linkLayer)
            #expect(error.offset == 5)  // the length field
            #expect(error.expected.contains("34 bytes of PDU payload"))
        } catch {
            Issue.record("not a DecodeError: \(error)")
        }
    }

    @Test func aReservedPDUTypeSurvivesWithItsPayload() throws {
        let packet = try withBytes(airPacket(packet("0e 02", "aa bb"))) { try LinkLayerPacket.decode($0) }
        guard case .advertising(let adv) = packet.pdu, case .unknown(let payload) = adv.content else {
            Issue.record("decoded as \(packet.pdu)")
            return
        }
        #expect(Array(payload) == [0xAA, 0xBB])
        #expect(adv.name == "AdvertisingPDUType(0xe)")
    }
}
